//! Delegations: `open_delegation4` (RFC 8881 §18.16.2, OPEN's and WANT_DELEGATION's answer), DELEGRETURN
//! (§18.6), DELEGPURGE (§18.5), WANT_DELEGATION (§18.49) and GET_DIR_DELEGATION (§18.39). A server here
//! grants none: it answers NONE / NONE_EXT, and GET_DIR_DELEGATION with GDD4_UNAVAIL.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{Nfs4Result, Void};
use crate::types::{Bitmap4, ClientId4, NfsAce4, NfsTime4, Stateid4, Verifier4};

xdr_enum! {
    /// `open_delegation_type4` (RFC 8881 §18.16.1).
    pub enum OpenDelegationType4 as "open_delegation_type4" {
        None = 0 => "OPEN_DELEGATE_NONE",
        Read = 1 => "OPEN_DELEGATE_READ",
        Write = 2 => "OPEN_DELEGATE_WRITE",
        NoneExt = 3 => "OPEN_DELEGATE_NONE_EXT",
    }
}

xdr_enum! {
    /// `why_no_delegation4` (RFC 8881 §18.16.2).
    pub enum WhyNoDelegation4 as "why_no_delegation4" {
        NotWanted = 0 => "WND4_NOT_WANTED",
        Contention = 1 => "WND4_CONTENTION",
        Resource = 2 => "WND4_RESOURCE",
        NotSuppFtype = 3 => "WND4_NOT_SUPP_FTYPE",
        WriteDelegNotSuppFtype = 4 => "WND4_WRITE_DELEG_NOT_SUPP_FTYPE",
        NotSuppUpgrade = 5 => "WND4_NOT_SUPP_UPGRADE",
        NotSuppDowngrade = 6 => "WND4_NOT_SUPP_DOWNGRADE",
        Cancelled = 7 => "WND4_CANCELLED",
        IsDir = 8 => "WND4_IS_DIR",
    }
}

/// `open_none_delegation4` (RFC 8881 §18.16.2): why no delegation was granted; CONTENTION and RESOURCE
/// carry whether the server will push or signal one later.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenNoneDelegation4 {
    Contention {
        server_will_push_deleg: bool,
    },
    Resource {
        server_will_signal_avail: bool,
    },
    /// Any other reason (the union's `default: void`).
    Other(WhyNoDelegation4),
}

impl XdrEncode for OpenNoneDelegation4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            OpenNoneDelegation4::Contention { server_will_push_deleg } => {
                WhyNoDelegation4::Contention.encode(w);
                w.put_bool(*server_will_push_deleg);
            }
            OpenNoneDelegation4::Resource { server_will_signal_avail } => {
                WhyNoDelegation4::Resource.encode(w);
                w.put_bool(*server_will_signal_avail);
            }
            OpenNoneDelegation4::Other(why) => why.encode(w),
        }
    }
}

impl<'a> XdrDecode<'a> for OpenNoneDelegation4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match WhyNoDelegation4::decode(r)? {
            WhyNoDelegation4::Contention => OpenNoneDelegation4::Contention { server_will_push_deleg: r.get_bool()? },
            WhyNoDelegation4::Resource => OpenNoneDelegation4::Resource { server_will_signal_avail: r.get_bool()? },
            other => OpenNoneDelegation4::Other(other),
        })
    }
}

xdr_enum! {
    /// `limit_by4` (RFC 8881 §18.16.1).
    pub enum LimitBy4 as "limit_by4" {
        Size = 1 => "NFS_LIMIT_SIZE",
        Blocks = 2 => "NFS_LIMIT_BLOCKS",
    }
}

/// `nfs_space_limit4` (RFC 8881 §18.16.1): how far a write delegation may extend the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NfsSpaceLimit4 {
    Size(u64),
    Blocks { num_blocks: u32, bytes_per_block: u32 },
}

impl XdrEncode for NfsSpaceLimit4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            NfsSpaceLimit4::Size(s) => {
                LimitBy4::Size.encode(w);
                w.put_u64(*s);
            }
            NfsSpaceLimit4::Blocks { num_blocks, bytes_per_block } => {
                LimitBy4::Blocks.encode(w);
                w.put_u32(*num_blocks);
                w.put_u32(*bytes_per_block);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for NfsSpaceLimit4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match LimitBy4::decode(r)? {
            LimitBy4::Size => NfsSpaceLimit4::Size(r.get_u64()?),
            LimitBy4::Blocks => NfsSpaceLimit4::Blocks { num_blocks: r.get_u32()?, bytes_per_block: r.get_u32()? },
        })
    }
}

xdr_struct! {
    /// `open_read_delegation4` (RFC 8881 §18.16.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenReadDelegation4<'a> {
        pub stateid: Stateid4,
        pub recall: bool,
        pub permissions: NfsAce4<'a>,
    }
}

xdr_struct! {
    /// `open_write_delegation4` (RFC 8881 §18.16.1).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct OpenWriteDelegation4<'a> {
        pub stateid: Stateid4,
        pub recall: bool,
        pub space_limit: NfsSpaceLimit4,
        pub permissions: NfsAce4<'a>,
    }
}

