//! NFSv3 file handles as this server makes them: opaque to clients (RFC 1813 §2.3.3), 36 bytes (well
//! under NFS3_FHSIZE, RFC 1813 §2.4), validated on every use.
//!
//! Layout (big-endian):
//!
//! | bytes  | field                                                                                   |
//! |--------|-----------------------------------------------------------------------------------------|
//! | 0      | layout version, [`HANDLE_VERSION`]                                                      |
//! | 1      | reserved, zero                                                                          |
//! | 2..4   | export index (position in the server's export list)                                     |
//! | 4..12  | export identity: for a backend whose files outlive the process (`dir:`), a value derived from the file system and the export root (`Backend::persistence`), the same after a restart; otherwise (`mem:`) random per [`crate::Server`], so handles of a previous run are stale |
//! | 12..20 | [`FileId::id`] (`dir:`: the inode number)                                               |
//! | 20..28 | [`FileId::generation`] (`dir:`: birth time and file type)                               |
//! | 28..36 | tag: SipHash-2-4 of bytes 0..28 under the server's [`HandleKey`]                        |
//!
//! The key is random per server unless an export persists; then it is read from (or created in) the state
//! directory (`crate::state`), so a restarted server accepts the handles its predecessor issued.
//!
//! Decoding answers NFS3ERR_BADHANDLE for anything malformed (length, version, reserved byte, tag) and
//! NFS3ERR_STALE for a handle whose export identity no served export has (a previous `mem:` instance, an
//! export no longer configured). A genuine handle whose export moved in the list (the configuration was
//! reordered) is served by the export with its identity. The backend turns a vanished [`FileId`] into
//! NFS3ERR_STALE. The tag keeps clients from forging handles for files they never looked up (which would
//! bypass directory permissions), and is checked before a backend sees the [`FileId`].
//!
//! NFSv4 adds handles of its own kind for the directories of the pseudo file system that leads to the
//! exports (`crate::v4`): byte 0 is [`PSEUDO_VERSION`], bytes 4..12 the node's id (a hash of its path,
//! the same after a restart with the same exports), the other bytes zero but the tag. NFSv3 refuses them
//! as bad handles; NFSv4 tells the two kinds apart with [`HandleCodec::decode_any`].

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nfs3_proto::{FileHandle3, NfsErr3};

use crate::backend::FileId;
use crate::siphash::siphash24;

/// Bytes in every handle this server issues.
pub(crate) const HANDLE_LEN: usize = 36;
/// The layout version in byte 0 (1 was the 32-byte layout with a random per-run key).
pub(crate) const HANDLE_VERSION: u8 = 2;
const TAGGED_LEN: usize = 28;
/// Byte 0 of a handle of the NFSv4 pseudo file system (a directory on the way to the exports).
pub(crate) const PSEUDO_VERSION: u8 = 0x80 | HANDLE_VERSION;

/// The secret that tags handles (128 bits, SipHash-2-4's key).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct HandleKey(pub(crate) [u8; 16]);

impl std::fmt::Debug for HandleKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HandleKey(..)")
    }
}

impl HandleKey {
    /// A key for this process only (no export persists).
    pub(crate) fn random() -> Self {
        let (a, b) = (random_u64(), random_u64());
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&a.to_le_bytes());
        key[8..].copy_from_slice(&b.to_le_bytes());
        HandleKey(key)
    }
}

/// A decoded, verified handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HandleParts {
    pub export: u16,
    pub file: FileId,
}

/// A verified handle of either kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnyHandle {
    /// A file of an export.
    File(HandleParts),
    /// A directory of the NFSv4 pseudo file system, by node id.
    Pseudo(u64),
}

/// Makes and checks handles for one server.
#[derive(Debug, Clone)]
pub(crate) struct HandleCodec {
    key: HandleKey,
    /// Export identity by export index.
    identities: Vec<u64>,
}

impl HandleCodec {
    /// A codec tagging with `key` for exports whose identities are `identities` (by export index).
    pub(crate) fn new(key: HandleKey, identities: Vec<u64>) -> Self {
        HandleCodec { key, identities }
    }

