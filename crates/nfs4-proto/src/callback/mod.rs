//! The callback program (RFC 8881 §20, RFC 7862 §16): the server calls the client over the backchannel
//! with the program number the client chose in CREATE_SESSION's `csa_cb_program` (or BACKCHANNEL_CTL),
//! version [`NFS4_CALLBACK_VERSION`], procedure [`CB_NULL`] or [`CB_COMPOUND`].
//!
//! - [`CbOpNum4`] numbers the callback operations; [`CbArgOp`] / [`CbResOp`] are `nfs_cb_argop4` /
//!   `nfs_cb_resop4` ([`table`]).
//! - [`CbCompound4Args`] / [`CbCompound4Res`] are whole bodies ([`compound`]); a client answering
//!   callbacks decodes incrementally with [`CompoundDecoder::new_callback`](crate::CompoundDecoder), which
//!   reports unknown operations as CB_ILLEGAL at their index; a server checks a reply with
//!   [`CbCompound4Res::decode_reply`].

pub mod compound;
pub mod ops;
pub mod table;

pub use compound::{CbCompound4Args, CbCompound4Res};
pub use ops::*;
pub use table::{CbArgOp, CbResOp};

/// RFC 8881 §20: the callback program's version.
pub const NFS4_CALLBACK_VERSION: u32 = 1;
/// RFC 8881 §20: procedure 0, the null procedure.
pub const CB_NULL: u32 = 0;
/// RFC 8881 §20: procedure 1, CB_COMPOUND.
pub const CB_COMPOUND: u32 = 1;

xdr_enum! {
    /// `nfs_cb_opnum4` (RFC 8881 §20, RFC 7862 §16).
    pub enum CbOpNum4 as "nfs_cb_opnum4" {
        CbGetattr = 3 => "CB_GETATTR",
        CbRecall = 4 => "CB_RECALL",
        CbLayoutrecall = 5 => "CB_LAYOUTRECALL",
        CbNotify = 6 => "CB_NOTIFY",
        CbPushDeleg = 7 => "CB_PUSH_DELEG",
        CbRecallAny = 8 => "CB_RECALL_ANY",
        CbRecallableObjAvail = 9 => "CB_RECALLABLE_OBJ_AVAIL",
        CbRecallSlot = 10 => "CB_RECALL_SLOT",
        CbSequence = 11 => "CB_SEQUENCE",
        CbWantsCancelled = 12 => "CB_WANTS_CANCELLED",
        CbNotifyLock = 13 => "CB_NOTIFY_LOCK",
        CbNotifyDeviceid = 14 => "CB_NOTIFY_DEVICEID",
        CbOffload = 15 => "CB_OFFLOAD",
        Illegal = 10044 => "CB_ILLEGAL",
    }
}

impl CbOpNum4 {
    /// The lowest minor version that defines the operation: CB_GETATTR and CB_RECALL are v4.0's,
    /// CB_OFFLOAD is v4.2's (RFC 7862 §16), the rest v4.1's.
    pub const fn minor_version(self) -> u32 {
        match self.as_u32() {
            3 | 4 => 0,
            15 => 2,
            _ => 1,
        }
    }
}

/// The RFC name of callback operation `op`, `"UNKNOWN"` when undefined.
pub const fn cb_op_name(op: u32) -> &'static str {
    match CbOpNum4::from_u32(op) {
        Some(o) => o.name(),
        None => "UNKNOWN",
    }
}
