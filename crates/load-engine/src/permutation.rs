//! A keyed pseudo-random permutation of `0..n` that needs no memory: what fio's random map gives
//! (every block visited once per pass, in random order) without a bitmap per file.
//!
//! A four-round Feistel network over the smallest even number of bits that covers `n` is a bijection on
//! that power-of-two domain; "cycle walking" (applying it again until the value falls below `n`) makes it
//! a bijection on `0..n`. The domain is less than 4·n, so a lookup takes fewer than four walks on average.

/// The permutation; `at(i)` for `i` in `0..len()` visits every value of `0..len()` exactly once.
#[derive(Debug, Clone)]
pub struct Permutation {
    len: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    /// A permutation of `0..len` chosen by `seed`.
    pub fn new(len: u64, seed: u64) -> Self {
        let bits = 64 - len.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut state = seed;
        let keys = [(); 4].map(|_| {
            state = splitmix64(state);
            state
        });
        Permutation { len, half_bits, keys }
    }

    /// Number of values permuted.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when there is nothing to permute.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `index`-th value of the permutation (`index` must be below `len()`; larger indexes wrap).
    pub fn at(&self, index: u64) -> u64 {
        if self.len <= 1 {
            return 0;
        }
        let mut value = index % self.len;
        loop {
            value = self.feistel(value);
            if value < self.len {
                return value;
            }
        }
    }

    fn feistel(&self, value: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let mut left = value >> self.half_bits;
        let mut right = value & mask;
        for key in self.keys {
            let next = left ^ (splitmix64(right ^ key) & mask);
            left = right;
            right = next;
        }
        (left << self.half_bits) | right
    }
}

/// The splitmix64 finaliser: a cheap, well-mixed 64-bit hash.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visits_each_once(len: u64, seed: u64) {
        let p = Permutation::new(len, seed);
        let mut seen = vec![false; len as usize];
        for i in 0..len {
            let v = p.at(i) as usize;
            assert!(!seen[v], "value {v} visited twice for len {len}");
            seen[v] = true;
        }
    }

    #[test]
    fn visits_every_value_exactly_once_for_awkward_lengths() {
        for len in [1, 2, 3, 5, 7, 8, 9, 100, 1000, 4097, 65_537] {
            visits_each_once(len, 42);
        }
    }

    #[test]
    fn different_seeds_give_different_orders() {
        let a: Vec<u64> = (0..64).map(|i| Permutation::new(64, 1).at(i)).collect();
        let b: Vec<u64> = (0..64).map(|i| Permutation::new(64, 2).at(i)).collect();
        assert_ne!(a, b);
    }

    #[test]
    fn order_is_not_the_identity() {
        let p = Permutation::new(1 << 20, 7);
        let in_place = (0..1000).filter(|&i| p.at(i) == i).count();
        assert!(in_place < 10, "{in_place} of 1000 values stayed in place");
    }
}
