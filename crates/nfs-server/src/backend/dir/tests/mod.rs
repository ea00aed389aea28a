//! Tests of the directory backend against real directories under `std::env::temp_dir()`, removed afterwards.

mod attrs;
mod concurrent;
mod create;
mod escape;
mod find;
mod io;
mod names;
mod readdir;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use nfs3_proto::{NfsErr3, Sattr3, StableHow};

use super::{DirBackend, DirLimits};
use crate::backend::{Backend, Caller, CreateMode, FileId, NewNode};

/// A scratch directory holding `export/` (what is served) and room outside it, removed on drop.
pub(super) struct Scratch {
    base: PathBuf,
}

impl Scratch {
    pub(super) fn new(tag: &str) -> Scratch {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let base = std::env::temp_dir().join(format!("nfsbench-dirbackend-{}-{n}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("export")).expect("create scratch export");
        Scratch { base }
    }

    /// The exported directory.
    pub(super) fn export(&self) -> PathBuf {
        self.base.join("export")
    }

    /// The scratch directory itself (outside the export).
    pub(super) fn outside(&self) -> &Path {
        &self.base
    }

    pub(super) fn backend(&self) -> DirBackend {
        DirBackend::new(&self.export()).expect("open export")
    }

    pub(super) fn backend_with(&self, limits: DirLimits) -> DirBackend {
        DirBackend::with_limits(&self.export(), limits).expect("open export")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

pub(super) fn new_file(b: &DirBackend, dir: FileId, name: &str) -> FileId {
    let node = NewNode::File { exclusive: None };
    b.create(dir, name.as_bytes(), node, CreateMode::Guarded, &mode(0o644)).expect("create file")
}

pub(super) fn new_dir(b: &DirBackend, dir: FileId, name: &str) -> FileId {
    b.create(dir, name.as_bytes(), NewNode::Directory, CreateMode::Guarded, &mode(0o755)).expect("mkdir")
}

pub(super) fn mode(bits: u32) -> Sattr3 {
    Sattr3 { mode: Some(bits), ..Sattr3::default() }
}

pub(super) fn write_all(b: &DirBackend, file: FileId, offset: u64, data: &[u8]) {
    let done = b.write(file, offset, data, StableHow::Unstable, Caller::Privileged).expect("write");
    assert_eq!(done.count as usize, data.len());
}

pub(super) fn read_all(b: &DirBackend, file: FileId, offset: u64, count: u32) -> (Vec<u8>, bool) {
    let (served, eof) = b.read(file, offset, count).expect("read");
    (served.data.to_vec(), eof)
}

pub(super) fn is_stale<T: std::fmt::Debug>(r: Result<T, NfsErr3>) -> bool {
    matches!(r, Err(NfsErr3::Stale))
}

#[test]
fn scratch_directories_are_removed_when_dropped() {
    let path = {
        let s = Scratch::new("cleanup");
        std::fs::write(s.export().join("f"), b"x").expect("write");
        s.outside().to_path_buf()
    };
    assert!(!path.exists());
}

#[test]
fn describes_itself_and_says_it_may_block() {
    let s = Scratch::new("describe");
    let b = s.backend();
    assert_eq!(b.describe(), format!("dir:{}", s.export().display()));
    assert!(b.may_block());
    assert_eq!(b.path(), s.export());
    assert_eq!(b.max_file_size(), i64::MAX as u64);
}

#[test]
fn refuses_a_root_that_is_not_a_directory() {
    let s = Scratch::new("badroot");
    std::fs::write(s.export().join("plain"), b"x").expect("write");
    assert!(DirBackend::new(&s.export().join("plain")).is_err());
    assert!(DirBackend::new(&s.export().join("missing")).is_err());
}
