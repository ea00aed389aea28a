//! OPEN (RFC 8881 §18.16) with every `open_claim4` arm of v4.1 and every `createhow4` mode, CLOSE
//! (§18.2) and OPEN_DOWNGRADE (§18.18).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::delegation::{OpenDelegation4, OpenDelegationType4};
use crate::attr::RawFattr4;
use crate::status::Nfs4Result;
use crate::types::{Bitmap4, ChangeInfo4, Component4, OpenOwner4, SeqId4, Stateid4, Verifier4};

/// RFC 8881 §18.16.1: `share_access` values and the delegation "want" bits that may be or-ed in.
pub const OPEN4_SHARE_ACCESS_READ: u32 = 0x0000_0001;
pub const OPEN4_SHARE_ACCESS_WRITE: u32 = 0x0000_0002;
pub const OPEN4_SHARE_ACCESS_BOTH: u32 = 0x0000_0003;
pub const OPEN4_SHARE_ACCESS_WANT_DELEG_MASK: u32 = 0x0000_FF00;
pub const OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE: u32 = 0x0000_0000;
pub const OPEN4_SHARE_ACCESS_WANT_READ_DELEG: u32 = 0x0000_0100;
pub const OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG: u32 = 0x0000_0200;
pub const OPEN4_SHARE_ACCESS_WANT_ANY_DELEG: u32 = 0x0000_0300;
pub const OPEN4_SHARE_ACCESS_WANT_NO_DELEG: u32 = 0x0000_0400;
pub const OPEN4_SHARE_ACCESS_WANT_CANCEL: u32 = 0x0000_0500;
pub const OPEN4_SHARE_ACCESS_WANT_SIGNAL_DELEG_WHEN_RESRC_AVAIL: u32 = 0x0001_0000;
pub const OPEN4_SHARE_ACCESS_WANT_PUSH_DELEG_WHEN_UNCONTENDED: u32 = 0x0002_0000;
/// RFC 8881 §18.16.1: `share_deny` values.
pub const OPEN4_SHARE_DENY_NONE: u32 = 0x0000_0000;
pub const OPEN4_SHARE_DENY_READ: u32 = 0x0000_0001;
pub const OPEN4_SHARE_DENY_WRITE: u32 = 0x0000_0002;
pub const OPEN4_SHARE_DENY_BOTH: u32 = 0x0000_0003;
/// RFC 8881 §18.16.1: `rflags` bits of the result.
pub const OPEN4_RESULT_CONFIRM: u32 = 0x0000_0002;
pub const OPEN4_RESULT_LOCKTYPE_POSIX: u32 = 0x0000_0004;
pub const OPEN4_RESULT_PRESERVE_UNLINKED: u32 = 0x0000_0008;
pub const OPEN4_RESULT_MAY_NOTIFY_LOCK: u32 = 0x0000_0020;

xdr_enum! {
    /// `createmode4` (RFC 8881 §18.16.1).
    pub enum CreateMode4 as "createmode4" {
        Unchecked = 0 => "UNCHECKED4",
        Guarded = 1 => "GUARDED4",
        Exclusive = 2 => "EXCLUSIVE4",
        Exclusive41 = 3 => "EXCLUSIVE4_1",
    }
}

/// `createhow4` (RFC 8881 §18.16.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CreateHow4<'a> {
    Unchecked(RawFattr4<'a>),
    Guarded(RawFattr4<'a>),
    Exclusive(Verifier4),
    /// v4.1 (`creatverfattr`): a verifier and initial attributes.
    Exclusive41 {
        verf: Verifier4,
        attrs: RawFattr4<'a>,
    },
}

impl CreateHow4<'_> {
    pub fn mode(&self) -> CreateMode4 {
        match self {
            CreateHow4::Unchecked(_) => CreateMode4::Unchecked,
            CreateHow4::Guarded(_) => CreateMode4::Guarded,
            CreateHow4::Exclusive(_) => CreateMode4::Exclusive,
            CreateHow4::Exclusive41 { .. } => CreateMode4::Exclusive41,
        }
    }
}

impl XdrEncode for CreateHow4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.mode().as_u32());
        match self {
            CreateHow4::Unchecked(a) | CreateHow4::Guarded(a) => a.encode(w),
            CreateHow4::Exclusive(v) => v.encode(w),
            CreateHow4::Exclusive41 { verf, attrs } => {
                verf.encode(w);
                attrs.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for CreateHow4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match CreateMode4::decode(r)? {
            CreateMode4::Unchecked => CreateHow4::Unchecked(RawFattr4::decode(r)?),
            CreateMode4::Guarded => CreateHow4::Guarded(RawFattr4::decode(r)?),
            CreateMode4::Exclusive => CreateHow4::Exclusive(Verifier4::decode(r)?),
            CreateMode4::Exclusive41 => {
                CreateHow4::Exclusive41 { verf: Verifier4::decode(r)?, attrs: RawFattr4::decode(r)? }
            }
        })
    }
}

/// `openflag4` (RFC 8881 §18.16.1): `union switch (opentype4) { case OPEN4_CREATE: createhow4; default: void }`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum OpenFlag4<'a> {
    /// OPEN4_NOCREATE (0).
    #[default]
    NoCreate,
    /// OPEN4_CREATE (1).
    Create(CreateHow4<'a>),
}

impl XdrEncode for OpenFlag4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            OpenFlag4::NoCreate => w.put_u32(0),
            OpenFlag4::Create(how) => {
                w.put_u32(1);
                how.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for OpenFlag4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match r.get_enum("opentype4", |v| (v <= 1).then_some(v))? {
            0 => OpenFlag4::NoCreate,
            _ => OpenFlag4::Create(CreateHow4::decode(r)?),
        })
    }
}

