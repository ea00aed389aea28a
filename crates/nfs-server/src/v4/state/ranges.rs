//! Byte-range locks of one file (RFC 8881 §9): per lock-owner, an ordered map of disjoint ranges, each
//! merged with its same-type neighbours. Setting a range replaces what the owner held there (an upgrade,
//! a downgrade or a new lock, splitting ranges at the edges, POSIX-style); clearing one splits around it.
//! Beside the owners' maps, every range of every owner is in one of two position indexes
//! (`range_index.rs`), the read locks' and the write locks'.
//!
//! Cost: a conflict check asks the write index (a read lock conflicts with writes only) and, for a
//! write lock, the read index: O(log n) in the file's ranges, never a walk over its lock-owners. A change
//! to an owner's ranges touches only the ranges overlapping or adjoining the asked one, each in its
//! owner's map and its index. Changes are planned first and applied after the caps are checked, so a
//! refused request changes nothing.

use std::collections::{BTreeMap, HashMap};

use super::range_index::{Found, RangeIndex};
use super::types::{ClientId, LockType};

/// A lock-owner holding ranges: its client and its number in that client's lock-owner table.
pub(super) type Holder = (ClientId, u32);

/// A locked range, `end` inclusive (u64::MAX: to the end of the file and beyond).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Range {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) kind: LockType,
}

/// A change to one owner's ranges: the starts of the ranges to take out, the ranges to put in.
#[derive(Debug, Default)]
pub(super) struct Plan {
    remove: Vec<u64>,
    insert: Vec<Range>,
}

impl Plan {
    /// How many ranges the owner holds more (or fewer) after the change.
    pub(super) fn delta(&self) -> isize {
        self.insert.len() as isize - self.remove.len() as isize
    }
}

#[derive(Debug, Default)]
struct OwnerRanges(BTreeMap<u64, (u64, LockType)>);

impl OwnerRanges {
    /// The ranges overlapping `[start, end]`, in order.
    fn overlapping(&self, start: u64, end: u64) -> impl Iterator<Item = Range> + '_ {
        let before = self.0.range(..start).next_back().filter(|(_, (e, _))| *e >= start);
        before.into_iter().chain(self.0.range(start..=end)).map(|(s, (e, k))| Range { start: *s, end: *e, kind: *k })
    }

    /// Sets `[start, end]` to `kind`, or clears it (`None`).
    fn plan(&self, start: u64, end: u64, kind: Option<LockType>) -> Plan {
        // Neighbours that merely touch the range are included so a same-type one can be merged.
        let affected: Vec<Range> = self.overlapping(start.saturating_sub(1), end.saturating_add(1)).collect();
        let mut pieces = Vec::with_capacity(affected.len() + 1);
        for r in &affected {
            if r.start < start {
                pieces.push(Range { start: r.start, end: r.end.min(start - 1), kind: r.kind });
            }
            if r.end > end {
                pieces.push(Range { start: r.start.max(end + 1), end: r.end, kind: r.kind });
            }
        }
        if let Some(kind) = kind {
            pieces.push(Range { start, end, kind });
        }
        pieces.sort_by_key(|r| r.start);
        let mut insert: Vec<Range> = Vec::with_capacity(pieces.len());
        for piece in pieces {
            match insert.last_mut() {
                Some(last) if last.kind == piece.kind && last.end.checked_add(1) == Some(piece.start) => {
                    last.end = piece.end;
                }
                _ => insert.push(piece),
            }
        }
        Plan { remove: affected.iter().map(|r| r.start).collect(), insert }
    }
}

/// The locks on one file: by holder, and by position.
#[derive(Debug, Default)]
pub(super) struct LockTable {
    holders: HashMap<Holder, OwnerRanges>,
    reads: RangeIndex,
    writes: RangeIndex,
}

impl LockTable {
    pub(super) fn is_empty(&self) -> bool {
        self.holders.is_empty()
    }

    /// Ranges `holder` has on this file.
    pub(super) fn held(&self, holder: Holder) -> usize {
        self.holders.get(&holder).map_or(0, |r| r.0.len())
    }

    /// A lock of another holder that keeps `me` (`None`: an owner holding nothing yet) from locking
    /// `[start, end]` as `want`: of the conflicting locks the indexes find, the one starting first.
    pub(super) fn conflict(&self, start: u64, end: u64, want: LockType, me: Option<Holder>) -> Option<(Holder, Range)> {
        let as_range = |kind| move |(holder, start, end): Found| (holder, Range { start, end, kind });
        let write = self.writes.overlapping(start, end, me).map(as_range(LockType::Write));
        // RFC 8881 §9.1: only a write lock conflicts with read locks.
        let read = if want.conflicts_with(LockType::Read) { self.reads.overlapping(start, end, me) } else { None };
        let read = read.map(as_range(LockType::Read));
        write.into_iter().chain(read).min_by_key(|(_, range)| range.start)
    }

    /// Plans setting (`Some`) or clearing (`None`) `[start, end]` for `me`.
    pub(super) fn plan(&self, me: Holder, start: u64, end: u64, kind: Option<LockType>) -> Plan {
        match self.holders.get(&me) {
            Some(ranges) => ranges.plan(start, end, kind),
            None => {
                Plan { remove: Vec::new(), insert: kind.map(|kind| Range { start, end, kind }).into_iter().collect() }
            }
        }
    }

