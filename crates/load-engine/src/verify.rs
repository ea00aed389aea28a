//! Self-checking data for `verify=crc32c|md5`, in the spirit of fio's verify headers: every verify unit
//! (`verify_interval` bytes, by default the smallest block size) starts with a header that names where
//! it belongs and carries a digest of the rest; the rest is a pseudo-random pattern from a seed in the
//! header. A reader needs nothing but the bytes and the offset it asked for, so data written by one
//! `nfsbench run` is checked by the next.
//!
//! Header (big-endian): magic `nfsb` | unit length u32 | file offset u64 | seed u64 | kind u32 |
//! crc32c of the preceding 28 bytes | digest (16 bytes: md5, or crc32c and zeros). A unit shorter than
//! the header (a file's tail) holds only pattern bytes derived from its offset.

use crate::permutation::splitmix64;
use md5::{Digest, Md5};

const MAGIC: u32 = 0x6e66_7362;
/// Bytes of header at the start of each unit.
pub const HEADER_LEN: usize = 48;

/// The digest a unit carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VerifyKind {
    Crc32c,
    Md5,
}

impl VerifyKind {
    fn code(self) -> u32 {
        match self {
            VerifyKind::Crc32c => 1,
            VerifyKind::Md5 => 2,
        }
    }

    fn digest(self, data: &[u8]) -> [u8; 16] {
        let mut out = [0u8; 16];
        match self {
            VerifyKind::Crc32c => out[..4].copy_from_slice(&crc32c::crc32c(data).to_be_bytes()),
            VerifyKind::Md5 => out.copy_from_slice(&Md5::digest(data)),
        }
        out
    }
}

/// A unit that failed its check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("verify failed at offset {offset} (unit of {len} bytes): {what}")]
pub struct VerifyFailure {
    pub offset: u64,
    pub len: u64,
    pub what: String,
}

/// Writes and checks verify units of one job.
#[derive(Debug, Clone, Copy)]
pub struct Verifier {
    kind: VerifyKind,
    interval: u64,
}

impl Verifier {
    /// A verifier with units of `interval` bytes (at least the header's length).
    pub fn new(kind: VerifyKind, interval: u64) -> Self {
        Verifier { kind, interval: interval.max(HEADER_LEN as u64) }
    }

    /// The unit length.
    pub fn interval(&self) -> u64 {
        self.interval
    }

    /// Fill `buf`, which lands at `file_offset`, with units; `seed` varies the pattern between writes.
    pub fn fill(&self, buf: &mut [u8], file_offset: u64, seed: u64) {
        for (i, unit) in buf.chunks_mut(self.interval as usize).enumerate() {
            let offset = file_offset + i as u64 * self.interval;
            self.fill_unit(unit, offset, splitmix64(seed ^ offset));
        }
    }

    /// Check `data`, read from `file_offset`, unit by unit; the first bad unit is reported.
    pub fn check(&self, data: &[u8], file_offset: u64) -> Result<(), VerifyFailure> {
        for (i, unit) in data.chunks(self.interval as usize).enumerate() {
            self.check_unit(unit, file_offset + i as u64 * self.interval)?;
        }
        Ok(())
    }

    fn fill_unit(&self, unit: &mut [u8], offset: u64, seed: u64) {
        if unit.len() < HEADER_LEN {
            fill_pattern(unit, offset);
            return;
        }
        let (header, payload) = unit.split_at_mut(HEADER_LEN);
        fill_pattern(payload, seed);
        header[0..4].copy_from_slice(&MAGIC.to_be_bytes());
        header[4..8].copy_from_slice(&(unit_len(payload) as u32).to_be_bytes());
        header[8..16].copy_from_slice(&offset.to_be_bytes());
        header[16..24].copy_from_slice(&seed.to_be_bytes());
        header[24..28].copy_from_slice(&self.kind.code().to_be_bytes());
        let header_crc = crc32c::crc32c(&header[..28]);
        header[28..32].copy_from_slice(&header_crc.to_be_bytes());
        header[32..48].copy_from_slice(&self.kind.digest(payload));
    }

