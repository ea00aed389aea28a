//! RDMA Read and Write: the initiator's CPU is the "NIC". At post time the peer's handle is validated
//! in the peer's key table (generation, bounds, right), the bytes move in one copy, the generation is
//! checked again, and the completion is queued. Copying at post time keeps RC ordering: a Write is
//! placed before any later Send is delivered.
//!
//! The copy: when the peer's segment lies entirely inside the peer's pool, which we map, a memcpy
//! between our memory and that mapping (no system call); otherwise one process_vm_readv /
//! process_vm_writev between the two address spaces (which also works within one process), for
//! arbitrary registrations. [`cross_memory_copies`] counts the system calls made.

use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use rdma::{Access, Completion, CompletionKind, MemoryRegion, RdmaError, RemoteSegment, WcError, WrId};

use crate::keytable::Refusal;
use crate::qp::{Queue, SoftQp};
use crate::sys::process::{self, CopyError, Direction};

/// process_vm_readv / process_vm_writev calls made by one-sided operations in this process.
static CROSS_MEMORY_COPIES: AtomicU64 = AtomicU64::new(0);

/// How many process_vm_readv / process_vm_writev system calls this process's RDMA Reads and Writes
/// have made so far (those into or out of a peer's pool make none): what shows that a data path
/// copies through the pools.
pub fn cross_memory_copies() -> u64 {
    CROSS_MEMORY_COPIES.load(Ordering::Relaxed)
}

/// Which one-sided operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Read,
    Write,
}

/// How a transfer ended, when not with success.
enum Failure {
    /// A work-completion error; the connection breaks.
    Wc(WcError, String),
    /// The peer is gone or closed: the request is flushed.
    Gone(String),
    /// The kernel refused cross-memory attach.
    Permission,
}

impl SoftQp {
    /// Posts an RDMA Read or Write between `local` at `offset` and `remote`.
    pub(crate) fn one_sided(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
        op: Op,
    ) -> Result<(), RdmaError> {
        self.check_local(local, offset, remote.length, op)?;
        self.reserve(&mut self.lock(), op == Op::Read)?;
        let result = self.transfer(local, offset, remote, op);
        self.finish(wr_id, remote, op, result)
    }

    /// Posts an RDMA Write of `sources`, in order, to `remote` (their lengths add up to its length).
    pub(crate) fn write_gather(&self, wr_id: WrId, sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
        rdma::check_gather(sources, remote)?;
        self.reserve(&mut self.lock(), false)?;
        let result = self.transfer_gather(sources, remote);
        self.finish(wr_id, remote, Op::Write, result)
    }

    /// Counts and completes a transfer that was made (or refused).
    fn finish(&self, wr_id: WrId, remote: RemoteSegment, op: Op, result: Result<(), Failure>) -> Result<(), RdmaError> {
        if result.is_ok() {
            // Before the completion, so before any Send the caller posts after this operation.
            self.local.count_one_sided(op == Op::Read, u64::from(remote.length));
        }
        let mut guard = self.lock();
        let state = &mut *guard;
        let queue = if op == Op::Read { Queue::Read } else { Queue::Send };
        let kind = if op == Op::Read { CompletionKind::Read } else { CompletionKind::Write };
        match result {
            Ok(()) if !state.down => self.complete(state, Completion { wr_id, result: Ok(kind) }, queue),
            Ok(()) => {
                self.complete(state, Completion { wr_id, result: Err(WcError::Flushed) }, queue);
            }
            Err(Failure::Gone(why)) => {
                self.complete(state, Completion { wr_id, result: Err(WcError::Flushed) }, queue);
                self.fail(state, &why);
            }
            Err(Failure::Wc(error, why)) => {
                self.complete(state, Completion { wr_id, result: Err(error) }, queue);
                self.fail(state, &why);
            }
            Err(Failure::Permission) => {
                // Not a completion: give the place in the queue back and tell the caller why.
                state.send_busy -= 1;
                state.read_busy -= u32::from(op == Op::Read);
                let pid = self.peer_pid;
                return Err(RdmaError::Unavailable(format!(
                    "the kernel refused access to the memory of process {pid} (process_vm_readv/writev: EPERM); \
                     both processes must run as the same user and be allowed to ptrace each other \
                     (Yama kernel.yama.ptrace_scope 0 or 1)"
                )));
            }
        }
        Ok(())
    }

