//! Security negotiation: SECINFO (RFC 8881 §18.29) and SECINFO_NO_NAME (§18.45), which share a result.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs4Result;
use crate::types::{encode_array, Component4, Opaque4, SMALL_ARRAY_MAX};

/// RFC 2203: the flavour number of RPCSEC_GSS, the one `secinfo4` arm with a body.
pub const RPCSEC_GSS: u32 = 6;

xdr_struct! {
    /// `rpcsec_gss_info` (RFC 8881 §18.29.1); `service` is an `rpc_gss_svc_t`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RpcsecGssInfo<'a> {
        pub oid: Opaque4<'a>,
        pub qop: u32,
        pub service: u32,
    }
}

/// `secinfo4` (RFC 8881 §18.29.1): a flavour, with GSS parameters for RPCSEC_GSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Secinfo4<'a> {
    /// Any flavour but RPCSEC_GSS (AUTH_NONE 0, AUTH_SYS 1, ...): the union's `default: void`.
    Flavor(u32),
    RpcsecGss(RpcsecGssInfo<'a>),
}

impl XdrEncode for Secinfo4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Secinfo4::Flavor(f) => w.put_u32(*f),
            Secinfo4::RpcsecGss(info) => {
                w.put_u32(RPCSEC_GSS);
                info.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for Secinfo4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match r.get_u32()? {
            RPCSEC_GSS => Secinfo4::RpcsecGss(RpcsecGssInfo::decode(r)?),
            flavor => Secinfo4::Flavor(flavor),
        })
    }
}

/// `SECINFO4resok`: `secinfo4<>`, the flavours in order of preference.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SecinfoResOk<'a>(pub Vec<Secinfo4<'a>>);

impl XdrEncode for SecinfoResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.0, w);
    }
}

impl<'a> XdrDecode<'a> for SecinfoResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(SecinfoResOk(r.get_vec("SECINFO4resok", SMALL_ARRAY_MAX, 4, Secinfo4::decode)?))
    }
}

xdr_struct! {
    /// `SECINFO4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SecinfoArgs<'a> {
        pub name: Component4<'a>,
    }
}

/// `SECINFO4res`.
pub type SecinfoRes<'a> = Nfs4Result<SecinfoResOk<'a>>;

xdr_enum! {
    /// `secinfo_style4` (RFC 8881 §18.45.1): `SECINFO_NO_NAME4args`.
    pub enum SecinfoStyle4 as "secinfo_style4" {
        CurrentFh = 0 => "SECINFO_STYLE4_CURRENT_FH",
        Parent = 1 => "SECINFO_STYLE4_PARENT",
    }
}

/// `SECINFO_NO_NAME4args`.
pub type SecinfoNoNameArgs = SecinfoStyle4;
/// `SECINFO_NO_NAME4res`: the same as SECINFO's.
pub type SecinfoNoNameRes<'a> = SecinfoRes<'a>;
