//! The key table: one side's registrations, in shared memory its peer maps read-only.
//!
//! Layout of the table memfd: a 64-byte header (magic, receives posted, closed flag, slot count,
//! nonce, bytes this side has RDMA-Read from and RDMA-Written to its peer), then [`SLOTS`] slots of four words: a sequence word, start address, length, access bits. A
//! slot is valid while its sequence word is odd; registering makes it odd, deregistering makes it even
//! again, so a handle (R_key = sequence low bits << 14 | slot) names one registration and never a
//! later reuse of its slot.
//!
//! A second memfd, the guard, holds this side's busy counters on the *peer's* slots (one per slot): an
//! accessor raises its counter before validating a handle and lowers it after its copy. Each side
//! creates its own guard sealed read-only for the peer, which maps it to see which of its slots a copy
//! may still be using (store-then-load on both sides, sequentially consistent). A peer writes only
//! what it owns, and what it owns never holds us up:
//!
//! - Deregistration invalidates the slot at once and looks at the peer's counter for a few
//!   microseconds ([`SPIN`]; honest copies are that short). If it is still up, the slot is
//!   quarantined instead of waited for: never reused while the counter is up (so no stale lease can
//!   validate against a later registration), and a registration the peer could access keeps its
//!   memory alive ([`rdma::Registration::is_idle`], [`rdma::Registration::retire`]) until the counter
//!   falls, the peer process exits, or the connection is gone.
//! - A counter held past [`HOLD_LIMIT`] marks a peer that does not play by the rules: the queue pair
//!   breaks the connection on its next poll ([`LocalTable::sweep`], armed with a timer), so an
//!   attack costs the server microseconds per deregistration and one connection, never a wait.
//! - Memory still quarantined when the connection's table goes away is handed to a reaper thread
//!   that frees it once the counter falls, the peer exits, or [`REAP_LIMIT`] has passed.

use std::collections::VecDeque;
use std::io;
use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex, MutexGuard, OnceLock};
use std::task::Waker;
use std::time::{Duration, Instant};

use rdma::{Access, RdmaError, RegBuf, RemoteSegment};

use crate::sys::mem::{page_round, SharedMem};
use crate::sys::process::PeerProcess;

/// Registrations one connection side can hold at once.
pub(crate) const SLOTS: usize = 1 << SLOT_BITS;
const SLOT_BITS: u32 = 14;
const GEN_MASK: u64 = (1 << (32 - SLOT_BITS)) - 1;
const MAGIC: u64 = u64::from_be_bytes(*b"NBSRKEY2");
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

/// How long deregistration watches a raised busy counter before it quarantines the slot: an honest
/// copy is that short, and the caller's thread (a server's network thread) must not wait longer.
pub(crate) const SPIN: Duration = Duration::from_micros(5);
/// How long the peer may keep a busy counter up on a deregistered slot before its connection breaks:
/// far beyond any honest copy (megabytes take well under a millisecond), with room for a peer thread
/// descheduled in the middle of one on a loaded machine.
pub(crate) const HOLD_LIMIT: Duration = Duration::from_millis(100);
/// How long memory still quarantined when its connection is gone is kept for the peer's copy.
pub(crate) const REAP_LIMIT: Duration = Duration::from_secs(10);

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

/// A deregistered slot the peer's busy counter still held when we looked.
#[derive(Debug)]
struct Quarantined {
    handle: u32,
    since: Instant,
    /// The region's memory, when the peer could access it and it was dropped meanwhile.
    buf: Option<RegBuf>,
}

struct Slots {
    /// Slots never used yet: `fresh..SLOTS` (handed out before any freed one, so that a freed slot
    /// comes back only after every other one and generations wrap slowly).
    fresh: usize,
    /// Freed slots, reused first in, first out.
    free: VecDeque<u16>,
    quarantine: Vec<Quarantined>,
}

impl Slots {
    fn take(&mut self) -> Option<u16> {
        if self.fresh < SLOTS {
            self.fresh += 1;
            return u16::try_from(self.fresh - 1).ok();
        }
        self.free.pop_front()
    }
}

impl std::fmt::Debug for Slots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let free = SLOTS - self.fresh + self.free.len();
        f.debug_struct("Slots").field("free", &free).field("quarantine", &self.quarantine).finish()
    }
}

