//! An index of the byte ranges many lock-owners hold on one file — ranges of different owners may overlap
//! (read locks do) — that finds a range of someone else overlapping `[start, end]` in O(log n) of the
//! ranges indexed, however many owners hold them.
//!
//! The ranges overlapping `[start, end]` are those covering `start` and those beginning in
//! `(start, end]`. The second kind is a range query on the ranges ordered by start. For the first, each
//! range is also filed under the smallest aligned block of 2^L offsets holding it (L = 0..=64: an
//! implicit centred interval tree over the 64-bit offset space). A range filed under a block of level
//! L ≥ 1 contains both middle offsets of the block, `m − 1` and `m` (`m` the first of its upper half),
//! or one half of the block would hold it; so of that block's ranges, those covering a point `p < m`
//! are exactly those starting at or before `p`, and those covering `p ≥ m` those ending at or after `p`
//! — one ordered lookup. A range covering `p` lies in one of the 65 blocks holding `p`, and only the
//! levels some range uses are visited.
//!
//! One owner's ranges never overlap one another (`ranges.rs` splits and merges them), so a query that
//! skips the asker's own ranges passes at most one of them per block, plus its own ranges beginning
//! inside the asked range — which the asker's change replaces anyway. Cost: O(L · log n) for L levels in
//! use (at most 65), O(log n) to add or remove a range.

use std::collections::BTreeMap;

use super::ranges::Holder;
use super::types::ClientId;

const HOLDER_MIN: Holder = (ClientId(0), 0);
const HOLDER_MAX: Holder = (ClientId(u64::MAX), u32::MAX);
/// Block levels: a block of 2^L offsets, L = 0 (one offset) ..= 64 (all of them).
const LEVELS: usize = 65;

/// A range as the index reports it: its holder, first and last offset (inclusive).
pub(super) type Found = (Holder, u64, u64);

/// `(level, block number, offset, holder)`: a range's entry in its block, ordered by `offset`.
type BlockKey = (u32, u64, u64, Holder);

#[derive(Debug)]
pub(super) struct RangeIndex {
    /// (start, holder) → end.
    by_start: BTreeMap<(u64, Holder), u64>,
    /// A range's block entry by its start → its end.
    block_starts: BTreeMap<BlockKey, u64>,
    /// A range's block entry by its end → its start.
    block_ends: BTreeMap<BlockKey, u64>,
    /// Ranges filed at each level.
    per_level: [usize; LEVELS],
}

impl Default for RangeIndex {
    fn default() -> Self {
        RangeIndex {
            by_start: BTreeMap::new(),
            block_starts: BTreeMap::new(),
            block_ends: BTreeMap::new(),
            per_level: [0; LEVELS],
        }
    }
}

/// The level and number of the smallest aligned block holding `[start, end]`.
fn block_of(start: u64, end: u64) -> (u32, u64) {
    let level = 64 - (start ^ end).leading_zeros();
    (level, start.checked_shr(level).unwrap_or(0))
}

/// The first offset of the upper half of block `number` of `level` (≥ 1).
fn middle(level: u32, number: u64) -> u64 {
    number.checked_shl(level).unwrap_or(0) + (1u64 << (level - 1))
}

