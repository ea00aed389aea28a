//! Client identity and session structures: `client_owner4`, `server_owner4`, `nfs_impl_id4`,
//! `state_protect4_a`/`_r` (RFC 8881 §18.35), `channel_attrs4` and `callback_sec_parms4` (§18.36).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::basic::{NfsTime4, Opaque4, Utf8Str, Verifier4, SMALL_ARRAY_MAX};
use super::bitmap::Bitmap4;
use super::encode_array;

xdr_struct! {
    /// `client_owner4` (RFC 8881 §2.4): the client's boot verifier and its long-lived id.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ClientOwner4<'a> {
        pub verifier: Verifier4,
        pub ownerid: Opaque4<'a>,
    }
}

xdr_struct! {
    /// `server_owner4` (RFC 8881 §2.5): what trunking detection compares.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ServerOwner4<'a> {
        pub minor_id: u64,
        pub major_id: Opaque4<'a>,
    }
}

xdr_struct! {
    /// `nfs_impl_id4` (RFC 8881 §18.35.1): implementation domain, name and build date.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct NfsImplId4<'a> {
        pub domain: Utf8Str<'a>,
        pub name: Utf8Str<'a>,
        pub date: NfsTime4,
    }
}

xdr_struct! {
    /// `channel_attrs4` (RFC 8881 §18.36.1). `rdma_ird` is `uint32_t ca_rdma_ird<1>`, whose encoding (a count
    /// of 0 or 1, then the value) is exactly XDR optional data.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ChannelAttrs4 {
        pub headerpadsize: u32,
        pub maxrequestsize: u32,
        pub maxresponsesize: u32,
        pub maxresponsesize_cached: u32,
        pub maxoperations: u32,
        pub maxrequests: u32,
        pub rdma_ird: Option<u32>,
    }
}

xdr_struct! {
    /// `state_protect_ops4` (RFC 8881 §18.35.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct StateProtectOps4 {
        pub must_enforce: Bitmap4,
        pub must_allow: Bitmap4,
    }
}

/// Decodes `T<>` of small items with at most [`SMALL_ARRAY_MAX`] elements of 4 bytes or more.
fn small_vec<'a, T: XdrDecode<'a>>(r: &mut XdrReader<'a>, what: &'static str) -> Result<Vec<T>, XdrError> {
    r.get_vec(what, SMALL_ARRAY_MAX, 4, T::decode)
}

/// `ssv_sp_parms4` (RFC 8881 §18.35.1). `sec_oid4` values are opaques of at most 1024 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SsvSpParms4<'a> {
    pub ops: StateProtectOps4,
    pub hash_algs: Vec<Opaque4<'a>>,
    pub encr_algs: Vec<Opaque4<'a>>,
    pub window: u32,
    pub num_gss_handles: u32,
}

impl XdrEncode for SsvSpParms4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.ops.encode(w);
        encode_array(&self.hash_algs, w);
        encode_array(&self.encr_algs, w);
        w.put_u32(self.window);
        w.put_u32(self.num_gss_handles);
    }
}

impl<'a> XdrDecode<'a> for SsvSpParms4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(SsvSpParms4 {
            ops: StateProtectOps4::decode(r)?,
            hash_algs: small_vec(r, "ssp_hash_algs")?,
            encr_algs: small_vec(r, "ssp_encr_algs")?,
            window: r.get_u32()?,
            num_gss_handles: r.get_u32()?,
        })
    }
}

/// `ssv_prot_info4` (RFC 8881 §18.35.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SsvProtInfo4<'a> {
    pub ops: StateProtectOps4,
    pub hash_alg: u32,
    pub encr_alg: u32,
    pub ssv_len: u32,
    pub window: u32,
    pub handles: Vec<Opaque4<'a>>,
}

impl XdrEncode for SsvProtInfo4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.ops.encode(w);
        w.put_u32(self.hash_alg);
        w.put_u32(self.encr_alg);
        w.put_u32(self.ssv_len);
        w.put_u32(self.window);
        encode_array(&self.handles, w);
    }
}

impl<'a> XdrDecode<'a> for SsvProtInfo4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(SsvProtInfo4 {
            ops: StateProtectOps4::decode(r)?,
            hash_alg: r.get_u32()?,
            encr_alg: r.get_u32()?,
            ssv_len: r.get_u32()?,
            window: r.get_u32()?,
            handles: small_vec(r, "spi_handles")?,
        })
    }
}

xdr_enum! {
    /// `state_protect_how4` (RFC 8881 §18.35.1).
    pub enum StateProtectHow4 as "state_protect_how4" {
        None = 0 => "SP4_NONE",
        MachCred = 1 => "SP4_MACH_CRED",
        Ssv = 2 => "SP4_SSV",
    }
}

/// `state_protect4_a` (RFC 8881 §18.35.1): the client's state protection request in EXCHANGE_ID.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum StateProtect4A<'a> {
    #[default]
    None,
    MachCred(StateProtectOps4),
    Ssv(SsvSpParms4<'a>),
}

