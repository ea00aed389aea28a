//! SEQUENCE (RFC 8881 §18.46): the first operation of every session COMPOUND — slot, sequence id and the
//! server's status flags.

use crate::status::Nfs4Result;
use crate::types::{SequenceId4, SessionId4, SlotId4};

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

xdr_struct! {
    /// `SEQUENCE4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SequenceArgs {
        pub sessionid: SessionId4,
        pub sequenceid: SequenceId4,
        pub slotid: SlotId4,
        pub highest_slotid: SlotId4,
        pub cachethis: bool,
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
