//! Tests of the RAM-disk backend, one file per concern.

mod attributes;
mod data;
mod namespace;
mod readdir;
mod stress;

use nfs3_proto::Sattr3;

use super::MemBackend;
use crate::backend::{Backend, CreateMode, FileId, NewNode};

const MIB: u64 = 1 << 20;

fn backend() -> MemBackend {
    MemBackend::new(64 * MIB)
}

fn create(backend: &MemBackend, dir: FileId, name: &str, node: NewNode<'_>) -> FileId {
    backend.create(dir, name.as_bytes(), node, CreateMode::Guarded, &Sattr3::default()).expect("create")
}

fn new_file(backend: &MemBackend, dir: FileId, name: &str) -> FileId {
    create(backend, dir, name, NewNode::File { exclusive: None })
}

fn new_dir(backend: &MemBackend, dir: FileId, name: &str) -> FileId {
    create(backend, dir, name, NewNode::Directory)
}

/// Every name in `dir`, listed `per_page` at a time.
fn list(backend: &MemBackend, dir: FileId, per_page: usize) -> Vec<String> {
    let mut names = Vec::new();
    let mut cookie = 0;
    loop {
        let page = backend.readdir(dir, cookie, per_page).expect("readdir");
        for entry in &page.entries {
            names.push(String::from_utf8_lossy(&entry.name).into_owned());
            cookie = entry.cookie;
        }
        if page.eof {
            return names;
        }
    }
}

fn read_all(backend: &MemBackend, file: FileId, offset: u64, count: u32) -> (Vec<u8>, bool) {
    let (served, eof) = backend.read(file, offset, count).expect("read");
    (served.data.to_vec(), eof)
}

fn used_bytes(backend: &MemBackend) -> u64 {
    let stats = backend.fsstat().expect("fsstat");
    stats.total_bytes - stats.free_bytes
}
