//! Write buffers: fio fills its buffers with random data once and reuses them (`refill_buffers` off), so
//! a write costs no generation time; nfsbench does the same with one shared, reference-counted buffer.
//! With `refill_buffers` every write is filled afresh ([`refill`]) before it is submitted, as fio does.

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

/// Fill `buf` with fresh random bytes for one write under `refill_buffers`, from the clone's own buffer
/// generator (a stream apart from the one choosing offsets, as fio keeps `buf_state` apart, so offsets
/// do not change with the option, and repeatable under `randrepeat` as fio's are).
///
/// Cost: this runs once per write submit, before the submission clock starts (fio's `get_io_u` fills
/// before `start_time` too), so it lowers the rate a clone can reach, not slat — fio pays the same.
/// WyRand (`fastrand`) takes one 64×64→128-bit multiply per 8 bytes: about 9.5 GB/s on one EPYC core
/// (measured), i.e. ≈0.4 µs per 4 KiB write and ≈0.1 ms per 1 MiB write. fio's own `__fill_random_buf`
/// (a multiplicative chain per 8 bytes) is cheaper still but leaves low bits with short periods; the
/// splitmix64 of [`random_bytes`] is stronger but runs at less than half this speed.
pub fn refill(buf: &mut [u8], rng: &mut fastrand::Rng) {
    rng.fill(buf);
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

    #[test]
    fn each_refill_gives_new_bytes_and_the_same_seed_repeats_them() {
        let (mut a, mut b) = (fastrand::Rng::with_seed(7), fastrand::Rng::with_seed(7));
        let (mut first, mut second, mut again) = ([0u8; 4099], [0u8; 4099], [0u8; 4099]);
        refill(&mut first, &mut a);
        refill(&mut second, &mut a);
        refill(&mut again, &mut b);
        assert_ne!(first, second, "a second refill is not the first one again");
        assert_eq!(first, again, "repeatable, as fio's buffers are under randrepeat");
        assert!(first.windows(2).filter(|w| w[0] != w[1]).count() > 4000);
        assert_ne!(first[4096..], [0u8; 3], "the tail past the last full word is filled too");
    }
}
