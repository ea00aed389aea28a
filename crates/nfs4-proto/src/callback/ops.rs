//! The callback operations (RFC 8881 §20, RFC 7862 §16): arguments and results. All results but
//! CB_GETATTR's and CB_SEQUENCE's are a status alone.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::attr::RawFattr4;
use crate::ops::copy::WriteResponse4;
use crate::ops::delegation::OpenDelegation4;
use crate::ops::pnfs::LayoutIoMode4;
use crate::status::{Nfs4Result, NfsErr4, NfsStat4, Void};
use crate::types::{encode_array, Bitmap4, Fsid4, LayoutType4, Length4, LockOwner4, NfsFh4, Offset4, OpaqueBody};
use crate::types::{SequenceId4, SessionId4, SlotId4, Stateid4, SMALL_ARRAY_MAX};

/// Status-only callback results.
pub type CbStatusRes = Nfs4Result<Void>;

xdr_struct! {
    /// `CB_GETATTR4args` (RFC 8881 §20.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbGetattrArgs {
        pub fh: NfsFh4,
        pub attr_request: Bitmap4,
    }
}

xdr_struct! {
    /// `CB_GETATTR4resok`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct CbGetattrResOk<'a> {
        pub obj_attributes: RawFattr4<'a>,
    }
}

/// `CB_GETATTR4res`.
pub type CbGetattrRes<'a> = Nfs4Result<CbGetattrResOk<'a>>;

xdr_struct! {
    /// `CB_RECALL4args` (RFC 8881 §20.2).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbRecallArgs {
        pub stateid: Stateid4,
        pub truncate: bool,
        pub fh: NfsFh4,
    }
}

xdr_struct! {
    /// `layoutrecall_file4` (RFC 8881 §20.3.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutrecallFile4 {
        pub fh: NfsFh4,
        pub offset: Offset4,
        pub length: Length4,
        pub stateid: Stateid4,
    }
}

/// `layoutrecall4` (RFC 8881 §20.3.1): switched on `layoutrecall_type4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layoutrecall4 {
    /// LAYOUTRECALL4_FILE (1).
    File(LayoutrecallFile4),
    /// LAYOUTRECALL4_FSID (2).
    Fsid(Fsid4),
    /// LAYOUTRECALL4_ALL (3).
    All,
}

impl XdrEncode for Layoutrecall4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Layoutrecall4::File(f) => {
                w.put_u32(1);
                f.encode(w);
            }
            Layoutrecall4::Fsid(f) => {
                w.put_u32(2);
                f.encode(w);
            }
            Layoutrecall4::All => w.put_u32(3),
        }
    }
}

impl<'a> XdrDecode<'a> for Layoutrecall4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match r.get_enum("layoutrecall_type4", |v| (1..=3).contains(&v).then_some(v))? {
            1 => Layoutrecall4::File(LayoutrecallFile4::decode(r)?),
            2 => Layoutrecall4::Fsid(Fsid4::decode(r)?),
            _ => Layoutrecall4::All,
        })
    }
}

xdr_struct! {
    /// `CB_LAYOUTRECALL4args` (RFC 8881 §20.3).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct CbLayoutrecallArgs {
        pub layout_type: LayoutType4,
        pub iomode: LayoutIoMode4,
        pub changed: bool,
        pub recall: Layoutrecall4,
    }
}

xdr_struct! {
    /// `notify4` (RFC 8881 §20.4.1): a mask of notification types and their values, left opaque.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct Notify4<'a> {
        pub mask: Bitmap4,
        pub values: OpaqueBody<'a>,
    }
}

fn decode_notify_list<'a>(r: &mut XdrReader<'a>) -> Result<Vec<Notify4<'a>>, XdrError> {
    r.get_vec("notify4<>", SMALL_ARRAY_MAX, 8, Notify4::decode)
}

/// `CB_NOTIFY4args` (RFC 8881 §20.4).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CbNotifyArgs<'a> {
    pub stateid: Stateid4,
    pub fh: NfsFh4,
    pub changes: Vec<Notify4<'a>>,
}

impl XdrEncode for CbNotifyArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.stateid.encode(w);
        self.fh.encode(w);
        encode_array(&self.changes, w);
    }
}

impl<'a> XdrDecode<'a> for CbNotifyArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CbNotifyArgs { stateid: Stateid4::decode(r)?, fh: NfsFh4::decode(r)?, changes: decode_notify_list(r)? })
    }
}

xdr_struct! {
    /// `CB_PUSH_DELEG4args` (RFC 8881 §20.5).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbPushDelegArgs<'a> {
        pub fh: NfsFh4,
        pub delegation: OpenDelegation4<'a>,
    }
}

/// RFC 8881 §20.6.1: `craa_type_mask` bits of CB_RECALL_ANY.
pub const RCA4_TYPE_MASK_RDATA_DLG: u32 = 0;
pub const RCA4_TYPE_MASK_WDATA_DLG: u32 = 1;
pub const RCA4_TYPE_MASK_DIR_DLG: u32 = 2;
pub const RCA4_TYPE_MASK_FILE_LAYOUT: u32 = 3;