    pub(crate) fn encode(&self, export: u16, file: FileId) -> FileHandle3 {
        let identity = self.identities.get(usize::from(export)).copied().unwrap_or_default();
        let mut bytes = [0u8; HANDLE_LEN];
        bytes[0] = HANDLE_VERSION;
        bytes[2..4].copy_from_slice(&export.to_be_bytes());
        bytes[4..12].copy_from_slice(&identity.to_be_bytes());
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
        let index = u16::from_be_bytes([bytes[2], bytes[3]]);
        let identity = be_u64(&bytes[4..12]);
        let here = self.identities.get(usize::from(index)) == Some(&identity);
        let Some(export) = (if here { Some(index) } else { self.export_with(identity) }) else {
            // A handle of a previous `mem:` instance or of an export no longer served: the object is gone.
            return Err(NfsErr3::Stale);
        };
        if be_u64(&bytes[TAGGED_LEN..]) != self.tag(&bytes[..TAGGED_LEN]) {
            return Err(NfsErr3::BadHandle);
        }
        let file = FileId { id: be_u64(&bytes[12..20]), generation: be_u64(&bytes[20..28]) };
        Ok(HandleParts { export, file })
    }

    /// The handle of the pseudo file system's node `node` (NFSv4).
    pub(crate) fn encode_pseudo(&self, node: u64) -> FileHandle3 {
        let mut bytes = [0u8; HANDLE_LEN];
        bytes[0] = PSEUDO_VERSION;
        bytes[4..12].copy_from_slice(&node.to_be_bytes());
        let tag = self.tag(&bytes[..TAGGED_LEN]);
        bytes[TAGGED_LEN..].copy_from_slice(&tag.to_be_bytes());
        FileHandle3::new(&bytes).unwrap_or_default()
    }

    /// Verifies a handle of either kind (NFSv4's PUTFH): BADHANDLE for anything malformed or forged,
    /// STALE for a file of an export no longer served.
    pub(crate) fn decode_any(&self, bytes: &[u8]) -> Result<AnyHandle, NfsErr3> {
        let fh = FileHandle3::new(bytes).ok_or(NfsErr3::BadHandle)?;
        let Some(&PSEUDO_VERSION) = bytes.first() else { return self.decode(&fh).map(AnyHandle::File) };
        let bytes: &[u8; HANDLE_LEN] = bytes.try_into().map_err(|_| NfsErr3::BadHandle)?;
        let zeros = bytes[1..4].iter().chain(&bytes[12..TAGGED_LEN]).all(|&b| b == 0);
        if !zeros || be_u64(&bytes[TAGGED_LEN..]) != self.tag(&bytes[..TAGGED_LEN]) {
            return Err(NfsErr3::BadHandle);
        }
        Ok(AnyHandle::Pseudo(be_u64(&bytes[4..12])))
    }

    /// The identity of export `export` (what its handles carry; random per run for `mem:`).
    pub(crate) fn identity(&self, export: u16) -> u64 {
        self.identities.get(usize::from(export)).copied().unwrap_or_default()
    }

    /// A keyed digest of `data`: the same for the same key (a persistent server's state directory) and
    /// unguessable without it.
    pub(crate) fn digest(&self, data: &[u8]) -> u64 {
        self.tag(data)
    }

    /// The first export with `identity` (after the export list was reordered).
    fn export_with(&self, identity: u64) -> Option<u16> {
        let position = self.identities.iter().position(|&i| i == identity)?;
        u16::try_from(position).ok()
    }

    fn tag(&self, bytes: &[u8]) -> u64 {
        siphash24(&self.key.0, bytes)
    }
}

fn be_u64(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    for (dst, src) in word.iter_mut().zip(bytes) {
        *dst = *src;
    }
    u64::from_be_bytes(word)
}

