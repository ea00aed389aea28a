//! The duplicate request cache: a retransmitted non-idempotent call (CREATE, REMOVE, RENAME, WRITE, ...)
//! gets the reply its original got instead of being executed twice (a second REMOVE would answer NOENT
//! for a file the first one removed). RFC 5531 leaves retransmission semantics to the server; this follows
//! knfsd's cache.
//!
//! - Key: client IP address (not the port: a client that reconnects from a new port still hits), xid,
//!   program, version, procedure, argument length and a checksum of the first [`SUM_BYTES`] argument bytes
//!   (so a reused xid with other arguments misses).
//! - A retransmission whose original is still executing is dropped (the original's reply will answer it);
//!   a completed one gets the cached reply bytes.
//! - Bounded: `capacity` entries over [`SHARDS`] independently locked shards, oldest evicted first. Only
//!   non-idempotent calls come here, so READ / GETATTR never touch a lock of it.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard};

/// Shards, each behind its own lock.
const SHARDS: usize = 16;
/// Argument bytes covered by the checksum.
pub(crate) const SUM_BYTES: usize = 256;

/// What identifies a call for the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DrcKey {
    ip: IpAddr,
    xid: u32,
    prog: u32,
    vers: u32,
    proc: u32,
    len: usize,
    sum: u64,
}

impl DrcKey {
    pub(crate) fn new(ip: IpAddr, xid: u32, prog: u32, vers: u32, proc: u32, args: &[u8]) -> Self {
        let covered = args.get(..SUM_BYTES).unwrap_or(args);
        DrcKey { ip, xid, prog, vers, proc, len: args.len(), sum: checksum(covered) }
    }

    fn shard(&self) -> usize {
        let ip_bits = match self.ip {
            IpAddr::V4(v4) => u64::from(u32::from(v4)),
            IpAddr::V6(v6) => {
                let n = u128::from(v6);
                (n as u64) ^ ((n >> 64) as u64)
            }
        };
        let mixed = (u64::from(self.xid) ^ ip_bits ^ self.sum).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mixed >> 32) as usize % SHARDS
    }
}

/// A checksum eight bytes a step (a multiply and a rotate each, with the tail zero-padded): fast, and
/// only has to tell retransmissions from other calls with the same xid and length. A byte-wise hash of
/// the 256 bytes a 4 KiB WRITE brings over TCP was a tenth of the server's time per WRITE.
fn checksum(bytes: &[u8]) -> u64 {
    let mix = |h: u64, word: u64| (h ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(31);
    let mut words = bytes.chunks_exact(8);
    let mut h =
        words.by_ref().fold(0xcbf2_9ce4_8422_2325, |h, w| mix(h, u64::from_le_bytes(w.try_into().unwrap_or_default())));
    let tail = words.remainder();
    if !tail.is_empty() {
        let mut last = [0u8; 8];
        last[..tail.len()].copy_from_slice(tail);
        h = mix(h, u64::from_le_bytes(last));
    }
    h
}

#[derive(Debug)]
enum Entry {
    InProgress { seq: u64 },
    Done { seq: u64, reply: Vec<u8> },
}

impl Entry {
    fn seq(&self) -> u64 {
        match self {
            Entry::InProgress { seq } | Entry::Done { seq, .. } => *seq,
        }
    }
}

#[derive(Debug, Default)]
struct Shard {
    /// foldhash, seeded at random per map: a shard holds a few hundred entries at most, so even keys a
    /// client chose to collide cost a bounded walk.
    entries: HashMap<DrcKey, Entry, foldhash::fast::RandomState>,
    /// Insertion order for eviction; stale pairs (key re-inserted or removed) are skipped.
    order: VecDeque<(DrcKey, u64)>,
    next_seq: u64,
}

impl Shard {
    fn evict_to(&mut self, capacity: usize) {
        while self.entries.len() >= capacity || self.order.len() > 2 * capacity {
            let Some((key, seq)) = self.order.pop_front() else { break };
            if self.entries.get(&key).is_some_and(|e| e.seq() == seq) {
                self.entries.remove(&key);
            }
        }
    }
}

/// The outcome of looking a call up.
#[derive(Debug)]
pub(crate) enum Lookup<'a> {
    /// First sight: execute the call, then [`Slot::finish`] with its reply.
    New(Slot<'a>),
    /// The original is still executing: send nothing.
    InProgress,
    /// Already answered: send these bytes again.
    Replay(Vec<u8>),
}

/// The cache.
#[derive(Debug)]
pub(crate) struct Drc {
    shards: Box<[Mutex<Shard>]>,
    per_shard: usize,
}

impl Drc {
    /// A cache of about `capacity` entries; 0 disables it.
    pub(crate) fn new(capacity: usize) -> Self {
        let per_shard = capacity.div_ceil(SHARDS);
        let shards = (0..if capacity == 0 { 0 } else { SHARDS }).map(|_| Mutex::default()).collect();
        Drc { shards, per_shard }
    }

    pub(crate) fn is_enabled(&self) -> bool {
        !self.shards.is_empty()
    }

    fn shard(&self, key: &DrcKey) -> Option<MutexGuard<'_, Shard>> {
        let shard = self.shards.get(key.shard())?;
        // A panic while holding the lock leaves consistent data (every update is a single map operation).
        Some(shard.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }

    pub(crate) fn lookup(&self, key: DrcKey) -> Lookup<'_> {
        let Some(mut shard) = self.shard(&key) else { return Lookup::New(Slot { drc: self, key, finished: true }) };
        match shard.entries.get(&key) {
            Some(Entry::InProgress { .. }) => return Lookup::InProgress,
            Some(Entry::Done { reply, .. }) => return Lookup::Replay(reply.clone()),
            None => {}
        }
        shard.evict_to(self.per_shard);
        let seq = shard.next_seq;
        shard.next_seq += 1;
        shard.entries.insert(key, Entry::InProgress { seq });
        shard.order.push_back((key, seq));
        Lookup::New(Slot { drc: self, key, finished: false })
    }

    fn complete(&self, key: &DrcKey, reply: Option<&[u8]>) {
        let Some(mut shard) = self.shard(key) else { return };
        match (shard.entries.get_mut(key), reply) {
            (Some(entry @ Entry::InProgress { .. }), Some(bytes)) => {
                *entry = Entry::Done { seq: entry.seq(), reply: bytes.to_vec() };
            }
            (Some(Entry::InProgress { .. }), None) => {
                shard.entries.remove(key);
            }
            _ => {}
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().map(|s| s.entries.len()).unwrap_or(0)).sum()
    }
}