xdr_struct! {
    /// `CB_RECALL_ANY4args` (RFC 8881 §20.6); also `CB_RECALLABLE_OBJ_AVAIL4args` (§20.7).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbRecallAnyArgs {
        pub objects_to_keep: u32,
        pub type_mask: Bitmap4,
    }
}

/// `CB_RECALLABLE_OBJ_AVAIL4args` (RFC 8881 §20.7).
pub type CbRecallableObjAvailArgs = CbRecallAnyArgs;

xdr_struct! {
    /// `CB_RECALL_SLOT4args` (RFC 8881 §20.8).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbRecallSlotArgs {
        pub target_highest_slotid: SlotId4,
    }
}

xdr_struct! {
    /// `referring_call4` (RFC 8881 §20.9.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReferringCall4 {
        pub sequenceid: SequenceId4,
        pub slotid: SlotId4,
    }
}

/// `referring_call_list4` (RFC 8881 §20.9.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ReferringCallList4 {
    pub sessionid: SessionId4,
    pub referring_calls: Vec<ReferringCall4>,
}

impl XdrEncode for ReferringCallList4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.sessionid.encode(w);
        encode_array(&self.referring_calls, w);
    }
}

impl<'a> XdrDecode<'a> for ReferringCallList4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ReferringCallList4 {
            sessionid: SessionId4::decode(r)?,
            referring_calls: r.get_vec("rcl_referring_calls", 1024, 8, ReferringCall4::decode)?,
        })
    }
}

/// `CB_SEQUENCE4args` (RFC 8881 §20.9).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CbSequenceArgs {
    pub sessionid: SessionId4,
    pub sequenceid: SequenceId4,
    pub slotid: SlotId4,
    pub highest_slotid: SlotId4,
    pub cachethis: bool,
    pub referring_call_lists: Vec<ReferringCallList4>,
}

impl XdrEncode for CbSequenceArgs {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.sessionid.encode(w);
        w.put_u32(self.sequenceid);
        w.put_u32(self.slotid);
        w.put_u32(self.highest_slotid);
        w.put_bool(self.cachethis);
        encode_array(&self.referring_call_lists, w);
    }
}

impl<'a> XdrDecode<'a> for CbSequenceArgs {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CbSequenceArgs {
            sessionid: SessionId4::decode(r)?,
            sequenceid: r.get_u32()?,
            slotid: r.get_u32()?,
            highest_slotid: r.get_u32()?,
            cachethis: r.get_bool()?,
            referring_call_lists: r.get_vec(
                "csa_referring_call_lists",
                SMALL_ARRAY_MAX,
                20,
                ReferringCallList4::decode,
            )?,
        })
    }
}

xdr_struct! {
    /// `CB_SEQUENCE4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbSequenceResOk {
        pub sessionid: SessionId4,
        pub sequenceid: SequenceId4,
        pub slotid: SlotId4,
        pub highest_slotid: SlotId4,
        pub target_highest_slotid: SlotId4,
    }
}

/// `CB_SEQUENCE4res`.
pub type CbSequenceRes = Nfs4Result<CbSequenceResOk>;

xdr_struct! {
    /// `CB_WANTS_CANCELLED4args` (RFC 8881 §20.10).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbWantsCancelledArgs {
        pub contended_wants_cancelled: bool,
        pub resourced_wants_cancelled: bool,
    }
}

xdr_struct! {
    /// `CB_NOTIFY_LOCK4args` (RFC 8881 §20.11): a lock the client waited for may now be free.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbNotifyLockArgs<'a> {
        pub fh: NfsFh4,
        pub lock_owner: LockOwner4<'a>,
    }
}

/// `CB_NOTIFY_DEVICEID4args` (RFC 8881 §20.12).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CbNotifyDeviceidArgs<'a> {
    pub changes: Vec<Notify4<'a>>,
}

impl XdrEncode for CbNotifyDeviceidArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.changes, w);
    }
}

impl<'a> XdrDecode<'a> for CbNotifyDeviceidArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CbNotifyDeviceidArgs { changes: decode_notify_list(r)? })
    }
}

/// `offload_info4` (RFC 7862 §16.1.1): the copy's result, or the bytes copied before it failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OffloadInfo4 {
    Ok(WriteResponse4),
    Err { status: NfsErr4, bytes_copied: Length4 },
}

impl XdrEncode for OffloadInfo4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            OffloadInfo4::Ok(resp) => {
                w.put_u32(NfsStat4::Ok.as_u32());
                resp.encode(w);
            }
            OffloadInfo4::Err { status, bytes_copied } => {
                w.put_u32(status.as_u32());
                w.put_u64(*bytes_copied);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for OffloadInfo4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match NfsStat4::decode(r)?.error() {
            None => OffloadInfo4::Ok(WriteResponse4::decode(r)?),
            Some(status) => OffloadInfo4::Err { status, bytes_copied: r.get_u64()? },
        })
    }
}

xdr_struct! {
    /// `CB_OFFLOAD4args` (RFC 7862 §16.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct CbOffloadArgs {
        pub fh: NfsFh4,
        pub stateid: Stateid4,
        pub info: OffloadInfo4,
    }
}