    fn check_unit(&self, unit: &[u8], offset: u64) -> Result<(), VerifyFailure> {
        let fail = |what: String| VerifyFailure { offset, len: unit.len() as u64, what };
        if unit.len() < HEADER_LEN {
            let mut expected = vec![0u8; unit.len()];
            fill_pattern(&mut expected, offset);
            return match unit.iter().zip(&expected).position(|(a, b)| a != b) {
                None => Ok(()),
                Some(at) => Err(fail(format!("tail pattern differs at byte {at}"))),
            };
        }
        let (header, payload) = unit.split_at(HEADER_LEN);
        let field = |range: std::ops::Range<usize>| header[range].iter().fold(0u64, |v, b| (v << 8) | u64::from(*b));
        if field(0..4) != u64::from(MAGIC) {
            return Err(fail(format!("no verify header (magic {:#010x}, want {MAGIC:#010x})", field(0..4))));
        }
        let header_crc = crc32c::crc32c(&header[..28]);
        if field(28..32) != u64::from(header_crc) {
            return Err(fail("header checksum mismatch".into()));
        }
        if field(8..16) != offset {
            return Err(fail(format!("header says offset {}: data is misplaced", field(8..16))));
        }
        if field(4..8) != unit.len() as u64 {
            return Err(fail(format!("header says a unit of {} bytes", field(4..8))));
        }
        if field(24..28) != u64::from(self.kind.code()) {
            let written = match field(24..28) {
                1 => "crc32c",
                2 => "md5",
                _ => "an unknown kind",
            };
            return Err(fail(format!("written with verify={written}, checked as {:?}", self.kind)));
        }
        let digest = self.kind.digest(payload);
        if header[32..48] != digest {
            return Err(fail(format!("{:?} digest mismatch in the data", self.kind)));
        }
        Ok(())
    }
}

fn unit_len(payload: &[u8]) -> usize {
    payload.len() + HEADER_LEN
}

/// Pseudo-random bytes from `seed`, 8 at a time.
fn fill_pattern(buf: &mut [u8], seed: u64) {
    for (i, chunk) in buf.chunks_mut(8).enumerate() {
        let word = splitmix64(seed.wrapping_add(i as u64)).to_le_bytes();
        chunk.copy_from_slice(&word[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(kind: VerifyKind, len: usize, offset: u64) -> (Verifier, Vec<u8>) {
        let v = Verifier::new(kind, 4096);
        let mut buf = vec![0u8; len];
        v.fill(&mut buf, offset, 77);
        (v, buf)
    }

    #[test]
    fn filled_blocks_pass_their_check() {
        for kind in [VerifyKind::Crc32c, VerifyKind::Md5] {
            let (v, buf) = filled(kind, 65536 + 100, 1 << 30);
            assert_eq!(v.check(&buf, 1 << 30), Ok(()));
        }
    }

    #[test]
    fn one_flipped_byte_anywhere_is_caught() {
        let (v, buf) = filled(VerifyKind::Crc32c, 16384, 0);
        for at in [0, 5, 30, 47, 48, 4095, 4096, 9000, 16383] {
            let mut bad = buf.clone();
            bad[at] ^= 0x01;
            let err = v.check(&bad, 0).expect_err("a flipped byte must fail");
            assert_eq!(err.offset, (at as u64 / 4096) * 4096, "flip at {at}");
        }
    }

    #[test]
    fn data_read_from_the_wrong_offset_is_reported_as_misplaced() {
        let (v, buf) = filled(VerifyKind::Md5, 8192, 4096);
        let err = v.check(&buf, 8192).expect_err("misplaced data must fail");
        assert!(err.what.contains("misplaced"), "{err}");
    }

    #[test]
    fn zeros_are_not_mistaken_for_verified_data() {
        let v = Verifier::new(VerifyKind::Crc32c, 4096);
        let err = v.check(&[0u8; 4096], 0).expect_err("zeros must fail");
        assert!(err.what.contains("no verify header"), "{err}");
    }

    #[test]
    fn the_kind_written_must_match_the_kind_checked() {
        let (_, buf) = filled(VerifyKind::Crc32c, 4096, 0);
        let md5 = Verifier::new(VerifyKind::Md5, 4096);
        assert!(md5.check(&buf, 0).is_err());
    }
}