/// A call being executed under the cache's watch. Dropping it without [`finish`](Slot::finish) forgets
/// the call, so that a retransmission executes it again.
#[derive(Debug)]
pub(crate) struct Slot<'a> {
    drc: &'a Drc,
    key: DrcKey,
    finished: bool,
}

impl Slot<'_> {
    /// Stores the reply for retransmissions.
    pub(crate) fn finish(mut self, reply: &[u8]) {
        if !self.finished {
            self.drc.complete(&self.key, Some(reply));
            self.finished = true;
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if !self.finished {
            self.drc.complete(&self.key, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn key(xid: u32, args: &[u8]) -> DrcKey {
        DrcKey::new(IpAddr::V4(Ipv4Addr::LOCALHOST), xid, 100003, 3, 12, args)
    }

    #[test]
    fn a_completed_call_is_replayed() {
        let drc = Drc::new(64);
        let Lookup::New(slot) = drc.lookup(key(1, b"args")) else { panic!("first sight must be new") };
        slot.finish(b"reply");
        assert!(matches!(drc.lookup(key(1, b"args")), Lookup::Replay(r) if r == b"reply"));
    }

    #[test]
    fn a_retransmission_during_execution_is_dropped() {
        let drc = Drc::new(64);
        let first = drc.lookup(key(1, b"args"));
        assert!(matches!(first, Lookup::New(_)));
        assert!(matches!(drc.lookup(key(1, b"args")), Lookup::InProgress));
        drop(first);
        assert!(matches!(drc.lookup(key(1, b"args")), Lookup::New(_)), "an abandoned call is forgotten");
    }

    #[test]
    fn same_xid_with_other_arguments_or_from_another_host_misses() {
        let drc = Drc::new(64);
        if let Lookup::New(slot) = drc.lookup(key(1, b"args")) {
            slot.finish(b"reply");
        }
        assert!(matches!(drc.lookup(key(1, b"other")), Lookup::New(_)));
        let elsewhere = DrcKey::new(IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)), 1, 100003, 3, 12, b"args");
        assert!(matches!(drc.lookup(elsewhere), Lookup::New(_)));
    }

    #[test]
    fn arguments_of_the_same_length_differing_in_any_covered_byte_miss() {
        let drc = Drc::new(64);
        let args: Vec<u8> = (0..300u32).map(|i| i as u8).collect();
        if let Lookup::New(slot) = drc.lookup(key(1, &args)) {
            slot.finish(b"reply");
        }
        for at in [0, 7, 8, 100, SUM_BYTES - 1] {
            let mut other = args.clone();
            other[at] ^= 1;
            assert!(matches!(drc.lookup(key(1, &other)), Lookup::New(_)), "byte {at}");
        }
        let mut short = args[..13].to_vec();
        if let Lookup::New(slot) = drc.lookup(key(2, &short)) {
            slot.finish(b"reply");
        }
        short[12] ^= 1;
        assert!(matches!(drc.lookup(key(2, &short)), Lookup::New(_)), "a byte of the tail");
        assert!(matches!(drc.lookup(key(1, &args)), Lookup::Replay(_)));
    }

    #[test]
    fn the_cache_stays_bounded_and_evicts_the_oldest() {
        let drc = Drc::new(32);
        for xid in 0..10_000 {
            if let Lookup::New(slot) = drc.lookup(key(xid, b"args")) {
                slot.finish(b"r");
            }
        }
        assert!(drc.len() <= 32 + SHARDS, "{} entries", drc.len());
        assert!(matches!(drc.lookup(key(9_999, b"args")), Lookup::Replay(_)));
        assert!(matches!(drc.lookup(key(0, b"args")), Lookup::New(_)));
    }

    #[test]
    fn a_disabled_cache_executes_everything() {
        let drc = Drc::new(0);
        assert!(!drc.is_enabled());
        if let Lookup::New(slot) = drc.lookup(key(1, b"args")) {
            slot.finish(b"reply");
        }
        assert!(matches!(drc.lookup(key(1, b"args")), Lookup::New(_)));
    }
}
