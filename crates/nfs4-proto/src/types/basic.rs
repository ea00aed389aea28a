//! Scalars, fixed-size opaques and small structures of RFC 8881 §3.2–§3.3.

use xdr::{XdrError, XdrReader};

/// RFC 8881 §3.2: the maximum size of a file handle.
pub const NFS4_FHSIZE: usize = 128;
/// RFC 8881 §3.2: the size of a verifier.
pub const NFS4_VERIFIER_SIZE: usize = 8;
/// RFC 8881 §3.2: the size of a stateid's `other` field.
pub const NFS4_OTHER_SIZE: usize = 12;
/// RFC 8881 §3.2: the size of a session id.
pub const NFS4_SESSIONID_SIZE: usize = 16;
/// RFC 8881 §3.2: the size of a pNFS device id.
pub const NFS4_DEVICEID4_SIZE: usize = 16;
/// RFC 8881 §2.4.1: the limit on client owner, server owner and scope opaques (`NFS4_OPAQUE_LIMIT`).
pub const NFS4_OPAQUE_LIMIT: u32 = 1024;
/// RFC 8881 §3.2: `NFS4_UINT32_MAX`.
pub const NFS4_UINT32_MAX: u32 = u32::MAX;
/// The longest `component4` decoded: knfsd's NFS4_OPAQUE_LIMIT. A server answers NFS4ERR_NAMETOOLONG
/// for names past its own NAME_MAX (255) but within this; longer names are malformed.
pub const COMPONENT4_MAX: u32 = 1024;
/// The longest `utf8str_*` decoded (owners, groups, domains, tags); knfsd's NFS4_OPAQUE_LIMIT.
pub const UTF8STR_MAX: u32 = 1024;
/// The longest link text (`linktext4`) decoded: Linux's PATH_MAX.
pub const LINKTEXT4_MAX: u32 = 4096;
/// Counted arrays of small items (security flavours, algorithms, gss handles) that no peer sends many of.
pub(crate) const SMALL_ARRAY_MAX: u32 = 64;

/// `clientid4` (RFC 8881 §3.2).
pub type ClientId4 = u64;
/// `sequenceid4`.
pub type SequenceId4 = u32;
/// `seqid4`.
pub type SeqId4 = u32;
/// `slotid4`.
pub type SlotId4 = u32;
/// `offset4`.
pub type Offset4 = u64;
/// `length4`.
pub type Length4 = u64;
/// `count4`.
pub type Count4 = u32;
/// `nfs_cookie4`.
pub type NfsCookie4 = u64;
/// `changeid4`.
pub type ChangeId4 = u64;
/// `acetype4`, `aceflag4`, `acemask4`.
pub type AceMask4 = u32;
/// `layouttype4` (RFC 8881 §3.3.13): 1 NFILES, 2 OSD2_OBJECTS, 3 BLOCK_VOLUME, 4 FLEX_FILES, 5 SCSI.
pub type LayoutType4 = u32;

fixed_opaque!(
    /// `verifier4` (RFC 8881 §3.2).
    Verifier4,
    NFS4_VERIFIER_SIZE
);
fixed_opaque!(
    /// `sessionid4` (RFC 8881 §3.2).
    SessionId4,
    NFS4_SESSIONID_SIZE
);
fixed_opaque!(
    /// `deviceid4` (RFC 8881 §3.3.14).
    DeviceId4,
    NFS4_DEVICEID4_SIZE
);

bounded_bytes!(
    /// `component4` (RFC 8881 §3.2): one path component, UTF-8 by convention, bytes here.
    Component4,
    COMPONENT4_MAX,
    "component4"
);
bounded_bytes!(
    /// `utf8str_cs` / `utf8str_cis` / `utf8str_mixed` (RFC 8881 §3.2): owners, groups, domains, names.
    Utf8Str,
    UTF8STR_MAX,
    "utf8str"
);
bounded_bytes!(
    /// `opaque<NFS4_OPAQUE_LIMIT>`: owner ids, server scopes, state owners (RFC 8881 §2.4.1).
    Opaque4,
    NFS4_OPAQUE_LIMIT,
    "opaque<NFS4_OPAQUE_LIMIT>"
);
bounded_bytes!(
    /// An `opaque<>` with no bound in the RFC that is not bulk data (layout bodies, SSV digests, xattr
    /// values); decoded up to 1 MiB, the largest message the Linux client and knfsd exchange.
    OpaqueBody,
    1 << 20,
    "opaque<>"
);

/// `pathname4` (RFC 8881 §3.2): `component4<>`, bounded by [`PATHNAME4_MAX`] components.
pub type Pathname4<'a> = Vec<Component4<'a>>;
/// The most components a decoded `pathname4` may have.
pub const PATHNAME4_MAX: u32 = 256;

xdr_struct! {
    /// `nfstime4` (RFC 8881 §3.3.1): seconds (signed) and nanoseconds since 1970-01-01 UTC.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
    pub struct NfsTime4 {
        pub seconds: i64,
        pub nseconds: u32,
    }
}

xdr_struct! {
    /// `change_info4` (RFC 8881 §3.3.6): a directory's change attribute before and after an operation.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ChangeInfo4 {
        pub atomic: bool,
        pub before: ChangeId4,
        pub after: ChangeId4,
    }
}

xdr_struct! {
    /// `specdata4` (RFC 8881 §3.3.4): major and minor device numbers.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SpecData4 {
        pub specdata1: u32,
        pub specdata2: u32,
    }
}

xdr_struct! {
    /// `fsid4` (RFC 8881 §3.3.5).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct Fsid4 {
        pub major: u64,
        pub minor: u64,
    }
}

xdr_enum! {
    /// `nfs_ftype4` (RFC 8881 §5.8.1.2).
    pub enum NfsFtype4 as "nfs_ftype4" {
        Reg = 1 => "NF4REG",
        Dir = 2 => "NF4DIR",
        Blk = 3 => "NF4BLK",
        Chr = 4 => "NF4CHR",
        Lnk = 5 => "NF4LNK",
        Sock = 6 => "NF4SOCK",
        Fifo = 7 => "NF4FIFO",
        AttrDir = 8 => "NF4ATTRDIR",
        NamedAttr = 9 => "NF4NAMEDATTR",
    }
}

xdr_enum! {
    /// `stable_how4` (RFC 8881 §18.32.1).
    pub enum StableHow4 as "stable_how4" {
        Unstable = 0 => "UNSTABLE4",
        DataSync = 1 => "DATA_SYNC4",
        FileSync = 2 => "FILE_SYNC4",
    }
}

xdr_struct! {
    /// `nfsace4` (RFC 8881 §6.2.1): one access control entry (in delegations' permissions).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct NfsAce4<'a> {
        pub acetype: u32,
        pub flag: u32,
        pub access_mask: AceMask4,
        pub who: Utf8Str<'a>,
    }
}

/// `opaque<>` bulk data borrowed from the input and bounded only by it (RFC 8881 §18.22 READ data,
/// §18.32 WRITE data): decoded as a plain slice, encoded by the caller with `put_payload`.
pub(crate) fn decode_bulk<'a>(r: &mut XdrReader<'a>, what: &'static str) -> Result<&'a [u8], XdrError> {
    r.get_opaque(what, u32::MAX)
}

/// `newoffset4` / `newsize4` (RFC 8881 §18.42.1): `union switch (bool) { TRUE: value }`, optional data.
pub type NewOffset4 = Option<Offset4>;

/// `newtime4` (RFC 8881 §18.42.1): `union switch (bool) { TRUE: nfstime4 }`, i.e. optional data.
pub type NewTime4 = Option<NfsTime4>;