/// The peer's side of the busy protocol, known once the connection is up.
#[derive(Debug)]
struct Peer {
    /// The peer's busy counters on our slots (its guard, mapped read-only).
    guard: SharedMem,
    process: PeerProcess,
}

impl Peer {
    fn busy(&self, slot: usize) -> bool {
        self.guard.load_u32(slot * 4, Ordering::SeqCst) != 0
    }
}

/// What [`LocalTable::sweep`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sweep {
    /// Nothing quarantined.
    Clear,
    /// Slots still quarantined; look again at this time.
    Until(Instant),
    /// The peer has held a counter on a deregistered slot past [`HOLD_LIMIT`].
    Overdue { slot: usize, held: Duration },
}

/// This side's registrations, which the peer reads.
#[derive(Debug)]
pub(crate) struct LocalTable {
    table: SharedMem,
    /// Our busy counters on the peer's slots (written by our leases; the peer maps it read-only).
    guard: Arc<SharedMem>,
    slots: Mutex<Slots>,
    /// Entries in the quarantine (read without the lock on every poll).
    quarantined: AtomicUsize,
    peer: OnceLock<Peer>,
    /// The queue pair's poller, woken when a slot is quarantined (it arms the timer).
    poller: Mutex<Option<Waker>>,
    registrations: AtomicU64,
}

impl LocalTable {
    pub(crate) fn new() -> io::Result<Arc<LocalTable>> {
        let table = SharedMem::create(c"nfsbench-rdma-soft-keys", table_len(), true)?;
        // Sealed read-only for the peer: it sees our counters and cannot write them.
        let guard = Arc::new(SharedMem::create(c"nfsbench-rdma-soft-guard", guard_len(), true)?);
        table.u64_at(OFF_SLOTS).store(SLOTS as u64, Ordering::Relaxed);
        let nonce = std::hash::BuildHasher::hash_one(&std::collections::hash_map::RandomState::new(), table.addr());
        table.u64_at(OFF_NONCE).store(nonce, Ordering::Relaxed);
        table.u64_at(0).store(MAGIC, Ordering::Release);
        let slots = Slots { fresh: 0, free: VecDeque::new(), quarantine: Vec::new() };
        Ok(Arc::new(LocalTable {
            table,
            guard,
            slots: Mutex::new(slots),
            quarantined: AtomicUsize::new(0),
            peer: OnceLock::new(),
            poller: Mutex::new(None),
            registrations: AtomicU64::new(0),
        }))
    }

    pub(crate) fn table(&self) -> &SharedMem {
        &self.table
    }

    /// Our busy counters on the peer's slots.
    pub(crate) fn guard(&self) -> &Arc<SharedMem> {
        &self.guard
    }

