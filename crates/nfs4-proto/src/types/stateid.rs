//! `stateid4` (RFC 8881 §8.2) and its special values (§8.2.3).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::basic::NFS4_OTHER_SIZE;
use super::fixed;

/// `stateid4` (RFC 8881 §8.2.2): a sequence number and twelve bytes the server chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Stateid4 {
    pub seqid: u32,
    pub other: [u8; NFS4_OTHER_SIZE],
}

impl Stateid4 {
    /// RFC 8881 §8.2.3: `seqid` and `other` all zero — the anonymous stateid (I/O with no open state).
    pub const ANONYMOUS: Stateid4 = Stateid4 { seqid: 0, other: [0; NFS4_OTHER_SIZE] };
    /// RFC 8881 §8.2.3: `seqid` and `other` all ones — the READ bypass stateid.
    pub const BYPASS: Stateid4 = Stateid4 { seqid: u32::MAX, other: [0xff; NFS4_OTHER_SIZE] };
    /// RFC 8881 §8.2.3: `seqid` one and `other` zero — the current stateid of the COMPOUND.
    pub const CURRENT: Stateid4 = Stateid4 { seqid: 1, other: [0; NFS4_OTHER_SIZE] };
    /// RFC 8881 §8.2.3: `seqid` NFS4_UINT32_MAX and `other` zero — defined to be invalid.
    pub const INVALID: Stateid4 = Stateid4 { seqid: u32::MAX, other: [0; NFS4_OTHER_SIZE] };

    pub const fn new(seqid: u32, other: [u8; NFS4_OTHER_SIZE]) -> Self {
        Stateid4 { seqid, other }
    }

    /// RFC 8881 §8.2.3: a stateid is special when `other` is all zeros or all ones.
    pub fn is_special(&self) -> bool {
        self.other == [0; NFS4_OTHER_SIZE] || self.other == [0xff; NFS4_OTHER_SIZE]
    }

    pub fn is_anonymous(&self) -> bool {
        *self == Self::ANONYMOUS
    }

    pub fn is_bypass(&self) -> bool {
        *self == Self::BYPASS
    }

    pub fn is_current(&self) -> bool {
        *self == Self::CURRENT
    }

    pub fn is_invalid(&self) -> bool {
        *self == Self::INVALID
    }
}

impl XdrEncode for Stateid4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.seqid);
        w.put_opaque_fixed(&self.other);
    }
}

impl Stateid4 {
    /// A stateid from its 16 bytes on the wire.
    pub(crate) fn from_wire(b: &[u8; 16]) -> Self {
        Stateid4 { seqid: fixed::word(b, 0), other: fixed::bytes(b, 4) }
    }
}

impl<'a> XdrDecode<'a> for Stateid4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        if let Some(b) = fixed::peek::<16>(r) {
            fixed::consume::<16>(r);
            return Ok(Stateid4::from_wire(b));
        }
        Ok(Stateid4 { seqid: r.get_u32()?, other: r.get_array()? })
    }
}