/// `open_delegation4` (RFC 8881 §18.16.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OpenDelegation4<'a> {
    #[default]
    None,
    Read(OpenReadDelegation4<'a>),
    Write(OpenWriteDelegation4<'a>),
    /// v4.1: no delegation, and why (RFC 8881 §18.16.3).
    NoneExt(OpenNoneDelegation4),
}

impl OpenDelegation4<'_> {
    pub fn delegation_type(&self) -> OpenDelegationType4 {
        match self {
            OpenDelegation4::None => OpenDelegationType4::None,
            OpenDelegation4::Read(_) => OpenDelegationType4::Read,
            OpenDelegation4::Write(_) => OpenDelegationType4::Write,
            OpenDelegation4::NoneExt(_) => OpenDelegationType4::NoneExt,
        }
    }
}

impl XdrEncode for OpenDelegation4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.delegation_type().as_u32());
        match self {
            OpenDelegation4::None => {}
            OpenDelegation4::Read(d) => d.encode(w),
            OpenDelegation4::Write(d) => d.encode(w),
            OpenDelegation4::NoneExt(d) => d.encode(w),
        }
    }
}

impl<'a> XdrDecode<'a> for OpenDelegation4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match OpenDelegationType4::decode(r)? {
            OpenDelegationType4::None => OpenDelegation4::None,
            OpenDelegationType4::Read => OpenDelegation4::Read(OpenReadDelegation4::decode(r)?),
            OpenDelegationType4::Write => OpenDelegation4::Write(OpenWriteDelegation4::decode(r)?),
            OpenDelegationType4::NoneExt => OpenDelegation4::NoneExt(OpenNoneDelegation4::decode(r)?),
        })
    }
}

xdr_struct! {
    /// `DELEGRETURN4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DelegreturnArgs {
        pub deleg_stateid: Stateid4,
    }
}

/// `DELEGRETURN4res`: status only.
pub type DelegreturnRes = Nfs4Result<Void>;

xdr_struct! {
    /// `DELEGPURGE4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DelegpurgeArgs {
        pub clientid: ClientId4,
    }
}

/// `DELEGPURGE4res`: status only.
pub type DelegpurgeRes = Nfs4Result<Void>;

/// `deleg_claim4` (RFC 8881 §18.49.1): which file WANT_DELEGATION is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DelegClaim4 {
    /// CLAIM_FH (4): the current file handle.
    Fh,
    /// CLAIM_DELEG_PREV_FH (6): a delegation held before a client restart.
    DelegPrevFh,
    /// CLAIM_PREVIOUS (1): reclaim after a server restart.
    Previous(OpenDelegationType4),
}

impl XdrEncode for DelegClaim4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            DelegClaim4::Fh => w.put_u32(4),
            DelegClaim4::DelegPrevFh => w.put_u32(6),
            DelegClaim4::Previous(t) => {
                w.put_u32(1);
                t.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for DelegClaim4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 8881 §18.49.1: deleg_claim4 has exactly these three arms and no default.
        Ok(match r.get_enum("deleg_claim4", |v| matches!(v, 1 | 4 | 6).then_some(v))? {
            1 => DelegClaim4::Previous(OpenDelegationType4::decode(r)?),
            4 => DelegClaim4::Fh,
            _ => DelegClaim4::DelegPrevFh,
        })
    }
}

xdr_struct! {
    /// `WANT_DELEGATION4args`: `want` holds OPEN4_SHARE_ACCESS_WANT_* bits.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WantDelegationArgs {
        pub want: u32,
        pub claim: DelegClaim4,
    }
}

/// `WANT_DELEGATION4res`.
pub type WantDelegationRes<'a> = Nfs4Result<OpenDelegation4<'a>>;

xdr_struct! {
    /// `GET_DIR_DELEGATION4args`. `child_attr_delay` and `dir_attr_delay` are `attr_notice4` (nfstime4).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetDirDelegationArgs {
        pub signal_deleg_avail: bool,
        pub notification_types: Bitmap4,
        pub child_attr_delay: NfsTime4,
        pub dir_attr_delay: NfsTime4,
        pub child_attributes: Bitmap4,
        pub dir_attributes: Bitmap4,
    }
}

xdr_struct! {
    /// `GET_DIR_DELEGATION4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetDirDelegationResOk {
        pub cookieverf: Verifier4,
        pub stateid: Stateid4,
        pub notification: Bitmap4,
        pub child_attributes: Bitmap4,
        pub dir_attributes: Bitmap4,
    }
}

/// `GET_DIR_DELEGATION4res_non_fatal` (RFC 8881 §18.39.2): switched on `gddrnf_status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GetDirDelegationResNonFatal {
    /// GDD4_OK (0).
    Ok(GetDirDelegationResOk),
    /// GDD4_UNAVAIL (1): what a server that grants no directory delegations answers (as knfsd).
    Unavail { will_signal_deleg_avail: bool },
}

impl XdrEncode for GetDirDelegationResNonFatal {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            GetDirDelegationResNonFatal::Ok(ok) => {
                w.put_u32(0);
                ok.encode(w);
            }
            GetDirDelegationResNonFatal::Unavail { will_signal_deleg_avail } => {
                w.put_u32(1);
                w.put_bool(*will_signal_deleg_avail);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for GetDirDelegationResNonFatal {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match r.get_enum("gddrnf4_status", |v| (v <= 1).then_some(v))? {
            0 => GetDirDelegationResNonFatal::Ok(GetDirDelegationResOk::decode(r)?),
            _ => GetDirDelegationResNonFatal::Unavail { will_signal_deleg_avail: r.get_bool()? },
        })
    }
}

/// `GET_DIR_DELEGATION4res`.
pub type GetDirDelegationRes = Nfs4Result<GetDirDelegationResNonFatal>;
