//! The targets of a connection's RDMA Reads (WRITE data, long calls): buffers registered for this side
//! only — no remote access, so the peer never reaches them — kept across calls and used in place
//! ([`MemoryRegion::local_bytes_mut`]): a call is laid out, pulled and handed to the handler where it
//! lies, with no copy and, once the connection has the targets its concurrency needs, no registration.
//! A call no free target fits gets a new one (a registration, counted as a pool miss).
//!
//! Bounds: a connection keeps free targets up to its own limit ([`RdmaServerConfig::read_target_bytes`]:
//! one largest call per credit, at most `max_read_target_bytes`), and all connections together keep at most
//! [`KeptBudget`]'s bytes; a target given back past either is dropped (deregistered). Targets lent to
//! calls are bounded by the credits, as the calls are.
//!
//! [`RdmaServerConfig::read_target_bytes`]: crate::RdmaServerConfig::read_target_bytes

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rdma::MemoryRegion;

/// Targets are registered in multiples of this, so calls of nearly the same size share them.
const GRAIN: usize = 64 * 1024;

/// The bytes of free targets every connection of a server keeps together, at most.
#[derive(Debug)]
pub(crate) struct KeptBudget {
    used: AtomicUsize,
    max: usize,
}

impl KeptBudget {
    pub(crate) fn new(max: usize) -> KeptBudget {
        KeptBudget { used: AtomicUsize::new(0), max }
    }

    fn reserve(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.max)
            })
            .is_ok()
    }

    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// One connection's free targets.
#[derive(Debug)]
pub(crate) struct ReadTargets {
    /// Free targets by size (a multiple of [`GRAIN`]); a size's list stays when emptied, so there are
    /// at most as many lists as sizes a connection has kept.
    free: BTreeMap<usize, Vec<MemoryRegion>>,
    free_bytes: usize,
    max_bytes: usize,
    budget: Arc<KeptBudget>,
}

impl ReadTargets {
    /// Keeps up to `max_bytes` of free targets, within the server-wide `budget`.
    pub(crate) fn new(max_bytes: usize, budget: Arc<KeptBudget>) -> ReadTargets {
        ReadTargets { free: BTreeMap::new(), free_bytes: 0, max_bytes, budget }
    }

    /// The bytes to register for a call of `len` bytes.
    pub(crate) fn size_for(len: usize) -> usize {
        len.div_ceil(GRAIN).max(1).saturating_mul(GRAIN)
    }

    /// The smallest free target of at least `len` bytes, taken.
    pub(crate) fn take(&mut self, len: usize) -> Option<MemoryRegion> {
        let target = self.free.range_mut(len..).find_map(|(_, list)| list.pop())?;
        self.free_bytes -= target.len();
        self.budget.release(target.len());
        Some(target)
    }

    /// Gives `target` back for the next calls; returned when the connection or the server keeps enough
    /// already (the caller deregisters it).
    pub(crate) fn give(&mut self, target: MemoryRegion) -> Option<MemoryRegion> {
        let len = target.len();
        if self.free_bytes + len > self.max_bytes || !self.budget.reserve(len) {
            return Some(target);
        }
        self.free_bytes += len;
        self.free.entry(len).or_default().push(target);
        None
    }
}

impl Drop for ReadTargets {
    fn drop(&mut self) {
        self.budget.release(self.free_bytes);
    }
}

#[cfg(test)]
mod tests {
    use rdma::{Access, RegBuf, Registration};

    use super::*;

    #[derive(Debug)]
    struct Nothing;

    impl Registration for Nothing {
        fn deregister(&self) {}
    }

    fn target(len: usize) -> MemoryRegion {
        MemoryRegion::new(RegBuf::Writable(vec![0; len]), Access::LOCAL_WRITE, 1, 1, 0, Box::new(Nothing))
    }

    #[test]
    fn the_smallest_free_target_that_fits_is_reused() {
        let mut targets = ReadTargets::new(1 << 20, Arc::new(KeptBudget::new(1 << 30)));
        for len in [65536, 4 * 65536, 2 * 65536] {
            assert!(targets.give(target(len)).is_none());
        }
        assert_eq!(targets.take(70_000).map(|t| t.len()), Some(2 * 65536));
        assert!(targets.take(300_000).is_none(), "none that large is free");
        assert_eq!(targets.take(1).map(|t| t.len()), Some(65536));
        assert_eq!(ReadTargets::size_for(1), 65536);
        assert_eq!(ReadTargets::size_for((1 << 20) + 300), (1 << 20) + 65536);
    }

    #[test]
    fn targets_past_the_connections_or_the_servers_bound_are_dropped() {
        let budget = Arc::new(KeptBudget::new(3 * 65536));
        let mut one = ReadTargets::new(2 * 65536, Arc::clone(&budget));
        let mut two = ReadTargets::new(2 * 65536, Arc::clone(&budget));
        let refused: Vec<bool> = (0..3).map(|_| one.give(target(65536)).is_some()).collect();
        assert_eq!(refused, [false, false, true], "the connection keeps its bound");
        assert!(two.give(target(65536)).is_none());
        assert!(two.give(target(65536)).is_some(), "the server keeps its bound across connections");
        drop(one);
        assert!(two.give(target(65536)).is_none());
        assert_eq!(two.free.values().map(Vec::len).sum::<usize>(), 2, "a closed connection's targets leave the budget");
    }
}
