//! `nfs_fh4` (RFC 8881 §4): an opaque file handle of at most [`NFS4_FHSIZE`] bytes, held inline.

use std::fmt;

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::basic::NFS4_FHSIZE;

/// `nfs_fh4` (RFC 8881 §3.2): `opaque nfs_fh4<NFS4_FHSIZE>`, stored inline so it can be kept and hashed
/// without a lifetime. The bytes past `len` are always zero, so derived equality and hashing are exact.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NfsFh4 {
    len: u8,
    bytes: [u8; NFS4_FHSIZE],
}

impl NfsFh4 {
    /// A handle holding `data`; `None` when longer than [`NFS4_FHSIZE`].
    pub fn new(data: &[u8]) -> Option<Self> {
        let mut bytes = [0u8; NFS4_FHSIZE];
        bytes.get_mut(..data.len())?.copy_from_slice(data);
        Some(NfsFh4 { len: data.len() as u8, bytes })
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&self.bytes)
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for NfsFh4 {
    /// The empty handle.
    fn default() -> Self {
        NfsFh4 { len: 0, bytes: [0; NFS4_FHSIZE] }
    }
}

impl fmt::Debug for NfsFh4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NfsFh4(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

impl XdrEncode for NfsFh4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.as_bytes());
    }
}

impl<'a> XdrDecode<'a> for NfsFh4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 8881 §4.2.1: a file handle is at most NFS4_FHSIZE (128) bytes.
        let data = r.get_opaque("nfs_fh4", NFS4_FHSIZE as u32)?;
        NfsFh4::new(data).ok_or_else(|| r.invalid("nfs_fh4"))
    }
}
