//! Write buffers: fio fills its buffers with random data once and reuses them (`refill_buffers` off), so
//! a write costs no generation time; nfsbench does the same with one shared, reference-counted buffer.

use crate::permutation::splitmix64;

/// `len` pseudo-random bytes from `seed` (incompressible, so no layer can shortcut them).
pub fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut buf = vec![0u8; len];
    for (i, chunk) in buf.chunks_mut(8).enumerate() {
        let word = splitmix64(seed ^ (i as u64).wrapping_mul(0x2545_F491_4F6C_DD1D)).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_bytes_have_the_asked_length_and_are_not_constant() {
        let buf = random_bytes(4099, 1);
        assert_eq!(buf.len(), 4099);
        assert!(buf.windows(2).filter(|w| w[0] != w[1]).count() > 4000);
    }
}
