//! pNFS operations (RFC 8881 §18.40 GETDEVICEINFO, §18.41 GETDEVICELIST, §18.42 LAYOUTCOMMIT, §18.43
//! LAYOUTGET, §18.44 LAYOUTRETURN). A server here offers no layout types, so it decodes these to answer
//! NFS4ERR_NOTSUPP or NFS4ERR_LAYOUTUNAVAILABLE cleanly; layout and device bodies stay opaque.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{ErrorBody, Nfs4Result, Nfs4ResultOr, NfsErr4};
use crate::types::{encode_array, Bitmap4, Count4, DeviceId4, LayoutType4, Length4, NewOffset4, NewTime4};
use crate::types::{NfsCookie4, Offset4, OpaqueBody, Stateid4, Verifier4, SMALL_ARRAY_MAX};

xdr_enum! {
    /// `layoutiomode4` (RFC 8881 §3.3.20).
    pub enum LayoutIoMode4 as "layoutiomode4" {
        Read = 1 => "LAYOUTIOMODE4_READ",
        Rw = 2 => "LAYOUTIOMODE4_RW",
        Any = 3 => "LAYOUTIOMODE4_ANY",
    }
}

xdr_struct! {
    /// `device_addr4` (RFC 8881 §3.3.15), with the layout-type-specific body left opaque.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DeviceAddr4<'a> {
        pub layout_type: LayoutType4,
        pub addr_body: OpaqueBody<'a>,
    }
}

xdr_struct! {
    /// `GETDEVICEINFO4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetdeviceinfoArgs {
        pub device_id: DeviceId4,
        pub layout_type: LayoutType4,
        pub maxcount: Count4,
        pub notify_types: Bitmap4,
    }
}

xdr_struct! {
    /// `GETDEVICEINFO4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetdeviceinfoResOk<'a> {
        pub device_addr: DeviceAddr4<'a>,
        pub notification: Bitmap4,
    }
}

xdr_struct! {
    /// The NFS4ERR_TOOSMALL arm of `GETDEVICEINFO4res`: the `maxcount` that would have sufficed.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetdeviceinfoTooSmall {
        pub mincount: Count4,
    }
}

impl ErrorBody for GetdeviceinfoTooSmall {
    const STATUS: NfsErr4 = NfsErr4::TooSmall;
    fn empty() -> Self {
        GetdeviceinfoTooSmall::default()
    }
}

/// `GETDEVICEINFO4res`.
pub type GetdeviceinfoRes<'a> = Nfs4ResultOr<GetdeviceinfoResOk<'a>, GetdeviceinfoTooSmall>;

xdr_struct! {
    /// `GETDEVICELIST4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetdevicelistArgs {
        pub layout_type: LayoutType4,
        pub maxdevices: Count4,
        pub cookie: NfsCookie4,
        pub cookieverf: Verifier4,
    }
}

/// `GETDEVICELIST4resok`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GetdevicelistResOk {
    pub cookie: NfsCookie4,
    pub cookieverf: Verifier4,
    pub deviceid_list: Vec<DeviceId4>,
    pub eof: bool,
}

impl XdrEncode for GetdevicelistResOk {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.cookie);
        self.cookieverf.encode(w);
        encode_array(&self.deviceid_list, w);
        w.put_bool(self.eof);
    }
}

impl<'a> XdrDecode<'a> for GetdevicelistResOk {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(GetdevicelistResOk {
            cookie: r.get_u64()?,
            cookieverf: Verifier4::decode(r)?,
            deviceid_list: r.get_vec("gdlr_deviceid_list", 1024, 16, DeviceId4::decode)?,
            eof: r.get_bool()?,
        })
    }
}

/// `GETDEVICELIST4res`.
pub type GetdevicelistRes = Nfs4Result<GetdevicelistResOk>;

xdr_struct! {
    /// `LAYOUTGET4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LayoutgetArgs {
        pub signal_layout_avail: bool,
        pub layout_type: LayoutType4,
        pub iomode: LayoutIoMode4,
        pub offset: Offset4,
        pub length: Length4,
        pub minlength: Length4,
        pub stateid: Stateid4,
        pub maxcount: Count4,
    }
}

xdr_struct! {
    /// `layout_content4` and `layoutupdate4` (RFC 8881 §3.3.17, §3.3.18): a type and an opaque body.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutBody4<'a> {
        pub layout_type: LayoutType4,
        pub body: OpaqueBody<'a>,
    }
}

