//! Which verify units of a file have been written: one bit each (a 1 GiB file in 4 KiB units is 32 KiB).

/// A bitmap over a file's verify units.
#[derive(Debug, Clone, Default)]
pub struct UnitMap {
    words: Vec<u64>,
    len: u64,
}

impl UnitMap {
    /// A map of `len` units, none written.
    pub fn new(len: u64) -> Self {
        UnitMap { words: vec![0; len.div_ceil(64) as usize], len }
    }

    /// Mark `count` units from `first` as written (clipped to the map).
    pub fn set_range(&mut self, first: u64, count: u64) {
        for unit in first..(first + count).min(self.len) {
            self.words[(unit / 64) as usize] |= 1 << (unit % 64);
        }
    }

    fn is_set(&self, unit: u64) -> bool {
        self.words[(unit / 64) as usize] & (1 << (unit % 64)) != 0
    }

    /// Runs of written units as `(first, count)`, each at most `max` long, in file order.
    pub fn runs(&self, max: u64) -> Vec<(u64, u64)> {
        let mut runs = Vec::new();
        let mut unit = 0;
        while unit < self.len {
            if !self.is_set(unit) {
                unit += 1;
                continue;
            }
            let first = unit;
            while unit < self.len && self.is_set(unit) && unit - first < max {
                unit += 1;
            }
            runs.push((first, unit - first));
        }
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_cover_exactly_the_written_units_split_at_the_maximum() {
        let mut map = UnitMap::new(200);
        map.set_range(3, 5);
        map.set_range(60, 10);
        map.set_range(199, 7);
        assert_eq!(map.runs(4), vec![(3, 4), (7, 1), (60, 4), (64, 4), (68, 2), (199, 1)]);
    }

    #[test]
    fn an_empty_map_has_no_runs() {
        assert!(UnitMap::new(1000).runs(16).is_empty());
    }
}
