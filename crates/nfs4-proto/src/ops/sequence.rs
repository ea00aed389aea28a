//! SEQUENCE (RFC 8881 §18.46): the first operation of every session COMPOUND — slot, sequence id and the
//! server's status flags.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs4Result;
use crate::types::{fixed, SequenceId4, SessionId4, SlotId4};

/// RFC 8881 §18.46.3: `sr_status_flags` bits.
pub const SEQ4_STATUS_CB_PATH_DOWN: u32 = 0x0000_0001;
pub const SEQ4_STATUS_CB_GSS_CONTEXTS_EXPIRING: u32 = 0x0000_0002;
pub const SEQ4_STATUS_CB_GSS_CONTEXTS_EXPIRED: u32 = 0x0000_0004;
pub const SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED: u32 = 0x0000_0008;
pub const SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED: u32 = 0x0000_0010;
pub const SEQ4_STATUS_ADMIN_STATE_REVOKED: u32 = 0x0000_0020;
pub const SEQ4_STATUS_RECALLABLE_STATE_REVOKED: u32 = 0x0000_0040;
pub const SEQ4_STATUS_LEASE_MOVED: u32 = 0x0000_0080;
pub const SEQ4_STATUS_RESTART_RECLAIM_NEEDED: u32 = 0x0000_0100;
pub const SEQ4_STATUS_CB_PATH_DOWN_SESSION: u32 = 0x0000_0200;
pub const SEQ4_STATUS_BACKCHANNEL_FAULT: u32 = 0x0000_0400;
pub const SEQ4_STATUS_DEVID_CHANGED: u32 = 0x0000_0800;
pub const SEQ4_STATUS_DEVID_DELETED: u32 = 0x0000_1000;

/// `SEQUENCE4args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SequenceArgs {
    pub sessionid: SessionId4,
    pub sequenceid: SequenceId4,
    pub slotid: SlotId4,
    pub highest_slotid: SlotId4,
    pub cachethis: bool,
}

impl XdrEncode for SequenceArgs {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.sessionid.encode(w);
        w.put_u32(self.sequenceid);
        w.put_u32(self.slotid);
        w.put_u32(self.highest_slotid);
        w.put_bool(self.cachethis);
    }
}

impl<'a> XdrDecode<'a> for SequenceArgs {
    /// 32 bytes read at once (`types/fixed.rs`, every COMPOUND of a session starts with these); field by
    /// field when fewer remain or sa_cachethis is no boolean, for the error.
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        if let Some(b) = fixed::peek::<32>(r).filter(|b| fixed::word(b, 28) <= 1) {
            fixed::consume::<32>(r);
            return Ok(SequenceArgs {
                sessionid: SessionId4(fixed::bytes(b, 0)),
                sequenceid: fixed::word(b, 16),
                slotid: fixed::word(b, 20),
                highest_slotid: fixed::word(b, 24),
                cachethis: fixed::word(b, 28) == 1,
            });
        }
        Ok(SequenceArgs {
            sessionid: SessionId4::decode(r)?,
            sequenceid: r.get_u32()?,
            slotid: r.get_u32()?,
            highest_slotid: r.get_u32()?,
            cachethis: r.get_bool()?,
        })
    }
}

xdr_struct! {
    /// `SEQUENCE4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SequenceResOk {
        pub sessionid: SessionId4,
        pub sequenceid: SequenceId4,
        pub slotid: SlotId4,
        pub highest_slotid: SlotId4,
        pub target_highest_slotid: SlotId4,
        pub status_flags: u32,
    }
}

/// `SEQUENCE4res`.
pub type SequenceRes = Nfs4Result<SequenceResOk>;
