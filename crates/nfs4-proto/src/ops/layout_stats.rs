//! NFSv4.2 pNFS reporting (RFC 7862 §15.6 LAYOUTERROR, §15.7 LAYOUTSTATS): a client tells the metadata
//! server about errors and I/O against a layout. A server without layouts answers NFS4ERR_NOTSUPP.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::opnum::OpNum4;
use super::pnfs::LayoutBody4;
use crate::status::{Nfs4Result, NfsStat4, Void};
use crate::types::{encode_array, DeviceId4, Length4, Offset4, Stateid4, SMALL_ARRAY_MAX};

xdr_struct! {
    /// `device_error4` (RFC 7862 §15.6.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct DeviceError4 {
        pub deviceid: DeviceId4,
        pub status: NfsStat4,
        pub opnum: OpNum4,
    }
}

/// `LAYOUTERROR4args`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LayouterrorArgs {
    pub offset: Offset4,
    pub length: Length4,
    pub stateid: Stateid4,
    pub errors: Vec<DeviceError4>,
}

impl XdrEncode for LayouterrorArgs {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.offset);
        w.put_u64(self.length);
        self.stateid.encode(w);
        encode_array(&self.errors, w);
    }
}

impl<'a> XdrDecode<'a> for LayouterrorArgs {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(LayouterrorArgs {
            offset: r.get_u64()?,
            length: r.get_u64()?,
            stateid: Stateid4::decode(r)?,
            errors: r.get_vec("lea_errors", SMALL_ARRAY_MAX, 24, DeviceError4::decode)?,
        })
    }
}

/// `LAYOUTERROR4res`: status only.
pub type LayouterrorRes = Nfs4Result<Void>;

xdr_struct! {
    /// `io_info4` (RFC 7862 §15.7.1): operations and bytes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct IoInfo4 {
        pub count: u64,
        pub bytes: u64,
    }
}

xdr_struct! {
    /// `LAYOUTSTATS4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LayoutstatsArgs<'a> {
        pub offset: Offset4,
        pub length: Length4,
        pub stateid: Stateid4,
        pub read: IoInfo4,
        pub write: IoInfo4,
        pub deviceid: DeviceId4,
        pub layoutupdate: LayoutBody4<'a>,
    }
}

/// `LAYOUTSTATS4res`: status only.
pub type LayoutstatsRes = Nfs4Result<Void>;
