//! Where the next I/O goes and how large it is, as fio decides it: block sizes from `bs`, `bsrange` or
//! `bssplit`; sequential offsets per file; random offsets aligned to the smallest block size, either
//! through a random map (every block once per pass) or uniformly (`norandommap`); files served round
//! robin, one I/O each (fio's default `file_service_type=roundrobin`).

use crate::permutation::Permutation;
use fio_job::BlockSize;

/// Chooses the length of each I/O in one direction.
#[derive(Debug, Clone)]
pub struct BlockSizer {
    choice: BlockSize,
    min: u64,
    max: u64,
}

impl BlockSizer {
    /// A sizer for one direction's `bs` setting.
    pub fn new(choice: &BlockSize) -> Self {
        BlockSizer { choice: choice.clone(), min: choice.min().max(1), max: choice.max().max(1) }
    }

    /// The smallest length this sizer returns.
    pub fn min(&self) -> u64 {
        self.min
    }

    /// The largest length this sizer returns.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The next I/O length: fixed; a multiple of the minimum within the range (fio aligns `bsrange`
    /// sizes to the minimum unless `bs_unaligned`); or drawn by `bssplit`'s percentages, the remainder
    /// of 100 going to the last entry as fio does.
    pub fn next(&self, rng: &mut fastrand::Rng) -> u64 {
        match &self.choice {
            BlockSize::Fixed(bs) => *bs,
            BlockSize::Range { min, max } => {
                let steps = (max - min) / self.min;
                min + rng.u64(0..=steps) * self.min
            }
            BlockSize::Split(split) => {
                let mut draw = rng.u32(0..100);
                for (bs, percent) in split {
                    if draw < *percent {
                        return *bs;
                    }
                    draw -= percent;
                }
                split.last().map_or(self.min, |(bs, _)| *bs)
            }
        }
    }
}

/// The byte range of one file that a job touches: `[start, start + len)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    pub start: u64,
    pub len: u64,
}

/// How offsets advance within the regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Sequential,
    /// Random through a permutation: every `unit` of every file once per pass.
    RandomMap,
    /// Uniformly random; a pass ends on the byte budget alone.
    RandomUniform,
}

/// One I/O's place: which file, where, how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub file: usize,
    pub offset: u64,
    pub len: u64,
}

/// The offset generator for one job clone; `next` returns `None` when the pass is over.
#[derive(Debug)]
pub struct OffsetPlan {
    regions: Vec<Region>,
    order: Order,
    unit: u64,
    cursors: Vec<u64>,
    maps: Vec<Permutation>,
    next_file: usize,
    pass: u64,
    seed: u64,
}

impl OffsetPlan {
    /// A plan over `regions`, random offsets aligned to `unit` (the smallest block size).
    pub fn new(regions: Vec<Region>, order: Order, unit: u64, seed: u64) -> Self {
        let unit = unit.max(1);
        let mut plan = OffsetPlan {
            cursors: vec![0; regions.len()],
            maps: Vec::new(),
            regions,
            order,
            unit,
            next_file: 0,
            pass: 0,
            seed,
        };
        plan.restart();
        plan
    }

    /// Start a new pass (the next loop, or time_based running on).
    pub fn restart(&mut self) {
        self.cursors.iter_mut().for_each(|c| *c = 0);
        self.next_file = 0;
        if self.order == Order::RandomMap {
            let pass_seed = crate::permutation::splitmix64(self.seed ^ self.pass);
            self.maps = self
                .regions
                .iter()
                .enumerate()
                .map(|(i, r)| Permutation::new(r.len.div_ceil(self.unit), pass_seed.wrapping_add(i as u64)))
                .collect();
        }
        self.pass += 1;
    }

    /// The next place for an I/O of (up to) `len` bytes, or `None` when every file is done for this pass.
    pub fn next(&mut self, len: u64, rng: &mut fastrand::Rng) -> Option<Place> {
        for _ in 0..self.regions.len() {
            let file = self.next_file;
            self.next_file = (self.next_file + 1) % self.regions.len();
            if let Some(place) = self.next_in(file, len, rng) {
                return Some(place);
            }
        }
        None
    }

