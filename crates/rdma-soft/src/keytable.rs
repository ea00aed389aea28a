//! The key table: one side's registrations, in shared memory its peer maps read-only.
//!
//! Layout of the table memfd: a 64-byte header (magic, receives posted, closed flag, slot count,
//! nonce, bytes this side has RDMA-Read from and RDMA-Written to its peer), then [`SLOTS`] slots of four words: a sequence word, start address, length, access bits. A
//! slot is valid while its sequence word is odd; registering makes it odd, deregistering makes it even
//! again, so a handle (R_key = sequence low bits << 14 | slot) names one registration and never a
//! later reuse of its slot.
//!
//! A second memfd, the guard, holds one busy counter per slot that the *peer* writes: an accessor
//! raises it before validating a handle and lowers it after its copy, and deregistration waits for it
//! to fall to zero after making the slot invalid (store-then-load on both sides, sequentially
//! consistent), so memory is never freed under a copy in flight.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{fence, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rdma::{Access, RdmaError, RemoteSegment};

use crate::sys::mem::{page_round, SharedMem};
use crate::sys::process::PeerProcess;

/// Registrations one connection side can hold at once.
pub(crate) const SLOTS: usize = 1 << SLOT_BITS;
const SLOT_BITS: u32 = 14;
const GEN_MASK: u64 = (1 << (32 - SLOT_BITS)) - 1;
const MAGIC: u64 = u64::from_be_bytes(*b"NBSRKEY1");
const HEADER: usize = 64;
const OFF_POSTED: usize = 8;
const OFF_CLOSED: usize = 16;
const OFF_SLOTS: usize = 24;
/// A random word unique to the table: the peer's connect-time probe reads it from our memory.
pub(crate) const OFF_NONCE: usize = 32;
/// Bytes this side moved by its own RDMA Reads and Writes: the peer reads them to learn what was done
/// to its memory (rdma::QueuePair::peer_one_sided), with the number of its RDMA Reads.
const OFF_READ_BYTES: usize = 40;
const OFF_WRITTEN_BYTES: usize = 48;
const OFF_READS: usize = 56;
const SLOT_SIZE: usize = 32;

/// Bytes of the table memfd.
pub(crate) fn table_len() -> usize {
    page_round(HEADER + SLOTS * SLOT_SIZE)
}

/// Bytes of the guard memfd.
pub(crate) fn guard_len() -> usize {
    page_round(SLOTS * 4)
}

fn slot_offset(slot: usize) -> usize {
    HEADER + slot * SLOT_SIZE
}

fn split(handle: u32) -> (usize, u64) {
    ((handle as usize) & (SLOTS - 1), u64::from(handle >> SLOT_BITS))
}

/// This side's registrations, which the peer reads.
#[derive(Debug)]
pub(crate) struct LocalTable {
    table: SharedMem,
    guard: SharedMem,
    free: Mutex<VecDeque<u16>>,
    peer: OnceLock<PeerProcess>,
}