impl XdrEncode for StateProtect4A<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            StateProtect4A::None => StateProtectHow4::None.encode(w),
            StateProtect4A::MachCred(ops) => {
                StateProtectHow4::MachCred.encode(w);
                ops.encode(w);
            }
            StateProtect4A::Ssv(p) => {
                StateProtectHow4::Ssv.encode(w);
                p.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for StateProtect4A<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match StateProtectHow4::decode(r)? {
            StateProtectHow4::None => StateProtect4A::None,
            StateProtectHow4::MachCred => StateProtect4A::MachCred(StateProtectOps4::decode(r)?),
            StateProtectHow4::Ssv => StateProtect4A::Ssv(SsvSpParms4::decode(r)?),
        })
    }
}

/// `state_protect4_r` (RFC 8881 §18.35.2): the server's answer to the state protection request.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum StateProtect4R<'a> {
    #[default]
    None,
    MachCred(StateProtectOps4),
    Ssv(SsvProtInfo4<'a>),
}

impl XdrEncode for StateProtect4R<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            StateProtect4R::None => StateProtectHow4::None.encode(w),
            StateProtect4R::MachCred(ops) => {
                StateProtectHow4::MachCred.encode(w);
                ops.encode(w);
            }
            StateProtect4R::Ssv(p) => {
                StateProtectHow4::Ssv.encode(w);
                p.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for StateProtect4R<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match StateProtectHow4::decode(r)? {
            StateProtectHow4::None => StateProtect4R::None,
            StateProtectHow4::MachCred => StateProtect4R::MachCred(StateProtectOps4::decode(r)?),
            StateProtectHow4::Ssv => StateProtect4R::Ssv(SsvProtInfo4::decode(r)?),
        })
    }
}

/// RFC 5531 §14: AUTH_SYS's machine name is `string<255>`.
const MACHINENAME_MAX: u32 = 255;
/// RFC 5531 §14: AUTH_SYS carries at most 16 supplementary groups.
const AUTHSYS_GIDS_MAX: u32 = 16;

/// `authsys_parms` (RFC 5531 §14), as a callback security parameter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct AuthSysParms<'a> {
    pub stamp: u32,
    pub machinename: &'a [u8],
    pub uid: u32,
    pub gid: u32,
    pub gids: Vec<u32>,
}

impl XdrEncode for AuthSysParms<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.stamp);
        w.put_opaque(self.machinename);
        w.put_u32(self.uid);
        w.put_u32(self.gid);
        encode_array(&self.gids, w);
    }
}

impl<'a> XdrDecode<'a> for AuthSysParms<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(AuthSysParms {
            stamp: r.get_u32()?,
            machinename: r.get_string("machinename", MACHINENAME_MAX)?,
            uid: r.get_u32()?,
            gid: r.get_u32()?,
            gids: r.get_vec("authsys_parms.gids", AUTHSYS_GIDS_MAX, 4, XdrReader::get_u32)?,
        })
    }
}

xdr_struct! {
    /// `gss_cb_handles4` (RFC 8881 §18.36.1); `service` is an `rpc_gss_svc_t` (1 none, 2 integrity, 3 privacy).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GssCbHandles4<'a> {
        pub service: u32,
        pub handle_from_server: Opaque4<'a>,
        pub handle_from_client: Opaque4<'a>,
    }
}

/// `callback_sec_parms4` (RFC 8881 §18.36.1): how the server authenticates its callbacks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CallbackSecParms4<'a> {
    /// AUTH_NONE (0).
    None,
    /// AUTH_SYS (1).
    Sys(AuthSysParms<'a>),
    /// RPCSEC_GSS (6).
    Gss(GssCbHandles4<'a>),
}

/// RFC 5531 §8.2 and RFC 2203: the flavour numbers `callback_sec_parms4` switches on.
const AUTH_NONE: u32 = 0;
const AUTH_SYS: u32 = 1;
const RPCSEC_GSS: u32 = 6;

impl XdrEncode for CallbackSecParms4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            CallbackSecParms4::None => w.put_u32(AUTH_NONE),
            CallbackSecParms4::Sys(p) => {
                w.put_u32(AUTH_SYS);
                p.encode(w);
            }
            CallbackSecParms4::Gss(h) => {
                w.put_u32(RPCSEC_GSS);
                h.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for CallbackSecParms4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let flavor =
            r.get_enum("callback_sec_parms4 flavor", |v| matches!(v, AUTH_NONE | AUTH_SYS | RPCSEC_GSS).then_some(v))?;
        Ok(match flavor {
            AUTH_SYS => CallbackSecParms4::Sys(AuthSysParms::decode(r)?),
            RPCSEC_GSS => CallbackSecParms4::Gss(GssCbHandles4::decode(r)?),
            _ => CallbackSecParms4::None,
        })
    }
}

/// Decodes `callback_sec_parms4<>` (CREATE_SESSION, BACKCHANNEL_CTL): at most 16 entries.
pub(crate) fn decode_cb_sec_parms<'a>(r: &mut XdrReader<'a>) -> Result<Vec<CallbackSecParms4<'a>>, XdrError> {
    r.get_vec("callback_sec_parms4<>", 16, 4, CallbackSecParms4::decode)
}
