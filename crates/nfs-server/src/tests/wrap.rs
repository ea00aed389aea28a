//! A backend wrapper for tests that need to steer the backend: a settable cookie verifier (the RAM disk's
//! is always 0), a gate that holds REMOVE until released (for in-progress retransmissions), and a count
//! of calls that changed something.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use nfs3_proto::{Fattr3, NfsTime3, Sattr3, StableHow, WriteVerf3};

use crate::backend::mem::MemBackend;
use crate::backend::{Backend, BackendResult, Caller, CreateMode, DirPage, FileId, FsStats, NewNode, WriteDone};
use crate::payload::Served;

pub(crate) struct Wrapped {
    inner: MemBackend,
    pub cookie_verifier: AtomicU64,
    /// Calls of remove/create/write/rename/link/setattr that reached the backend.
    pub mutations: AtomicU64,
    gate: Mutex<Option<(Sender<()>, Receiver<()>)>>,
}

/// The test's side of an armed gate: `entered` fires when a REMOVE reaches the backend, which then waits
/// for `release`.
pub(crate) struct GateHandle {
    pub entered: Receiver<()>,
    pub release: Sender<()>,
}

impl Wrapped {
    pub(crate) fn new() -> Arc<Wrapped> {
        Arc::new(Wrapped {
            inner: MemBackend::new(16 << 20),
            cookie_verifier: AtomicU64::new(0),
            mutations: AtomicU64::new(0),
            gate: Mutex::new(None),
        })
    }

    /// Makes the next REMOVE wait for the test.
    pub(crate) fn arm_gate(&self) -> GateHandle {
        let (entered_tx, entered) = channel();
        let (release, release_rx) = channel();
        *self.gate.lock().unwrap_or_else(|p| p.into_inner()) = Some((entered_tx, release_rx));
        GateHandle { entered, release }
    }

    fn pass_gate(&self) {
        let armed = self.gate.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some((entered, release)) = armed {
            let _ = entered.send(());
            let _ = release.recv();
        }
    }

    fn mutated(&self) {
        self.mutations.fetch_add(1, Ordering::SeqCst);
    }
}

impl Backend for Wrapped {
    fn describe(&self) -> String {
        format!("wrapped {}", self.inner.describe())
    }
    fn may_block(&self) -> bool {
        true
    }
    fn root(&self) -> FileId {
        self.inner.root()
    }
    fn getattr(&self, file: FileId) -> BackendResult<Fattr3> {
        self.inner.getattr(file)
    }
    fn setattr(&self, file: FileId, attrs: &Sattr3) -> BackendResult<Fattr3> {
        self.mutated();
        self.inner.setattr(file, attrs)
    }
    fn lookup(&self, dir: FileId, name: &[u8]) -> BackendResult<FileId> {
        self.inner.lookup(dir, name)
    }
    fn parent(&self, dir: FileId) -> BackendResult<FileId> {
        self.inner.parent(dir)
    }
    fn read(&self, file: FileId, offset: u64, count: u32) -> BackendResult<(Served, bool)> {
        self.inner.read(file, offset, count)
    }
    fn write(
        &self,
        file: FileId,
        offset: u64,
        data: &[u8],
        stable: StableHow,
        caller: Caller,
    ) -> BackendResult<WriteDone> {
        self.mutated();
        self.inner.write(file, offset, data, stable, caller)
    }
    fn commit(&self, file: FileId, offset: u64, count: u32) -> BackendResult<()> {
        self.inner.commit(file, offset, count)
    }
    fn create(
        &self,
        dir: FileId,
        name: &[u8],
        node: NewNode<'_>,
        mode: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        self.mutated();
        self.inner.create(dir, name, node, mode, attrs)
    }
    fn readlink(&self, link: FileId) -> BackendResult<Served> {
        self.inner.readlink(link)
    }
    fn remove(&self, dir: FileId, name: &[u8], rmdir: bool) -> BackendResult<()> {
        self.pass_gate();
        self.mutated();
        self.inner.remove(dir, name, rmdir)
    }
    fn rename(&self, from_dir: FileId, from_name: &[u8], to_dir: FileId, to_name: &[u8]) -> BackendResult<()> {
        self.mutated();
        self.inner.rename(from_dir, from_name, to_dir, to_name)
    }
    fn link(&self, file: FileId, dir: FileId, name: &[u8]) -> BackendResult<()> {
        self.mutated();
        self.inner.link(file, dir, name)
    }
    fn readdir(&self, dir: FileId, cookie: u64, max_entries: usize) -> BackendResult<DirPage> {
        self.inner.readdir(dir, cookie, max_entries)
    }
    fn cookie_verifier(&self, dir: FileId) -> BackendResult<u64> {
        self.inner.cookie_verifier(dir)?;
        Ok(self.cookie_verifier.load(Ordering::SeqCst))
    }
    fn fsstat(&self) -> BackendResult<FsStats> {
        self.inner.fsstat()
    }
    fn max_file_size(&self) -> u64 {
        self.inner.max_file_size()
    }
    fn write_verifier(&self) -> WriteVerf3 {
        self.inner.write_verifier()
    }
    fn time_delta(&self) -> NfsTime3 {
        self.inner.time_delta()
    }
}