impl LocalTable {
    pub(crate) fn new() -> io::Result<Arc<LocalTable>> {
        let table = SharedMem::create(c"nfsbench-rdma-soft-keys", table_len(), true)?;
        let guard = SharedMem::create(c"nfsbench-rdma-soft-guard", guard_len(), false)?;
        table.u64_at(OFF_SLOTS).store(SLOTS as u64, Ordering::Relaxed);
        let nonce = std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), table.addr());
        table.u64_at(OFF_NONCE).store(nonce, Ordering::Relaxed);
        table.u64_at(0).store(MAGIC, Ordering::Release);
        // FIFO reuse: a slot comes back only after every other one, so generations wrap slowly.
        let free = (0..SLOTS as u16).collect();
        Ok(Arc::new(LocalTable { table, guard, free: Mutex::new(free), peer: OnceLock::new() }))
    }

    pub(crate) fn table(&self) -> &SharedMem {
        &self.table
    }

    pub(crate) fn guard(&self) -> &SharedMem {
        &self.guard
    }

    /// Records the peer once the connection is up (deregistration watches its life).
    pub(crate) fn set_peer(&self, peer: PeerProcess) {
        let _ = self.peer.set(peer);
    }

    /// Publishes the total of receives ever posted on this side.
    pub(crate) fn publish_posted(&self, total: u64) {
        self.table.u64_at(OFF_POSTED).store(total, Ordering::Release);
    }

    /// Counts `bytes` moved by one of this side's RDMA Reads (`read`) or Writes. Called before the
    /// operation completes, so before any Send the caller posts after it: the ring's release store of
    /// that Send publishes the count with it.
    pub(crate) fn count_one_sided(&self, read: bool, bytes: u64) {
        let offset = if read { OFF_READ_BYTES } else { OFF_WRITTEN_BYTES };
        if read && bytes > 0 {
            self.table.u64_at(OFF_READS).fetch_add(1, Ordering::Release);
        }
        self.table.u64_at(offset).fetch_add(bytes, Ordering::Release);
    }

    /// Ends every remote access to this side (the connection is down).
    pub(crate) fn close(&self) {
        self.table.u64_at(OFF_CLOSED).store(1, Ordering::SeqCst);
    }

    /// Puts `[start, start+len)` with `access` into a free slot; returns its handle.
    pub(crate) fn register(&self, start: usize, len: usize, access: Access) -> Result<u32, RdmaError> {
        let slot = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop_front().ok_or_else(|| {
            RdmaError::Invalid(format!("too many registrations on this connection (at most {SLOTS})"))
        })?;
        let base = slot_offset(slot as usize);
        let seq = self.table.u64_at(base).load(Ordering::Relaxed);
        self.table.u64_at(base + 8).store(start as u64, Ordering::Relaxed);
        self.table.u64_at(base + 16).store(len as u64, Ordering::Relaxed);
        self.table.u64_at(base + 24).store(u64::from(access.bits()), Ordering::Relaxed);
        // Odd: valid. The release store publishes the fields above with it.
        let valid = seq + 1;
        self.table.u64_at(base).store(valid, Ordering::Release);
        Ok((((valid & GEN_MASK) as u32) << SLOT_BITS) | u32::from(slot))
    }

    /// Ends access through `handle`, waits for copies in flight through it, frees the slot.
    pub(crate) fn deregister(&self, handle: u32) {
        let (slot, gen) = split(handle);
        let seq_word = self.table.u64_at(slot_offset(slot));
        let seq = seq_word.load(Ordering::Relaxed);
        if seq & GEN_MASK != gen || seq & 1 == 0 {
            return;
        }
        seq_word.store(seq + 1, Ordering::SeqCst);
        self.wait_idle(slot);
        self.free.lock().unwrap_or_else(|e| e.into_inner()).push_back(slot as u16);
    }

    /// Waits until no peer copy holds `slot` (or the peer process is gone).
    fn wait_idle(&self, slot: usize) {
        let busy = self.guard.u32_at(slot * 4);
        let started = Instant::now();
        let mut warned = false;
        for round in 0u32.. {
            if busy.load(Ordering::SeqCst) == 0 {
                return;
            }
            if round < 64 {
                std::hint::spin_loop();
                continue;
            }
            if self.peer.get().is_some_and(PeerProcess::exited) {
                return;
            }
            if !warned && started.elapsed() > Duration::from_secs(1) {
                warned = true;
                tracing::warn!(slot, "deregistration waits for a peer copy that does not finish");
            }
            std::thread::sleep(Duration::from_micros(20));
        }
    }

    /// True when `handle` is a live registration of this table starting at `start`.
    pub(crate) fn is_live(&self, handle: u32, start: usize) -> bool {
        let (slot, gen) = split(handle);
        let base = slot_offset(slot);
        let seq = self.table.load_u64(base, Ordering::Acquire);
        seq & 1 == 1 && seq & GEN_MASK == gen && self.table.load_u64(base + 8, Ordering::Relaxed) == start as u64
    }
}

/// Why a remote access was refused.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The peer closed its side: the connection is going down.
    Closed,
    /// Bad handle, range or right (RemoteAccess).
    Access(String),
}

/// The peer's key table, mapped read-only, and its guard, mapped read-write.
#[derive(Debug)]
pub(crate) struct RemoteTable {
    table: SharedMem,
    guard: SharedMem,
}

impl RemoteTable {
    /// Wraps the peer's mappings after checking the header.
    pub(crate) fn new(table: SharedMem, guard: SharedMem) -> Result<RemoteTable, String> {
        if table.load_u64(0, Ordering::Acquire) != MAGIC || table.load_u64(OFF_SLOTS, Ordering::Relaxed) != SLOTS as u64
        {
            return Err("the peer's key table has an unknown layout".into());
        }
        Ok(RemoteTable { table, guard })
    }