    pub(super) fn apply(&mut self, me: Holder, plan: Plan) {
        let ranges = self.holders.entry(me).or_default();
        for start in plan.remove {
            if let Some((_, kind)) = ranges.0.remove(&start) {
                index(&mut self.reads, &mut self.writes, kind).remove(me, start);
            }
        }
        for r in plan.insert {
            ranges.0.insert(r.start, (r.end, r.kind));
            index(&mut self.reads, &mut self.writes, r.kind).insert(me, r.start, r.end);
        }
        if ranges.0.is_empty() {
            self.holders.remove(&me);
        }
    }

    /// Drops every range of `me`; how many there were.
    pub(super) fn remove_holder(&mut self, me: Holder) -> usize {
        let Some(ranges) = self.holders.remove(&me) else { return 0 };
        for (start, (_, kind)) in &ranges.0 {
            index(&mut self.reads, &mut self.writes, *kind).remove(me, *start);
        }
        ranges.0.len()
    }

    #[cfg(test)]
    fn ranges(&self, me: Holder) -> Vec<(u64, u64, LockType)> {
        self.holders.get(&me).map_or_else(Vec::new, |r| r.0.iter().map(|(s, (e, k))| (*s, *e, *k)).collect())
    }
}

/// The index of `kind`'s ranges.
fn index<'a>(reads: &'a mut RangeIndex, writes: &'a mut RangeIndex, kind: LockType) -> &'a mut RangeIndex {
    match kind {
        LockType::Read => reads,
        LockType::Write => writes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LockType::{Read, Write};

    const A: Holder = (ClientId(1), 0);
    const B: Holder = (ClientId(2), 0);

    fn set(table: &mut LockTable, me: Holder, start: u64, end: u64, kind: Option<LockType>) -> isize {
        let plan = table.plan(me, start, end, kind);
        let delta = plan.delta();
        table.apply(me, plan);
        delta
    }

    #[test]
    fn adjoining_ranges_of_one_type_merge() {
        let mut t = LockTable::default();
        set(&mut t, A, 0, 9, Some(Write));
        set(&mut t, A, 20, 29, Some(Write));
        assert_eq!(set(&mut t, A, 10, 19, Some(Write)), -1, "three ranges become one");
        assert_eq!(t.ranges(A), vec![(0, 29, Write)]);
    }

    #[test]
    fn a_downgrade_in_the_middle_splits_a_range_in_three() {
        let mut t = LockTable::default();
        set(&mut t, A, 0, 99, Some(Write));
        assert_eq!(set(&mut t, A, 40, 59, Some(Read)), 2);
        assert_eq!(t.ranges(A), vec![(0, 39, Write), (40, 59, Read), (60, 99, Write)]);
        assert_eq!(set(&mut t, A, 40, 59, Some(Write)), -2, "upgrading it back merges all three");
        assert_eq!(t.ranges(A), vec![(0, 99, Write)]);
    }

    #[test]
    fn unlocking_a_subrange_splits_and_unlocking_across_ranges_trims_them() {
        let mut t = LockTable::default();
        set(&mut t, A, 0, u64::MAX, Some(Read));
        assert_eq!(set(&mut t, A, 100, 199, None), 1);
        assert_eq!(t.ranges(A), vec![(0, 99, Read), (200, u64::MAX, Read)]);
        set(&mut t, A, 50, 249, None);
        assert_eq!(t.ranges(A), vec![(0, 49, Read), (250, u64::MAX, Read)]);
        set(&mut t, A, 0, u64::MAX, None);
        assert!(t.is_empty(), "an owner with no ranges left is dropped");
    }

    #[test]
    fn conflicts_are_between_owners_and_involve_a_write() {
        let mut t = LockTable::default();
        set(&mut t, A, 10, 19, Some(Read));
        set(&mut t, A, 30, 39, Some(Write));
        assert_eq!(t.conflict(0, 100, Write, Some(A)), None, "an owner never conflicts with itself");
        assert_eq!(t.conflict(15, 15, Read, Some(B)), None, "two reads share");
        let (holder, range) = t.conflict(15, 35, Write, Some(B)).expect("conflict");
        assert_eq!((holder, range.start, range.end), (A, 10, 19), "the first conflicting range is reported");
        assert_eq!(t.conflict(35, 35, Read, Some(B)).map(|(_, r)| r.kind), Some(Write));
        assert_eq!(t.conflict(20, 29, Write, Some(B)), None, "the gap between is free");
    }

    #[test]
    fn thousands_of_ranges_stay_disjoint_and_are_found_by_position() {
        let mut t = LockTable::default();
        for i in 0..5000u64 {
            set(&mut t, A, i * 10, i * 10 + 4, Some(if i % 2 == 0 { Read } else { Write }));
        }
        assert_eq!(t.held(A), 5000);
        assert_eq!(t.conflict(4993, 4993, Write, Some(B)).map(|(_, r)| r.start), Some(4990));
        assert_eq!(t.conflict(4985, 4989, Write, Some(B)), None);
        assert_eq!(t.remove_holder(A), 5000);
        assert!(t.is_empty());
    }
}