xdr_struct! {
    /// `layout4` (RFC 8881 §3.3.17).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Layout4<'a> {
        pub offset: Offset4,
        pub length: Length4,
        pub iomode: LayoutIoMode4,
        pub content: LayoutBody4<'a>,
    }
}

/// `LAYOUTGET4resok`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LayoutgetResOk<'a> {
    pub return_on_close: bool,
    pub stateid: Stateid4,
    pub layout: Vec<Layout4<'a>>,
}

impl XdrEncode for LayoutgetResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_bool(self.return_on_close);
        self.stateid.encode(w);
        encode_array(&self.layout, w);
    }
}

impl<'a> XdrDecode<'a> for LayoutgetResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(LayoutgetResOk {
            return_on_close: r.get_bool()?,
            stateid: Stateid4::decode(r)?,
            layout: r.get_vec("logr_layout", SMALL_ARRAY_MAX, 28, Layout4::decode)?,
        })
    }
}

xdr_struct! {
    /// The NFS4ERR_LAYOUTTRYLATER arm of `LAYOUTGET4res`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutTryLater {
        pub will_signal_layout_avail: bool,
    }
}

impl ErrorBody for LayoutTryLater {
    const STATUS: NfsErr4 = NfsErr4::LayoutTryLater;
    fn empty() -> Self {
        LayoutTryLater::default()
    }
}

/// `LAYOUTGET4res`.
pub type LayoutgetRes<'a> = Nfs4ResultOr<LayoutgetResOk<'a>, LayoutTryLater>;

xdr_struct! {
    /// `LAYOUTCOMMIT4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutcommitArgs<'a> {
        pub offset: Offset4,
        pub length: Length4,
        pub reclaim: bool,
        pub stateid: Stateid4,
        pub last_write_offset: NewOffset4,
        pub time_modify: NewTime4,
        pub layoutupdate: LayoutBody4<'a>,
    }
}

xdr_struct! {
    /// `LAYOUTCOMMIT4resok`: `newsize4`, the new size when the server changed it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutcommitResOk {
        pub newsize: Option<Length4>,
    }
}

/// `LAYOUTCOMMIT4res`.
pub type LayoutcommitRes = Nfs4Result<LayoutcommitResOk>;

xdr_struct! {
    /// `layoutreturn_file4` (RFC 8881 §18.44.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutreturnFile4<'a> {
        pub offset: Offset4,
        pub length: Length4,
        pub stateid: Stateid4,
        pub body: OpaqueBody<'a>,
    }
}

/// `layoutreturn4` (RFC 8881 §18.44.1): switched on `layoutreturn_type4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Layoutreturn4<'a> {
    /// LAYOUTRETURN4_FILE (1).
    File(LayoutreturnFile4<'a>),
    /// LAYOUTRETURN4_FSID (2).
    Fsid,
    /// LAYOUTRETURN4_ALL (3).
    All,
}

impl XdrEncode for Layoutreturn4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Layoutreturn4::File(f) => {
                w.put_u32(1);
                f.encode(w);
            }
            Layoutreturn4::Fsid => w.put_u32(2),
            Layoutreturn4::All => w.put_u32(3),
        }
    }
}

impl<'a> XdrDecode<'a> for Layoutreturn4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match r.get_enum("layoutreturn_type4", |v| (1..=3).contains(&v).then_some(v))? {
            1 => Layoutreturn4::File(LayoutreturnFile4::decode(r)?),
            2 => Layoutreturn4::Fsid,
            _ => Layoutreturn4::All,
        })
    }
}

xdr_struct! {
    /// `LAYOUTRETURN4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LayoutreturnArgs<'a> {
        pub reclaim: bool,
        pub layout_type: LayoutType4,
        pub iomode: LayoutIoMode4,
        pub layoutreturn: Layoutreturn4<'a>,
    }
}

xdr_struct! {
    /// `LAYOUTRETURN4res`'s OK arm, `layoutreturn_stateid`: the stateid when layouts remain.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutreturnResOk {
        pub stateid: Option<Stateid4>,
    }
}

/// `LAYOUTRETURN4res`.
pub type LayoutreturnRes = Nfs4Result<LayoutreturnResOk>;