    /// True when `nonce` (read from the peer's memory at its table's [`OFF_NONCE`]) is this table's.
    pub(crate) fn is_same_table(&self, nonce: u64) -> bool {
        nonce == self.table.load_u64(OFF_NONCE, Ordering::Acquire)
    }

    /// What the peer did to our memory so far (read from the peer's table, which it counts in).
    pub(crate) fn one_sided(&self) -> rdma::PeerOneSided {
        rdma::PeerOneSided {
            read_bytes: self.table.load_u64(OFF_READ_BYTES, Ordering::Acquire),
            written_bytes: self.table.load_u64(OFF_WRITTEN_BYTES, Ordering::Acquire),
            reads: self.table.load_u64(OFF_READS, Ordering::Acquire),
        }
    }

    /// Receives the peer has posted in total.
    pub(crate) fn posted(&self) -> u64 {
        self.table.load_u64(OFF_POSTED, Ordering::Acquire)
    }

    /// Takes `seg` for an access needing `need`: validates handle, bounds and right, and holds the
    /// slot busy until the returned lease is finished or dropped.
    pub(crate) fn lease(&self, seg: RemoteSegment, need: Access) -> Result<Lease<'_>, Refusal> {
        let (slot, gen) = split(seg.handle);
        let busy = self.guard.u32_at(slot * 4);
        busy.fetch_add(1, Ordering::SeqCst);
        // From here on, dropping the lease lowers the busy counter again.
        let mut lease = Lease { table: self, slot, seq: 0, addr: 0 };
        let base = slot_offset(slot);
        let seq = self.table.load_u64(base, Ordering::SeqCst);
        if self.table.load_u64(OFF_CLOSED, Ordering::SeqCst) != 0 {
            return Err(Refusal::Closed);
        }
        let start = self.table.load_u64(base + 8, Ordering::Relaxed);
        let len = self.table.load_u64(base + 16, Ordering::Relaxed);
        let bits = self.table.load_u64(base + 24, Ordering::Relaxed);
        fence(Ordering::Acquire);
        let stable = self.table.load_u64(base, Ordering::Relaxed) == seq;
        let handle = seg.handle;
        if seq & 1 == 0 || seq & GEN_MASK != gen || !stable {
            return Err(Refusal::Access(format!("handle {handle:#x} is unknown or invalidated")));
        }
        if bits & u64::from(need.bits()) != u64::from(need.bits()) {
            let right = if need == Access::REMOTE_WRITE { "remote write" } else { "remote read" };
            return Err(Refusal::Access(format!("handle {handle:#x} does not allow {right}")));
        }
        // RFC 8166 §3.4.3: the segment's offset and length must lie inside the handle's region.
        let inside = seg.offset.checked_sub(start).and_then(|skip| skip.checked_add(u64::from(seg.length)));
        if inside.is_none_or(|end| end > len) {
            let (offset, length) = (seg.offset, seg.length);
            return Err(Refusal::Access(format!(
                "{length} bytes at {offset:#x} leave the region of handle {handle:#x} ({len} bytes at {start:#x})"
            )));
        }
        lease.addr = usize::try_from(seg.offset).map_err(|_| Refusal::Access("address out of range".into()))?;
        lease.seq = seq;
        Ok(lease)
    }
}

/// A validated remote range, kept busy (not deregistrable) while alive.
#[derive(Debug)]
pub(crate) struct Lease<'a> {
    table: &'a RemoteTable,
    slot: usize,
    seq: u64,
    /// The first byte's address in the peer process.
    pub(crate) addr: usize,
}

impl Lease<'_> {
    /// Ends the access; an invalidation that happened during it makes it fail.
    pub(crate) fn finish(self) -> Result<(), Refusal> {
        if self.table.table.load_u64(slot_offset(self.slot), Ordering::SeqCst) == self.seq {
            Ok(())
        } else {
            Err(Refusal::Access("the region was invalidated during the access".into()))
        }
    }
}

impl Drop for Lease<'_> {
    fn drop(&mut self) {
        self.table.guard.u32_at(self.slot * 4).fetch_sub(1, Ordering::SeqCst);
    }
}

/// The provider side of a [`rdma::MemoryRegion`]: its slot in a key table.
#[derive(Debug)]
pub(crate) struct SlotRegistration {
    pub(crate) table: Arc<LocalTable>,
    pub(crate) handle: u32,
}

impl rdma::Registration for SlotRegistration {
    fn deregister(&self) {
        self.table.deregister(self.handle);
    }
}

#[cfg(test)]
#[path = "keytable_tests.rs"]
mod tests;
