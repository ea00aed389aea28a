//! Shared by the binary's end-to-end tests: the built `nfsbench`, scratch directories, and waiting for
//! `nfsbench serve`'s ready file.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The built binary, with RUST_LOG cleared.
pub fn nfsbench() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_nfsbench"));
    cmd.env_remove("RUST_LOG");
    cmd
}

/// The binary `serve` starts: the built one, or `NFSBENCH_SERVE_BIN` when set (to run a test's server
/// side against another build, e.g. the hostile suite against an older release).
pub fn server_binary() -> Command {
    match std::env::var_os("NFSBENCH_SERVE_BIN") {
        Some(bin) => {
            let mut cmd = Command::new(bin);
            cmd.env_remove("RUST_LOG");
            cmd
        }
        None => nfsbench(),
    }
}

/// What a finished command wrote on stderr.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A fresh directory under the system temp dir for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nfsbench-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `nfsbench serve ARGS --ready-file READY` with the given stdout and stderr, and its bound addresses once
/// it is ready.
pub fn serve(
    args: &[&str],
    ready: &Path,
    stdout: impl Into<Stdio>,
    stderr: impl Into<Stdio>,
) -> (Child, Vec<SocketAddr>) {
    let mut child = server_binary()
        .arg("serve")
        .args(args)
        .arg("--ready-file")
        .arg(ready)
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .expect("spawn nfsbench serve");
    let addrs = wait_ready(&mut child, ready);
    (child, addrs)
}

/// The server's bound addresses, once the ready file appears (or the server died).
pub fn wait_ready(child: &mut Child, ready: &Path) -> Vec<SocketAddr> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(text) = std::fs::read_to_string(ready) {
            return text.lines().map(|l| l.parse().expect("an address per line")).collect();
        }
        if let Some(status) = child.try_wait().expect("wait") {
            panic!("nfsbench serve exited early with {status}");
        }
        assert!(Instant::now() < deadline, "no ready file within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}
