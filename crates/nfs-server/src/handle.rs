//! NFSv3 file handles as this server makes them: opaque to clients (RFC 1813 §2.3.3), 32 bytes (well
//! under NFS3_FHSIZE, RFC 1813 §2.4), validated on every use.
//!
//! Layout (big-endian):
//!
//! | bytes  | field                                                                  |
//! |--------|------------------------------------------------------------------------|
//! | 0      | layout version, [`HANDLE_VERSION`]                                     |
//! | 1      | reserved, zero                                                         |
//! | 2..4   | export index (position in the server's export list)                    |
//! | 4..12  | server instance: random per [`crate::Server`], so handles of a previous run are stale |
//! | 12..20 | [`FileId::id`]                                                         |
//! | 20..28 | [`FileId::generation`]                                                 |
//! | 28..32 | tag: a keyed hash (SipHash, random key per instance) of bytes 0..28    |
//!
//! Decoding answers NFS3ERR_BADHANDLE for anything malformed (length, version, reserved byte, tag) and
//! NFS3ERR_STALE for a well-formed handle of another server instance; the caller turns an unknown export
//! index, and the backend a vanished [`FileId`], into NFS3ERR_STALE too. The tag keeps clients from
//! forging handles for files they never looked up (which would bypass directory permissions).

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nfs3_proto::{FileHandle3, NfsErr3};

use crate::backend::FileId;

/// Bytes in every handle this server issues.
pub(crate) const HANDLE_LEN: usize = 32;
/// The layout version in byte 0.
pub(crate) const HANDLE_VERSION: u8 = 1;
const TAGGED_LEN: usize = 28;

/// A decoded, verified handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HandleParts {
    pub export: u16,
    pub file: FileId,
}

/// Makes and checks handles for one server instance.
#[derive(Debug, Clone)]
pub(crate) struct HandleCodec {
    instance: u64,
    key: RandomState,
}

impl HandleCodec {
    /// A codec with a fresh random instance value and tag key.
    pub(crate) fn new() -> Self {
        let key = RandomState::new();
        HandleCodec { instance: random_u64(), key }
    }

    /// The instance value written into every handle.
    #[cfg(test)]
    pub(crate) fn instance(&self) -> u64 {
        self.instance
    }

    pub(crate) fn encode(&self, export: u16, file: FileId) -> FileHandle3 {
        let mut bytes = [0u8; HANDLE_LEN];
        bytes[0] = HANDLE_VERSION;
        bytes[2..4].copy_from_slice(&export.to_be_bytes());
        bytes[4..12].copy_from_slice(&self.instance.to_be_bytes());
        bytes[12..20].copy_from_slice(&file.id.to_be_bytes());
        bytes[20..28].copy_from_slice(&file.generation.to_be_bytes());
        let tag = self.tag(&bytes[..TAGGED_LEN]);
        bytes[TAGGED_LEN..].copy_from_slice(&tag.to_be_bytes());
        // HANDLE_LEN <= NFS3_FHSIZE, so this cannot fail; the fallback keeps the code panic-free.
        FileHandle3::new(&bytes).unwrap_or_default()
    }

    /// Verifies a handle from the wire (RFC 1813 §2.3.3: the server must check what clients hand back).
    pub(crate) fn decode(&self, fh: &FileHandle3) -> Result<HandleParts, NfsErr3> {
        let bytes: &[u8; HANDLE_LEN] = fh.as_bytes().try_into().map_err(|_| NfsErr3::BadHandle)?;
        if bytes[0] != HANDLE_VERSION || bytes[1] != 0 {
            return Err(NfsErr3::BadHandle);
        }
        if be_u64(&bytes[4..12]) != self.instance {
            // A handle from a previous run (or another server): the object it named is gone for us.
            return Err(NfsErr3::Stale);
        }
        let tag = u32::from_be_bytes([bytes[28], bytes[29], bytes[30], bytes[31]]);
        if tag != self.tag(&bytes[..TAGGED_LEN]) {
            return Err(NfsErr3::BadHandle);
        }
        let export = u16::from_be_bytes([bytes[2], bytes[3]]);
        let file = FileId { id: be_u64(&bytes[12..20]), generation: be_u64(&bytes[20..28]) };
        Ok(HandleParts { export, file })
    }

    fn tag(&self, bytes: &[u8]) -> u32 {
        let h = self.key.hash_one(bytes);
        (h ^ (h >> 32)) as u32
    }
}

fn be_u64(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    for (dst, src) in word.iter_mut().zip(bytes) {
        *dst = *src;
    }
    u64::from_be_bytes(word)
}

/// A value that differs between server instances, in this process and across restarts: std's randomly
/// keyed hasher over the clock and a process-wide counter.
pub(crate) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    RandomState::new().hash_one((nanos, n, std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fid(id: u64, generation: u64) -> FileId {
        FileId { id, generation }
    }

    #[test]
    fn encoded_handles_decode_to_their_parts() {
        let codec = HandleCodec::new();
        let fh = codec.encode(7, fid(u64::MAX, 3));
        assert_eq!(fh.len(), HANDLE_LEN);
        assert_eq!(codec.decode(&fh), Ok(HandleParts { export: 7, file: fid(u64::MAX, 3) }));
    }

    #[test]
    fn handles_of_another_instance_are_stale() {
        let (a, b) = (HandleCodec::new(), HandleCodec::new());
        assert_ne!(a.instance(), b.instance());
        assert_eq!(b.decode(&a.encode(0, fid(1, 0))), Err(NfsErr3::Stale));
    }

    #[test]
    fn every_single_bit_flip_outside_the_instance_is_a_bad_handle() {
        let codec = HandleCodec::new();
        let good = codec.encode(1, fid(42, 9));
        for byte in (0..HANDLE_LEN).filter(|b| !(4..12).contains(b)) {
            for bit in 0..8 {
                let mut bytes = good.as_bytes().to_vec();
                bytes[byte] ^= 1 << bit;
                let fh = FileHandle3::new(&bytes).unwrap_or_default();
                assert_eq!(codec.decode(&fh), Err(NfsErr3::BadHandle), "byte {byte} bit {bit}");
            }
        }
    }

    #[test]
    fn bit_flips_in_the_instance_are_stale() {
        let codec = HandleCodec::new();
        let mut bytes = codec.encode(1, fid(42, 9)).as_bytes().to_vec();
        bytes[5] ^= 0x10;
        let fh = FileHandle3::new(&bytes).unwrap_or_default();
        assert_eq!(codec.decode(&fh), Err(NfsErr3::Stale));
    }

    #[test]
    fn handles_of_the_wrong_length_are_bad_handles() {
        let codec = HandleCodec::new();
        let good = codec.encode(0, fid(5, 0));
        for len in [0, 1, 31, 33, 64] {
            let mut bytes = good.as_bytes().to_vec();
            bytes.resize(len, 0);
            let fh = FileHandle3::new(&bytes).unwrap_or_default();
            assert_eq!(codec.decode(&fh), Err(NfsErr3::BadHandle), "length {len}");
        }
    }
}