xdr_enum! {
    /// `open_claim_type4` (RFC 8881 §18.16.1).
    pub enum OpenClaimType4 as "open_claim_type4" {
        Null = 0 => "CLAIM_NULL",
        Previous = 1 => "CLAIM_PREVIOUS",
        DelegateCur = 2 => "CLAIM_DELEGATE_CUR",
        DelegatePrev = 3 => "CLAIM_DELEGATE_PREV",
        Fh = 4 => "CLAIM_FH",
        DelegCurFh = 5 => "CLAIM_DELEG_CUR_FH",
        DelegPrevFh = 6 => "CLAIM_DELEG_PREV_FH",
    }
}

/// `open_claim4` (RFC 8881 §18.16.1): which file OPEN is about and on what grounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenClaim4<'a> {
    /// CLAIM_NULL: `file` in the current directory.
    Null(Component4<'a>),
    /// CLAIM_PREVIOUS: reclaim of the current file handle after a server restart.
    Previous(OpenDelegationType4),
    /// CLAIM_DELEGATE_CUR: `file` in the current directory, under a delegation.
    DelegateCur { delegate_stateid: Stateid4, file: Component4<'a> },
    /// CLAIM_DELEGATE_PREV: `file`, under a delegation held before a client restart.
    DelegatePrev(Component4<'a>),
    /// CLAIM_FH: the current file handle.
    Fh,
    /// CLAIM_DELEG_CUR_FH: the current file handle, under this delegation.
    DelegCurFh(Stateid4),
    /// CLAIM_DELEG_PREV_FH: the current file handle, under a delegation held before a client restart.
    DelegPrevFh,
}

impl OpenClaim4<'_> {
    pub fn claim_type(&self) -> OpenClaimType4 {
        match self {
            OpenClaim4::Null(_) => OpenClaimType4::Null,
            OpenClaim4::Previous(_) => OpenClaimType4::Previous,
            OpenClaim4::DelegateCur { .. } => OpenClaimType4::DelegateCur,
            OpenClaim4::DelegatePrev(_) => OpenClaimType4::DelegatePrev,
            OpenClaim4::Fh => OpenClaimType4::Fh,
            OpenClaim4::DelegCurFh(_) => OpenClaimType4::DelegCurFh,
            OpenClaim4::DelegPrevFh => OpenClaimType4::DelegPrevFh,
        }
    }
}

impl XdrEncode for OpenClaim4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.claim_type().as_u32());
        match self {
            OpenClaim4::Null(f) | OpenClaim4::DelegatePrev(f) => f.encode(w),
            OpenClaim4::Previous(t) => t.encode(w),
            OpenClaim4::DelegateCur { delegate_stateid, file } => {
                delegate_stateid.encode(w);
                file.encode(w);
            }
            OpenClaim4::DelegCurFh(s) => s.encode(w),
            OpenClaim4::Fh | OpenClaim4::DelegPrevFh => {}
        }
    }
}

impl<'a> XdrDecode<'a> for OpenClaim4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match OpenClaimType4::decode(r)? {
            OpenClaimType4::Null => OpenClaim4::Null(Component4::decode(r)?),
            OpenClaimType4::Previous => OpenClaim4::Previous(OpenDelegationType4::decode(r)?),
            OpenClaimType4::DelegateCur => {
                OpenClaim4::DelegateCur { delegate_stateid: Stateid4::decode(r)?, file: Component4::decode(r)? }
            }
            OpenClaimType4::DelegatePrev => OpenClaim4::DelegatePrev(Component4::decode(r)?),
            OpenClaimType4::Fh => OpenClaim4::Fh,
            OpenClaimType4::DelegCurFh => OpenClaim4::DelegCurFh(Stateid4::decode(r)?),
            OpenClaimType4::DelegPrevFh => OpenClaim4::DelegPrevFh,
        })
    }
}

xdr_struct! {
    /// `OPEN4args`. In v4.1 `seqid` is ignored (RFC 8881 §18.16.3).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct OpenArgs<'a> {
        pub seqid: SeqId4,
        pub share_access: u32,
        pub share_deny: u32,
        pub owner: OpenOwner4<'a>,
        pub openhow: OpenFlag4<'a>,
        pub claim: OpenClaim4<'a>,
    }
}

xdr_struct! {
    /// `OPEN4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenResOk<'a> {
        pub stateid: Stateid4,
        pub cinfo: ChangeInfo4,
        pub rflags: u32,
        pub attrset: Bitmap4,
        pub delegation: OpenDelegation4<'a>,
    }
}

/// `OPEN4res`.
pub type OpenRes<'a> = Nfs4Result<OpenResOk<'a>>;

xdr_struct! {
    /// `CLOSE4args`. In v4.1 `seqid` is ignored.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CloseArgs {
        pub seqid: SeqId4,
        pub open_stateid: Stateid4,
    }
}

xdr_struct! {
    /// `CLOSE4resok`: RFC 8881 §18.2.4 recommends answering the invalid special stateid's form.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CloseResOk {
        pub open_stateid: Stateid4,
    }
}

/// `CLOSE4res`.
pub type CloseRes = Nfs4Result<CloseResOk>;

xdr_struct! {
    /// `OPEN_DOWNGRADE4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenDowngradeArgs {
        pub open_stateid: Stateid4,
        pub seqid: SeqId4,
        pub share_access: u32,
        pub share_deny: u32,
    }
}

xdr_struct! {
    /// `OPEN_DOWNGRADE4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenDowngradeResOk {
        pub open_stateid: Stateid4,
    }
}

/// `OPEN_DOWNGRADE4res`.
pub type OpenDowngradeRes = Nfs4Result<OpenDowngradeResOk>;