    fn slots(&self) -> MutexGuard<'_, Slots> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records the peer once the connection is up: its process and its busy counters on our slots
    /// (its guard, mapped read-only).
    pub(crate) fn set_peer(&self, process: PeerProcess, guard: SharedMem) {
        let _ = self.peer.set(Peer { guard, process });
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

    /// Puts `[start, start+len)` with `access` into a free slot; returns its handle. A memory
    /// registration: counted in [`registrations`](Self::registrations).
    pub(crate) fn register(&self, start: usize, len: usize, access: Access) -> Result<u32, RdmaError> {
        let handle = self.take_slot(start, len, access)?;
        self.registrations.fetch_add(1, Ordering::Relaxed);
        Ok(handle)
    }

    /// Opens a window: a slot of its own over `[start, start+len)` of memory already registered
    /// here, with `access`. Not a registration (nothing is counted); closed with
    /// [`deregister`](Self::deregister), under the same quarantine rules.
    pub(crate) fn window(&self, start: usize, len: usize, access: Access) -> Result<u32, RdmaError> {
        self.take_slot(start, len, access)
    }

    /// Memory registrations made on this table so far (windows excluded).
    pub(crate) fn registrations(&self) -> u64 {
        self.registrations.load(Ordering::Relaxed)
    }

    fn take_slot(&self, start: usize, len: usize, access: Access) -> Result<u32, RdmaError> {
        let slot = self.slots().take().ok_or_else(|| {
            RdmaError::Invalid(format!(
                "too many registrations on this connection (at most {SLOTS}, {} held by the peer)",
                self.quarantined.load(Ordering::Relaxed)
            ))
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

    /// Ends access through `handle` at once. Returns true when the slot is free again (no copy by the
    /// peer can be using it); false when the peer's busy counter stayed up for [`SPIN`] and the slot
    /// is quarantined (see the module's rules). Never waits longer than [`SPIN`].
    pub(crate) fn deregister(&self, handle: u32) -> bool {
        let (slot, gen) = split(handle);
        let seq_word = self.table.u64_at(slot_offset(slot));
        let seq = seq_word.load(Ordering::Relaxed);
        if seq & GEN_MASK != gen || seq & 1 == 0 {
            return true;
        }
        // Invalid from here on: a lease raised after this store sees it (SeqCst on both sides).
        seq_word.store(seq + 1, Ordering::SeqCst);
        if self.settles(slot) {
            self.slots().free.push_back(slot as u16);
            return true;
        }
        let since = Instant::now();
        self.slots().quarantine.push(Quarantined { handle, since, buf: None });
        self.quarantined.fetch_add(1, Ordering::SeqCst);
        tracing::debug!(slot, "deregistered slot quarantined: the peer's busy counter is up");
        if let Some(waker) = self.poller.lock().unwrap_or_else(|e| e.into_inner()).take() {
            waker.wake();
        }
        false
    }

    /// True when no copy by the peer holds `slot` within [`SPIN`] (or there is no peer yet).
    fn settles(&self, slot: usize) -> bool {
        let Some(peer) = self.peer.get() else { return true };
        // The clock is read only once the counter is seen up (the usual case reads none).
        let mut started = None;
        loop {
            if !peer.busy(slot) {
                return true;
            }
            if started.get_or_insert_with(Instant::now).elapsed() >= SPIN {
                return false;
            }
            std::hint::spin_loop();
        }
    }

    /// True while `handle`'s deregistered slot is quarantined.
    pub(crate) fn is_quarantined(&self, handle: u32) -> bool {
        self.quarantined.load(Ordering::SeqCst) != 0 && self.slots().quarantine.iter().any(|q| q.handle == handle)
    }

    /// Keeps `buf` (the memory of `handle`'s dropped region) until its quarantine ends; frees it now
    /// when the quarantine already ended.
    pub(crate) fn retire(&self, handle: u32, buf: RegBuf) {
        let mut slots = self.slots();
        match slots.quarantine.iter_mut().find(|q| q.handle == handle) {
            Some(entry) => entry.buf = Some(buf),
            None => {
                drop(slots);
                drop(buf);
            }
        }
    }

    /// Remembers the waker of the queue pair's poller (woken when a slot is quarantined).
    pub(crate) fn set_poller(&self, waker: &Waker) {
        let mut poller = self.poller.lock().unwrap_or_else(|e| e.into_inner());
        if !poller.as_ref().is_some_and(|w| w.will_wake(waker)) {
            *poller = Some(waker.clone());
        }
    }

    /// Ends the quarantine of every slot whose busy counter fell (or whose peer exited), freeing its
    /// memory; reports a counter held past [`HOLD_LIMIT`]. Never blocks; reads the clock (`now`) only
    /// when a slot is quarantined.
    pub(crate) fn sweep(&self, now: impl FnOnce() -> Instant) -> Sweep {
        if self.quarantined.load(Ordering::SeqCst) == 0 {
            return Sweep::Clear;
        }
        let now = now();
        let Some(peer) = self.peer.get() else { return Sweep::Clear };
        let mut released = Vec::new();
        let mut slots = self.slots();
        let exited = peer.process.exited();
        let mut result = Sweep::Clear;
        let mut i = 0;
        while i < slots.quarantine.len() {
            let (slot, _) = split(slots.quarantine[i].handle);
            if exited || !peer.busy(slot) {
                let entry = slots.quarantine.swap_remove(i);
                slots.free.push_back(slot as u16);
                self.quarantined.fetch_sub(1, Ordering::SeqCst);
                released.push(entry.buf);
                continue;
            }
            let held = now.saturating_duration_since(slots.quarantine[i].since);
            if held > HOLD_LIMIT {
                result = Sweep::Overdue { slot, held };
            } else if !matches!(result, Sweep::Overdue { .. }) {
                let due = slots.quarantine[i].since + HOLD_LIMIT + Duration::from_millis(1);
                result = match result {
                    Sweep::Until(at) if at <= due => Sweep::Until(at),
                    _ => Sweep::Until(due),
                };
            }
            i += 1;
        }
        drop(slots);
        // Freed outside the lock.
        drop(released);
        result
    }

    /// True when `handle` is a live registration of this table starting at `start`.
    pub(crate) fn is_live(&self, handle: u32, start: usize) -> bool {
        let (slot, gen) = split(handle);
        let base = slot_offset(slot);
        let seq = self.table.load_u64(base, Ordering::Acquire);
        seq & 1 == 1 && seq & GEN_MASK == gen && self.table.load_u64(base + 8, Ordering::Relaxed) == start as u64
    }
}

impl Drop for LocalTable {
    fn drop(&mut self) {
        let slots = self.slots.get_mut().unwrap_or_else(|e| e.into_inner());
        let kept: Vec<(usize, RegBuf)> =
            slots.quarantine.drain(..).filter_map(|q| q.buf.map(|buf| (split(q.handle).0, buf))).collect();
        if let (false, Some(peer)) = (kept.is_empty(), self.peer.take()) {
            reaper().send(Reaped { peer, kept, until: Instant::now() + REAP_LIMIT });
        }
    }
}

/// Memory of a connection that is gone, kept while the peer may still be copying.
#[derive(Debug)]
struct Reaped {
    peer: Peer,
    kept: Vec<(usize, RegBuf)>,
    until: Instant,
}

/// The reaper thread's mailbox (the thread starts with the first memory handed to it).
#[derive(Debug)]
struct Reaper(Mutex<mpsc::Sender<Reaped>>);

impl Reaper {
    fn send(&self, job: Reaped) {
        // If the thread could not start, the memory is freed here: nothing else can be done.
        let _ = self.0.lock().unwrap_or_else(|e| e.into_inner()).send(job);
    }
}

fn reaper() -> &'static Reaper {
    static REAPER: OnceLock<Reaper> = OnceLock::new();
    REAPER.get_or_init(|| {
        let (send, receive) = mpsc::channel::<Reaped>();
        let started = std::thread::Builder::new().name("rdma-soft-reaper".into()).spawn(move || {
            let mut jobs: Vec<Reaped> = Vec::new();
            loop {
                let next = if jobs.is_empty() {
                    receive.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                } else {
                    receive.recv_timeout(Duration::from_millis(1))
                };
                match next {
                    Ok(job) => jobs.push(job),
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
                let now = Instant::now();
                jobs.retain_mut(|job| {
                    let gone = now >= job.until || job.peer.process.exited();
                    job.kept.retain(|(slot, _)| !gone && job.peer.busy(*slot));
                    !job.kept.is_empty()
                });
            }
        });
        if let Err(e) = started {
            tracing::warn!("rdma-soft: no reaper thread ({e}); quarantined memory is freed when its connection ends");
        }
        Reaper(Mutex::new(send))
    })
}

/// Why a remote access was refused.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The peer closed its side: the connection is going down.
    Closed,
    /// Bad handle, range or right (RemoteAccess).
    Access(String),
}

/// The peer's key table is not one this build lays out (magic or slot count differ).
#[derive(Debug, thiserror::Error)]
#[error("the peer's key table has an unknown layout")]
pub(crate) struct UnknownTableLayout;

/// The peer's key table, mapped read-only, and our busy counters on its slots.
#[derive(Debug)]
pub(crate) struct RemoteTable {
    table: SharedMem,
    guard: Arc<SharedMem>,
}

impl RemoteTable {
    /// Wraps the peer's table after checking the header; `guard` is ours ([`LocalTable::guard`]).
    pub(crate) fn new(table: SharedMem, guard: Arc<SharedMem>) -> Result<RemoteTable, UnknownTableLayout> {
        if table.load_u64(0, Ordering::Acquire) != MAGIC || table.load_u64(OFF_SLOTS, Ordering::Relaxed) != SLOTS as u64
        {
            return Err(UnknownTableLayout);
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
    /// The peer may RDMA-Read or -Write it: only then can a copy of the peer use its memory.
    pub(crate) remote: bool,
}

impl rdma::Registration for SlotRegistration {
    fn deregister(&self) {
        self.table.deregister(self.handle);
    }

    /// A lease validates only a registration with the right it needs, so a region without remote
    /// rights is never under a copy, quarantined or not.
    fn is_idle(&self) -> bool {
        !self.remote || !self.table.is_quarantined(self.handle)
    }

    fn retire(&self, buf: RegBuf) {
        self.table.retire(self.handle, buf);
    }
}

#[cfg(test)]
mod tests;