impl RangeIndex {
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.by_start.len()
    }

    /// Adds `holder`'s range `[start, end]` (`start <= end`; the holder has no other range starting there).
    pub(super) fn insert(&mut self, holder: Holder, start: u64, end: u64) {
        self.by_start.insert((start, holder), end);
        let (level, number) = block_of(start, end);
        self.block_starts.insert((level, number, start, holder), end);
        self.block_ends.insert((level, number, end, holder), start);
        self.per_level[level as usize] += 1;
    }

    /// Removes `holder`'s range starting at `start`, if there is one.
    pub(super) fn remove(&mut self, holder: Holder, start: u64) {
        let Some(end) = self.by_start.remove(&(start, holder)) else { return };
        let (level, number) = block_of(start, end);
        self.block_starts.remove(&(level, number, start, holder));
        self.block_ends.remove(&(level, number, end, holder));
        self.per_level[level as usize] -= 1;
    }

    /// A range of a holder other than `me` overlapping `[start, end]`: one covering `start` if any, else the
    /// first beginning after it.
    pub(super) fn overlapping(&self, start: u64, end: u64, me: Option<Holder>) -> Option<Found> {
        let other = |holder: &Holder| Some(*holder) != me;
        if let Some(found) = self.covering(start, other) {
            return Some(found);
        }
        let after = start.checked_add(1).filter(|after| *after <= end)?;
        let mut inside = self.by_start.range((after, HOLDER_MIN)..=(end, HOLDER_MAX));
        inside.find(|((_, holder), _)| other(holder)).map(|((s, holder), e)| (*holder, *s, *e))
    }

    /// A range covering `point` whose holder passes `wanted`.
    fn covering(&self, point: u64, wanted: impl Fn(&Holder) -> bool) -> Option<Found> {
        let mut levels = (0..LEVELS as u32).filter(|level| self.per_level[*level as usize] > 0);
        levels.find_map(|level| {
            let number = point.checked_shr(level).unwrap_or(0);
            if level > 0 && point < middle(level, number) {
                // Every range of the block reaches past `point`: those starting at or before it cover it.
                let mut starts =
                    self.block_starts.range((level, number, 0, HOLDER_MIN)..=(level, number, point, HOLDER_MAX));
                starts.find(|((.., holder), _)| wanted(holder)).map(|((.., s, holder), e)| (*holder, *s, *e))
            } else {
                // Every range of the block begins at or before `point` (level 0: the block is `point`).
                let mut ends =
                    self.block_ends.range((level, number, point, HOLDER_MIN)..=(level, number, u64::MAX, HOLDER_MAX));
                ends.find(|((.., holder), _)| wanted(holder)).map(|((.., e, holder), s)| (*holder, *s, *e))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Holder = (ClientId(1), 0);
    const B: Holder = (ClientId(2), 0);

    #[test]
    fn blocks_are_the_smallest_aligned_ones_holding_the_range() {
        assert_eq!(block_of(5, 5), (0, 5));
        assert_eq!(block_of(4, 5), (1, 2));
        assert_eq!(block_of(3, 4), (3, 0), "3 and 4 first share the block 0..=7");
        assert_eq!(block_of(0, u64::MAX), (64, 0));
        assert_eq!(block_of(1 << 63, u64::MAX), (63, 1));
        assert_eq!((middle(3, 0), middle(64, 0), middle(63, 1)), (4, 1 << 63, (1 << 63) + (1 << 62)));
    }

    #[test]
    fn a_range_is_found_from_any_point_it_covers_and_the_askers_own_are_skipped() {
        let mut index = RangeIndex::default();
        index.insert(A, 100, 199);
        index.insert(B, 150, 150);
        for point in [100, 127, 128, 150, 199] {
            assert_eq!(index.overlapping(point, point, Some(B)), Some((A, 100, 199)), "at {point}");
        }
        assert_eq!(index.overlapping(150, 150, Some(A)), Some((B, 150, 150)));
        assert_eq!(index.overlapping(151, 300, Some(A)), None);
        assert_eq!(index.overlapping(0, 99, None), None);
        assert_eq!(index.overlapping(0, 100, None), Some((A, 100, 199)), "a range beginning inside");
        index.remove(A, 100);
        assert_eq!((index.overlapping(0, u64::MAX, Some(B)), index.len()), (None, 1));
    }

    #[test]
    fn ranges_reaching_the_last_offset_are_found() {
        let mut index = RangeIndex::default();
        index.insert(A, 0, u64::MAX);
        index.insert(B, u64::MAX, u64::MAX);
        assert_eq!(index.overlapping(u64::MAX, u64::MAX, Some(A)), Some((B, u64::MAX, u64::MAX)));
        assert_eq!(index.overlapping(u64::MAX, u64::MAX, Some(B)), Some((A, 0, u64::MAX)));
        assert_eq!(index.overlapping(1 << 40, 1 << 41, Some(B)), Some((A, 0, u64::MAX)));
    }

    /// Random ranges of random holders, each query answered as a scan of them all would.
    #[test]
    fn queries_agree_with_a_scan_of_every_range() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Offsets from a few scales, so ranges land on many levels and share blocks.
        let offset = |next: &mut dyn FnMut() -> u64| match next() % 4 {
            0 => next() % 64,
            1 => next() % 4096,
            2 => next() % (1 << 40),
            _ => u64::MAX - next() % 64,
        };
        let mut index = RangeIndex::default();
        let mut all: Vec<(Holder, u64, u64)> = Vec::new();
        for round in 0..3000 {
            let (a, b) = (offset(&mut next), offset(&mut next));
            let (start, end) = (a.min(b), a.max(b));
            let holder = (ClientId(next() % 8), 0);
            if round % 3 == 2 && !all.is_empty() {
                let (h, s, _) = all.swap_remove((next() % all.len() as u64) as usize);
                index.remove(h, s);
            } else if !all.iter().any(|(h, s, _)| *h == holder && *s == start) {
                index.insert(holder, start, end);
                all.push((holder, start, end));
            }
            let me = Some((ClientId(next() % 8), 0));
            let found = index.overlapping(start, end, me);
            let overlaps = |(h, s, e): &(Holder, u64, u64)| Some(*h) != me && *s <= end && *e >= start;
            match found {
                Some(f) => assert!(overlaps(&f) && all.contains(&f), "round {round}: {f:?} for {start}..={end}"),
                None => assert!(!all.iter().any(overlaps), "round {round}: missed an overlap of {start}..={end}"),
            }
        }
        assert_eq!(index.len(), all.len());
    }
}
