//! A sparse file's page map: page index → page, as a two-level table. An ordered map of leaves, each
//! the pages of one [`LEAF_PAGES`]-page stretch of the file in an array, so that a READ's lookup is one
//! walk of a map as small as the file's allocated stretches (16 leaves for a 512 MiB file: one node,
//! hot in cache) and an array index, where a map of every page (a B-tree of 8192 entries for the same
//! file) costs a walk of several nodes, cache misses on a large file read at random.

use std::collections::BTreeMap;
use std::ops::Range;

/// Pages per leaf: with 64 KiB pages a leaf covers 32 MiB of the file in a 4 KiB array.
const LEAF_SHIFT: u32 = 9;
const LEAF_PAGES: usize = 1 << LEAF_SHIFT;
const LEAF_MASK: u64 = LEAF_PAGES as u64 - 1;

struct Leaf<P> {
    slots: Box<[Option<P>; LEAF_PAGES]>,
    /// Slots holding a page.
    used: usize,
}

impl<P> Leaf<P> {
    fn new() -> Leaf<P> {
        Leaf { slots: Box::new(std::array::from_fn(|_| None)), used: 0 }
    }
}

/// Page index → page, sparse.
pub(super) struct PageTable<P> {
    leaves: BTreeMap<u64, Leaf<P>>,
    len: u64,
}

fn split(index: u64) -> (u64, usize) {
    (index >> LEAF_SHIFT, (index & LEAF_MASK) as usize)
}

impl<P> PageTable<P> {
    pub(super) fn new() -> PageTable<P> {
        PageTable { leaves: BTreeMap::new(), len: 0 }
    }

    /// Pages held.
    pub(super) fn len(&self) -> u64 {
        self.len
    }

    pub(super) fn get(&self, index: u64) -> Option<&P> {
        let (leaf, slot) = split(index);
        self.leaves.get(&leaf)?.slots[slot].as_ref()
    }

    pub(super) fn get_mut(&mut self, index: u64) -> Option<&mut P> {
        let (leaf, slot) = split(index);
        self.leaves.get_mut(&leaf)?.slots[slot].as_mut()
    }

    pub(super) fn contains(&self, index: u64) -> bool {
        self.get(index).is_some()
    }

    /// The page at `index`, made with `make` if there is none.
    pub(super) fn get_or_insert_with(&mut self, index: u64, make: impl FnOnce() -> P) -> &mut P {
        let (leaf, slot) = split(index);
        let leaf = self.leaves.entry(leaf).or_insert_with(Leaf::new);
        let entry = &mut leaf.slots[slot];
        if entry.is_none() {
            leaf.used += 1;
            self.len += 1;
        }
        entry.get_or_insert_with(make)
    }

    /// Indices of the pages held in `range`, in order.
    pub(super) fn indices(&self, range: Range<u64>) -> impl Iterator<Item = u64> + '_ {
        let (first, last) = (range.start >> LEAF_SHIFT, range.end.saturating_sub(1) >> LEAF_SHIFT);
        let leaves = (range.start < range.end).then(|| self.leaves.range(first..=last)).into_iter().flatten();
        leaves
            .flat_map(move |(&leaf, pages)| {
                let base = leaf << LEAF_SHIFT;
                pages.slots.iter().enumerate().filter(|(_, p)| p.is_some()).map(move |(slot, _)| base + slot as u64)
            })
            .filter(move |index| range.contains(index))
    }

    /// Drops the pages in `range`; returns how many there were.
    pub(super) fn remove(&mut self, range: Range<u64>) -> u64 {
        if range.start >= range.end {
            return 0;
        }
        let (first, last) = (range.start >> LEAF_SHIFT, (range.end - 1) >> LEAF_SHIFT);
        let mut removed = 0;
        let mut emptied = Vec::new();
        for (&leaf, pages) in self.leaves.range_mut(first..=last) {
            let base = leaf << LEAF_SHIFT;
            let from = range.start.saturating_sub(base).min(LEAF_PAGES as u64) as usize;
            let to = (range.end - base).min(LEAF_PAGES as u64) as usize;
            for slot in &mut pages.slots[from..to] {
                if slot.take().is_some() {
                    pages.used -= 1;
                    removed += 1;
                }
            }
            if pages.used == 0 {
                emptied.push(leaf);
            }
        }
        for leaf in emptied {
            self.leaves.remove(&leaf);
        }
        self.len -= removed;
        removed
    }

    /// Drops every page.
    pub(super) fn clear(&mut self) {
        self.leaves.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(indices: &[u64]) -> PageTable<u64> {
        let mut t = PageTable::new();
        for &i in indices {
            *t.get_or_insert_with(i, || 0) = i;
        }
        t
    }

    #[test]
    fn pages_are_found_where_they_were_put_across_leaves_and_nowhere_else() {
        let far = u64::MAX >> 16;
        let t = table(&[0, 511, 512, 5000, far]);
        assert_eq!(t.len(), 5);
        for i in [0, 511, 512, 5000, far] {
            assert_eq!(t.get(i), Some(&i));
        }
        assert!(!t.contains(1) && !t.contains(513) && !t.contains(far - 1));
        assert_eq!(t.indices(0..u64::MAX).collect::<Vec<_>>(), [0, 511, 512, 5000, far]);
        assert_eq!(t.indices(511..5000).collect::<Vec<_>>(), [511, 512]);
        assert_eq!(t.indices(7..7).count(), 0);
    }

    #[test]
    fn inserting_twice_keeps_the_first_page_and_the_count() {
        let mut t = table(&[3]);
        assert_eq!(*t.get_or_insert_with(3, || 99), 3);
        assert_eq!(t.len(), 1);
        *t.get_mut(3).expect("page") = 4;
        assert_eq!(t.get(3), Some(&4));
    }

    #[test]
    fn removing_a_range_counts_what_it_dropped_and_frees_empty_leaves() {
        let mut t = table(&[1, 2, 511, 512, 1024, 1536, 2000]);
        assert_eq!(t.remove(2..1025), 4);
        assert_eq!(t.indices(0..u64::MAX).collect::<Vec<_>>(), [1, 1536, 2000]);
        assert_eq!((t.len(), t.leaves.len()), (3, 2), "the leaves of 512 and 1024 are gone");
        assert_eq!(t.remove(5..5), 0);
        assert_eq!(t.remove(1536..u64::MAX), 2);
        assert_eq!(t.len(), 1);
        t.clear();
        assert_eq!((t.len(), t.get(1)), (0, None));
    }
}
