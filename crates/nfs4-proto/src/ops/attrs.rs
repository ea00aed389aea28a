//! Attribute operations: GETATTR (RFC 8881 §18.7), SETATTR (§18.30), VERIFY (§18.31), NVERIFY (§18.15),
//! and ACCESS (§18.1). Attributes travel as [`RawFattr4`]; the server decodes them with
//! [`RawFattr4::decode_attrs`] when it handles the operation.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::attr::RawFattr4;
use crate::status::{Nfs4Result, NfsErr4, NfsStat4, OpResult, Void};
use crate::types::{Bitmap4, Stateid4};

/// RFC 8881 §18.1.1 and RFC 8276 §8.3: ACCESS bits.
pub const ACCESS4_READ: u32 = 0x0000_0001;
pub const ACCESS4_LOOKUP: u32 = 0x0000_0002;
pub const ACCESS4_MODIFY: u32 = 0x0000_0004;
pub const ACCESS4_EXTEND: u32 = 0x0000_0008;
pub const ACCESS4_DELETE: u32 = 0x0000_0010;
pub const ACCESS4_EXECUTE: u32 = 0x0000_0020;
pub const ACCESS4_XAREAD: u32 = 0x0000_0040;
pub const ACCESS4_XAWRITE: u32 = 0x0000_0080;
pub const ACCESS4_XALIST: u32 = 0x0000_0100;

xdr_struct! {
    /// `ACCESS4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AccessArgs {
        pub access: u32,
    }
}

xdr_struct! {
    /// `ACCESS4resok`: the bits the server could check, and those granted.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AccessResOk {
        pub supported: u32,
        pub access: u32,
    }
}

/// `ACCESS4res`.
pub type AccessRes = Nfs4Result<AccessResOk>;

xdr_struct! {
    /// `GETATTR4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetattrArgs {
        pub attr_request: Bitmap4,
    }
}

xdr_struct! {
    /// `GETATTR4resok`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct GetattrResOk<'a> {
        pub obj_attributes: RawFattr4<'a>,
    }
}

/// `GETATTR4res`.
pub type GetattrRes<'a> = Nfs4Result<GetattrResOk<'a>>;

xdr_struct! {
    /// `SETATTR4args`: the stateid matters when the size changes (RFC 8881 §18.30.3).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct SetattrArgs<'a> {
        pub stateid: Stateid4,
        pub obj_attributes: RawFattr4<'a>,
    }
}

/// `SETATTR4res`: the status and, whatever it is, the attributes that were set (RFC 8881 §18.30.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetattrRes {
    pub status: NfsStat4,
    pub attrsset: Bitmap4,
}

impl OpResult for SetattrRes {
    fn status(&self) -> NfsStat4 {
        self.status
    }

    fn from_error(err: NfsErr4) -> Self {
        SetattrRes { status: err.status(), attrsset: Bitmap4::EMPTY }
    }
}

impl XdrEncode for SetattrRes {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.status.encode(w);
        self.attrsset.encode(w);
    }
}

impl<'a> XdrDecode<'a> for SetattrRes {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(SetattrRes { status: NfsStat4::decode(r)?, attrsset: Bitmap4::decode(r)? })
    }
}

xdr_struct! {
    /// `VERIFY4args`: succeed only if the attributes match (NFS4ERR_NOT_SAME otherwise).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct VerifyArgs<'a> {
        pub obj_attributes: RawFattr4<'a>,
    }
}

/// `VERIFY4res`: status only.
pub type VerifyRes = Nfs4Result<Void>;

xdr_struct! {
    /// `NVERIFY4args`: succeed only if the attributes differ (NFS4ERR_SAME otherwise).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct NverifyArgs<'a> {
        pub obj_attributes: RawFattr4<'a>,
    }
}

/// `NVERIFY4res`: status only.
pub type NverifyRes = Nfs4Result<Void>;