    fn next_in(&mut self, file: usize, len: u64, rng: &mut fastrand::Rng) -> Option<Place> {
        let region = self.regions[file];
        if region.len == 0 {
            return None;
        }
        let relative = match self.order {
            Order::Sequential => {
                let at = self.cursors[file];
                if at >= region.len {
                    return None;
                }
                at
            }
            Order::RandomMap => {
                let map = &self.maps[file];
                let index = self.cursors[file];
                if index >= map.len() {
                    return None;
                }
                map.at(index) * self.unit
            }
            Order::RandomUniform => rng.u64(0..region.len.div_ceil(self.unit)) * self.unit,
        };
        let len = len.min(region.len - relative);
        self.cursors[file] += match self.order {
            Order::Sequential => len,
            _ => 1,
        };
        Some(Place { file, offset: region.start + relative, len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> fastrand::Rng {
        fastrand::Rng::with_seed(1)
    }

    #[test]
    fn sequential_plan_walks_each_file_to_its_end_round_robin() {
        let regions = vec![Region { start: 0, len: 8192 }, Region { start: 0, len: 4096 }];
        let mut plan = OffsetPlan::new(regions, Order::Sequential, 4096, 0);
        let places: Vec<Place> = std::iter::from_fn(|| plan.next(4096, &mut rng())).collect();
        assert_eq!(
            places,
            vec![
                Place { file: 0, offset: 0, len: 4096 },
                Place { file: 1, offset: 0, len: 4096 },
                Place { file: 0, offset: 4096, len: 4096 },
            ]
        );
    }

    #[test]
    fn sequential_plan_shortens_the_last_io_to_the_region_end() {
        let mut plan = OffsetPlan::new(vec![Region { start: 100, len: 6000 }], Order::Sequential, 4096, 0);
        let mut r = rng();
        assert_eq!(plan.next(4096, &mut r), Some(Place { file: 0, offset: 100, len: 4096 }));
        assert_eq!(plan.next(4096, &mut r), Some(Place { file: 0, offset: 4196, len: 1904 }));
        assert_eq!(plan.next(4096, &mut r), None);
    }

    #[test]
    fn random_map_visits_every_block_once_per_pass() {
        let mut plan = OffsetPlan::new(vec![Region { start: 0, len: 1 << 20 }], Order::RandomMap, 4096, 9);
        let mut r = rng();
        for _pass in 0..2 {
            let mut offsets: Vec<u64> = std::iter::from_fn(|| plan.next(4096, &mut r)).map(|p| p.offset).collect();
            assert_eq!(offsets.len(), 256);
            assert_ne!(offsets[..8], [0, 4096, 8192, 12288, 16384, 20480, 24576, 28672]);
            offsets.sort_unstable();
            offsets.dedup();
            assert_eq!(offsets.len(), 256);
            plan.restart();
        }
    }

    #[test]
    fn uniform_random_offsets_are_aligned_and_inside_the_region() {
        let mut plan = OffsetPlan::new(vec![Region { start: 65536, len: 1 << 20 }], Order::RandomUniform, 4096, 0);
        let mut r = rng();
        for _ in 0..10_000 {
            let p = plan.next(4096, &mut r).expect("uniform plans never end on their own");
            assert_eq!(p.offset % 4096, 0);
            assert!(p.offset >= 65536 && p.offset + p.len <= 65536 + (1 << 20));
        }
    }

    #[test]
    fn range_sizes_are_multiples_of_the_minimum() {
        let sizer = BlockSizer::new(&BlockSize::Range { min: 4096, max: 65536 });
        let mut r = rng();
        let sizes: Vec<u64> = (0..1000).map(|_| sizer.next(&mut r)).collect();
        assert!(sizes.iter().all(|s| s % 4096 == 0 && (4096..=65536).contains(s)));
        assert!(sizes.contains(&4096) && sizes.contains(&65536));
    }

    #[test]
    fn split_sizes_follow_their_percentages() {
        let sizer = BlockSizer::new(&BlockSize::Split(vec![(4096, 75), (65536, 25)]));
        let mut r = rng();
        let small = (0..10_000).filter(|_| sizer.next(&mut r) == 4096).count();
        assert!((7_000..8_000).contains(&small), "{small} of 10000 were 4 KiB");
    }
}