    /// The local side of a work request: a live region of this connection, the range inside it, and
    /// for a Read target a writable buffer registered with LOCAL_WRITE.
    fn check_local(&self, local: &MemoryRegion, offset: usize, length: u32, op: Op) -> Result<(), RdmaError> {
        if local.is_invalidated() || !self.local.is_live(local.local_key(), local.start_addr()) {
            return Err(RdmaError::Invalid("the local region is not registered on this connection".into()));
        }
        if offset.checked_add(length as usize).is_none_or(|end| end > local.len()) {
            return Err(RdmaError::Invalid(format!(
                "{length} bytes at offset {offset} leave the local region ({} bytes)",
                local.len()
            )));
        }
        if op == Op::Read && !(local.is_writable() && local.access().contains(Access::LOCAL_WRITE)) {
            return Err(RdmaError::Invalid("an RDMA Read needs a writable region registered with LOCAL_WRITE".into()));
        }
        Ok(())
    }

    fn transfer(&self, local: &MemoryRegion, offset: usize, remote: RemoteSegment, op: Op) -> Result<(), Failure> {
        let need = if op == Op::Read { Access::REMOTE_READ } else { Access::REMOTE_WRITE };
        let lease = self.remote.lease(remote, need).map_err(refusal)?;
        let len = remote.length as usize;
        if len > 0 {
            let direction = if op == Op::Read { Direction::FromPeer } else { Direction::ToPeer };
            let in_pool = self.peer_pool.as_ref().and_then(|pool| Some((pool, pool.offset_of(lease.addr, len)?)));
            if let Some((pool, at)) = in_pool {
                // The local range was checked (check_local) against `local`, which stays registered
                // and alive for the call; the peer's range is inside our mapping of its pool.
                if !pool.mem.copy_region(at, local, offset, len, direction) {
                    let why = "the local region cannot take this copy".to_string();
                    return Err(Failure::Wc(WcError::Other(why.clone()), why));
                }
            } else {
                CROSS_MEMORY_COPIES.fetch_add(1, Ordering::Relaxed);
                // The local range was checked against the region, which `local` keeps alive and
                // registered for the whole call; a Read target is a Writable buffer only the provider
                // writes.
                let local_addr = local.start_addr() + offset;
                process::copy(self.peer_pid, direction, local_addr, lease.addr, len).map_err(copy_failure)?;
            }
        }
        lease.finish().map_err(refusal)
    }

    /// The copy of a gather write: each source, in order, into the peer's pool mapping, or one
    /// process_vm_writev with the sources as its local iovecs.
    fn transfer_gather(&self, sources: &[Bytes], remote: RemoteSegment) -> Result<(), Failure> {
        let lease = self.remote.lease(remote, Access::REMOTE_WRITE).map_err(refusal)?;
        let len = remote.length as usize;
        if len > 0 {
            match self.peer_pool.as_ref().and_then(|pool| Some((pool, pool.offset_of(lease.addr, len)?))) {
                Some((pool, mut at)) => {
                    for source in sources {
                        pool.mem.write_bytes(at, source);
                        at += source.len();
                    }
                }
                None => {
                    let parts: Vec<&[u8]> = sources.iter().map(|s| s.as_ref()).collect();
                    let calls = process::write_gather(self.peer_pid, &parts, lease.addr);
                    CROSS_MEMORY_COPIES.fetch_add(*calls.as_ref().unwrap_or(&1), Ordering::Relaxed);
                    calls.map_err(copy_failure)?;
                }
            }
        }
        lease.finish().map_err(refusal)
    }
}

fn copy_failure(error: CopyError) -> Failure {
    match error {
        CopyError::Fault => {
            let why = "the peer's registered memory is not mapped".to_string();
            Failure::Wc(WcError::RemoteAccess(why.clone()), why)
        }
        CopyError::Permission => Failure::Permission,
        CopyError::PeerGone => Failure::Gone("the peer process exited".into()),
        CopyError::Other(e) => Failure::Wc(WcError::Other(format!("cross-memory copy: {e}")), e.to_string()),
    }
}

fn refusal(refusal: Refusal) -> Failure {
    match refusal {
        Refusal::Closed => Failure::Gone("the peer closed its side".into()),
        // RFC 8166 §3.4.3 relies on RC semantics: a bad handle, range or right is a remote access error.
        Refusal::Access(why) => Failure::Wc(WcError::RemoteAccess(why.clone()), why),
    }
}
