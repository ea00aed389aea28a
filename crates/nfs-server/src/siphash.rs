//! SipHash-2-4 (Aumasson & Bernstein, "SipHash: a fast short-input PRF", 2012) with a caller-chosen
//! 128-bit key, from the `siphasher` crate: the file-handle tag needs a key that can be stored and read
//! back, which std's hashers (random keys, or a deprecated keyed SipHasher) do not offer.

use siphasher::sip::SipHasher24;

/// SipHash-2-4 of `data` under the 16-byte `key` (k0 = bytes 0..8, k1 = bytes 8..16, little-endian).
pub(crate) fn siphash24(key: &[u8; 16], data: &[u8]) -> u64 {
    SipHasher24::new_with_key(key).hash(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> [u8; 16] {
        std::array::from_fn(|i| i as u8)
    }

    #[test]
    fn matches_the_reference_vectors() {
        // The paper's appendix A example (15 bytes 00..0e) and the reference vectors.c outputs.
        let message: Vec<u8> = (0..15).collect();
        assert_eq!(siphash24(&key(), &message), 0xa129_ca61_49be_45e5);
        assert_eq!(siphash24(&key(), &[]), 0x726f_db47_dd0e_0e31);
        assert_eq!(siphash24(&key(), &[0]), 0x74f8_39c5_93dc_67fd);
        let eight: Vec<u8> = (0..8).collect();
        assert_eq!(siphash24(&key(), &eight), 0x93f5_f579_9a93_2462);
    }
}
