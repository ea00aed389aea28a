//! Tests: fixture sysfs trees and a recording runner. A fixture is a temporary directory laid out as
//! the kernel lays /sys out; the runner records every argv and answers from a closure, which may
//! change the tree as the real command would have changed the kernel.

mod diskstats_tests;
mod iscsi_tests;
mod nvme_tests;
mod options_tests;
mod preflight_tests;
mod runner_tests;
mod sysfs_tests;
mod target_tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::attachment::Patience;
use crate::error::AttachError;
use crate::runner::{CommandOutput, Runner};
use crate::sysfs::Sysfs;

/// Quick enough for tests, long enough for a helper thread to add a disk.
pub(crate) const QUICK: Patience = Patience { timeout: Duration::from_millis(150), step: Duration::from_millis(5) };
pub(crate) const PATIENT: Patience = Patience { timeout: Duration::from_secs(5), step: Duration::from_millis(10) };

/// A temporary directory, removed when dropped.
pub(crate) struct Tree {
    root: PathBuf,
}

impl Tree {
    pub(crate) fn new(tag: &str) -> Tree {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "kernel-attach-{tag}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("fixture root");
        // The drivers an attach would otherwise modprobe, loaded (tests of loading remove them).
        for module in ["sd_mod", "nvme_tcp", "nvme_rdma"] {
            mkdir(&root, &format!("module/{module}"));
        }
        Tree { root }
    }

    pub(crate) fn root(&self) -> PathBuf {
        self.root.clone()
    }

    pub(crate) fn sysfs(&self) -> Sysfs {
        Sysfs::new(&self.root)
    }

    pub(crate) fn file(&self, rel: &str, content: &str) {
        write(&self.root, rel, content);
    }

    pub(crate) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Writes `root/rel`, making its directories.
pub(crate) fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("fixture directory");
    std::fs::write(&path, content).expect("fixture file");
}

pub(crate) fn mkdir(root: &Path, rel: &str) {
    std::fs::create_dir_all(root.join(rel)).expect("fixture directory");
}

/// `root/rel` → `to` (relative to the link's directory, as sysfs links are).
pub(crate) fn link(root: &Path, rel: &str, to: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("fixture directory");
    std::os::unix::fs::symlink(to, &path).expect("fixture link");
}

pub(crate) fn remove(root: &Path, rel: &str) {
    let _ = std::fs::remove_dir_all(root.join(rel));
}

pub(crate) type Calls = Arc<Mutex<Vec<Vec<String>>>>;
type Respond = Box<dyn Fn(&[String]) -> CommandOutput + Send>;

/// Records every argv (program first) and answers with `respond`.
pub(crate) struct FakeRunner {
    calls: Calls,
    respond: Respond,
}

impl FakeRunner {
    pub(crate) fn new(respond: impl Fn(&[String]) -> CommandOutput + Send + 'static) -> (FakeRunner, Calls) {
        let calls: Calls = Arc::default();
        (FakeRunner { calls: calls.clone(), respond: Box::new(respond) }, calls)
    }
}

impl Runner for FakeRunner {
    fn run(&self, program: &str, args: &[String]) -> Result<CommandOutput, AttachError> {
        let argv = crate::runner::argv(program, args);
        self.calls.lock().expect("calls").push(argv.clone());
        Ok((self.respond)(&argv))
    }
}

pub(crate) fn ok(stdout: &str) -> CommandOutput {
    CommandOutput { status: Some(0), stdout: stdout.to_string(), stderr: String::new() }
}

pub(crate) fn fail(status: i32, stderr: &str) -> CommandOutput {
    CommandOutput { status: Some(status), stdout: String::new(), stderr: stderr.to_string() }
}

/// The recorded argvs, each joined with spaces.
pub(crate) fn recorded(calls: &Calls) -> Vec<String> {
    calls.lock().expect("calls").iter().map(|argv| argv.join(" ")).collect()
}

pub(crate) fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}