/// A value that differs between calls, in this process and across restarts: the kernel's random
/// generator, mixed with std's randomly keyed hasher over the clock and a process-wide counter (so a
/// failing getrandom still gives distinct values).
pub(crate) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut entropy = [0u8; 8];
    let _ = rustix::rand::getrandom(&mut entropy, rustix::rand::GetRandomFlags::empty());
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    RandomState::new().hash_one((nanos, n, std::process::id())) ^ u64::from_le_bytes(entropy)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fid(id: u64, generation: u64) -> FileId {
        FileId { id, generation }
    }

    fn codec(exports: usize) -> HandleCodec {
        HandleCodec::new(HandleKey::random(), (0..exports).map(|_| random_u64()).collect())
    }

    #[test]
    fn encoded_handles_decode_to_their_parts() {
        let codec = codec(8);
        let fh = codec.encode(7, fid(u64::MAX, 3));
        assert_eq!(fh.len(), HANDLE_LEN);
        assert_eq!(codec.decode(&fh), Ok(HandleParts { export: 7, file: fid(u64::MAX, 3) }));
    }

    #[test]
    fn handles_of_another_identity_are_stale() {
        let (a, b) = (codec(1), codec(1));
        assert_eq!(b.decode(&a.encode(0, fid(1, 0))), Err(NfsErr3::Stale));
    }

    #[test]
    fn the_same_key_and_identities_accept_each_others_handles() {
        let key = HandleKey::random();
        let (a, b) = (HandleCodec::new(key.clone(), vec![5, 6]), HandleCodec::new(key, vec![5, 6]));
        let fh = a.encode(1, fid(9, 9));
        assert_eq!(b.decode(&fh), Ok(HandleParts { export: 1, file: fid(9, 9) }));
        assert_eq!(a.encode(1, fid(9, 9)), b.encode(1, fid(9, 9)), "handles are a pure function of key and parts");
    }

    #[test]
    fn a_reordered_export_list_still_finds_the_export_by_identity() {
        let key = HandleKey::random();
        let before = HandleCodec::new(key.clone(), vec![5, 6]);
        let after = HandleCodec::new(key, vec![6, 5]);
        assert_eq!(after.decode(&before.encode(1, fid(3, 4))), Ok(HandleParts { export: 0, file: fid(3, 4) }));
    }

    #[test]
    fn another_key_is_a_bad_handle() {
        let a = HandleCodec::new(HandleKey::random(), vec![5]);
        let b = HandleCodec::new(HandleKey::random(), vec![5]);
        assert_eq!(b.decode(&a.encode(0, fid(1, 1))), Err(NfsErr3::BadHandle));
    }

    #[test]
    fn every_single_bit_flip_outside_the_identity_is_a_bad_handle() {
        let codec = codec(2);
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
    fn bit_flips_in_the_identity_are_stale() {
        let codec = codec(1);
        let mut bytes = codec.encode(0, fid(42, 9)).as_bytes().to_vec();
        bytes[5] ^= 0x10;
        let fh = FileHandle3::new(&bytes).unwrap_or_default();
        assert_eq!(codec.decode(&fh), Err(NfsErr3::Stale));
    }

    #[test]
    fn pseudo_handles_decode_to_their_node_and_are_bad_handles_for_nfsv3() {
        let codec = codec(1);
        let fh = codec.encode_pseudo(0xdead_beef);
        assert_eq!(codec.decode_any(fh.as_bytes()), Ok(AnyHandle::Pseudo(0xdead_beef)));
        assert_eq!(codec.decode(&fh), Err(NfsErr3::BadHandle));
        let file = codec.encode(0, fid(7, 1));
        assert_eq!(codec.decode_any(file.as_bytes()), Ok(AnyHandle::File(HandleParts { export: 0, file: fid(7, 1) })));
    }

    #[test]
    fn forged_pseudo_handles_are_bad_handles() {
        let codec = codec(1);
        let good = codec.encode_pseudo(42).as_bytes().to_vec();
        for byte in 1..HANDLE_LEN {
            let mut bytes = good.clone();
            bytes[byte] ^= 0x01;
            assert_eq!(codec.decode_any(&bytes), Err(NfsErr3::BadHandle), "byte {byte}");
        }
        assert_eq!(codec.decode_any(&good[..35]), Err(NfsErr3::BadHandle));
        assert_eq!(codec.decode_any(&[0u8; 100]), Err(NfsErr3::BadHandle), "longer than any handle");
    }

    #[test]
    fn handles_of_the_wrong_length_are_bad_handles() {
        let codec = codec(1);
        let good = codec.encode(0, fid(5, 0));
        for len in [0, 1, 32, 35, 37, 64] {
            let mut bytes = good.as_bytes().to_vec();
            bytes.resize(len, 0);
            let fh = FileHandle3::new(&bytes).unwrap_or_default();
            assert_eq!(codec.decode(&fh), Err(NfsErr3::BadHandle), "length {len}");
        }
    }
}
