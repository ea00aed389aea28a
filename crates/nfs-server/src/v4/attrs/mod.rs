//! File attributes for NFSv4 (RFC 8881 §5): which this server supports, and `fattr4` values made from a
//! backend's attributes (NFSv3's `fattr3`) for GETATTR, READDIR and VERIFY; SETATTR's side is `set.rs`.
//!
//! - `owner` and `owner_group` are the ids as decimal strings ("1000"), as knfsd sends them with
//!   `nfs4_disable_idmapping` and the Linux client expects with sec=sys: no idmapper runs here.
//! - `change` is made from ctime as knfsd does for file systems without i_version (seconds shifted by
//!   30 bits plus nanoseconds); `change_attr_type` says so (TIME_METADATA).
//! - Only what was asked is computed: file-system totals, for instance, only for the `files_*` and
//!   `space_*` attributes.
//! - Pseudo directories (`pseudo.rs`) have an fsid of their own, (0, 0); each export's is its handle
//!   identity, so the client sees one file system per export and mounts it where it is crossed.

mod set;

pub(crate) use set::decode_settable;

use nfs3_proto::{Fattr3, Ftype3, NfsTime3};
use nfs4_proto::attr::*;
use nfs4_proto::{Bitmap4, Fattr4, Fsid4, NfsErr4, NfsFtype4, NfsStat4, NfsTime4, RawFattr4, SpecData4, Utf8Str};

use super::context::Cx;
use super::errors::from_v3;
use super::fh::Fh;
use crate::backend::FsStats;

/// Longest name (as NFSv3's PATHCONF and knfsd answer).
pub(crate) const NAME_MAX: usize = 255;
/// Most hard links to one file (ext4's limit, as PATHCONF answers).
const LINK_MAX: u32 = 65_000;
/// RFC 8881 §5.8.1.3: FH4_PERSISTENT — handles never expire (those of a restarted `mem:` export are STALE).
const FH4_PERSISTENT: u32 = 0;

/// The attributes of NFSv4.1 this server answers (RFC 8881 §5.6, §5.7).
const SUPPORTED_41: &[u32] = &[
    FATTR4_SUPPORTED_ATTRS,
    FATTR4_TYPE,
    FATTR4_FH_EXPIRE_TYPE,
    FATTR4_CHANGE,
    FATTR4_SIZE,
    FATTR4_LINK_SUPPORT,
    FATTR4_SYMLINK_SUPPORT,
    FATTR4_NAMED_ATTR,
    FATTR4_FSID,
    FATTR4_UNIQUE_HANDLES,
    FATTR4_LEASE_TIME,
    FATTR4_RDATTR_ERROR,
    FATTR4_CANSETTIME,
    FATTR4_CASE_INSENSITIVE,
    FATTR4_CASE_PRESERVING,
    FATTR4_CHOWN_RESTRICTED,
    FATTR4_FILEHANDLE,
    FATTR4_FILEID,
    FATTR4_FILES_AVAIL,
    FATTR4_FILES_FREE,
    FATTR4_FILES_TOTAL,
    FATTR4_HOMOGENEOUS,
    FATTR4_MAXFILESIZE,
    FATTR4_MAXLINK,
    FATTR4_MAXNAME,
    FATTR4_MAXREAD,
    FATTR4_MAXWRITE,
    FATTR4_MODE,
    FATTR4_NO_TRUNC,
    FATTR4_NUMLINKS,
    FATTR4_OWNER,
    FATTR4_OWNER_GROUP,
    FATTR4_RAWDEV,
    FATTR4_SPACE_AVAIL,
    FATTR4_SPACE_FREE,
    FATTR4_SPACE_TOTAL,
    FATTR4_SPACE_USED,
    FATTR4_TIME_ACCESS,
    FATTR4_TIME_ACCESS_SET,
    FATTR4_TIME_DELTA,
    FATTR4_TIME_METADATA,
    FATTR4_TIME_MODIFY,
    FATTR4_TIME_MODIFY_SET,
    FATTR4_MOUNTED_ON_FILEID,
    FATTR4_SUPPATTR_EXCLCREAT,
];
/// NFSv4.2's additions (RFC 7862 §12.2, RFC 8275, RFC 8276).
const SUPPORTED_42: &[u32] = &[FATTR4_CHANGE_ATTR_TYPE, FATTR4_MODE_UMASK, FATTR4_XATTR_SUPPORT];
/// The attributes SETATTR and OPEN's create may set.
const WRITABLE: &[u32] = &[
    FATTR4_SIZE,
    FATTR4_MODE,
    FATTR4_OWNER,
    FATTR4_OWNER_GROUP,
    FATTR4_TIME_ACCESS_SET,
    FATTR4_TIME_MODIFY_SET,
    FATTR4_MODE_UMASK,
];
/// Attributes that carry no value of a file (write-only ones): never in a GETATTR answer.
const WRITE_ONLY: &[u32] = &[FATTR4_TIME_ACCESS_SET, FATTR4_TIME_MODIFY_SET, FATTR4_MODE_UMASK];

/// `supported_attrs` for minor version `minor`.
pub(crate) fn supported(minor: u32) -> Bitmap4 {
    let extra = if minor >= 2 { SUPPORTED_42 } else { &[] };
    Bitmap4::from_bits(SUPPORTED_41.iter().chain(extra).copied())
}

/// The attributes SETATTR may set in minor version `minor`.
pub(crate) fn writable(minor: u32) -> Bitmap4 {
    Bitmap4::from_bits(WRITABLE.iter().copied()).intersect(&supported(minor))
}

/// RFC 8881 §5.8.1.14 `suppattr_exclcreat`: what EXCLUSIVE4_1 may set besides the verifier — the writable
/// attributes but the times, which may hold the verifier (as knfsd), and the size, which the backends'
/// exclusive create does not take.
pub(crate) fn exclcreat(minor: u32) -> Bitmap4 {
    let mut bits = writable(minor);
    bits.clear(FATTR4_SIZE);
    bits.clear(FATTR4_TIME_ACCESS_SET);
    bits.clear(FATTR4_TIME_MODIFY_SET);
    bits
}

/// The `type` of a backend file type.
pub(crate) fn ftype4(t: Ftype3) -> NfsFtype4 {
    match t {
        Ftype3::Reg => NfsFtype4::Reg,
        Ftype3::Dir => NfsFtype4::Dir,
        Ftype3::Blk => NfsFtype4::Blk,
        Ftype3::Chr => NfsFtype4::Chr,
        Ftype3::Lnk => NfsFtype4::Lnk,
        Ftype3::Sock => NfsFtype4::Sock,
        Ftype3::Fifo => NfsFtype4::Fifo,
    }
}

pub(crate) fn time4(t: NfsTime3) -> NfsTime4 {
    NfsTime4 { seconds: i64::from(t.seconds), nseconds: t.nseconds }
}

/// The `change` attribute (as knfsd's nfsd4_change_attribute without i_version).
pub(crate) fn change(attrs: &Fattr3) -> u64 {
    (u64::from(attrs.ctime.seconds) << 30) + u64::from(attrs.ctime.nseconds)
}

/// The file system of a file: an export's identity, or the pseudo file system's (0, 0).
pub(crate) fn fsid(cx: &Cx<'_>, fh: Fh) -> Fsid4 {
    match fh {
        Fh::Pseudo(_) => Fsid4 { major: 0, minor: 0 },
        Fh::File { export, .. } => Fsid4 { major: cx.server.handles.identity(export), minor: 0 },
    }
}

/// The attributes of `fh` (with backend attributes `attrs`) in `requested` that this server supports,
/// as GETATTR answers them (RFC 8881 §18.7.3: unsupported ones are left out, not an error).
pub(crate) fn encode(cx: &Cx<'_>, fh: Fh, attrs: &Fattr3, requested: &Bitmap4) -> Result<RawFattr4<'static>, NfsErr4> {
    let want = requested.intersect(&supported(cx.minor));
    let is = |bit: u32| want.is_set(bit);
    let (export, mounted_on) = match fh {
        Fh::Pseudo(_) => (None, attrs.fileid),
        Fh::File { export, file } => {
            let e = cx.server.exports.get(usize::from(export)).ok_or(NfsErr4::Stale)?;
            let root_elsewhere = e.root == file && e.path != "/";
            (Some(e), if root_elsewhere { cx.svc.pseudo.mounted_on(export) } else { attrs.fileid })
        }
    };
    let needs_totals = [
        FATTR4_FILES_AVAIL,
        FATTR4_FILES_FREE,
        FATTR4_FILES_TOTAL,
        FATTR4_SPACE_AVAIL,
        FATTR4_SPACE_FREE,
        FATTR4_SPACE_TOTAL,
    ]
    .iter()
    .any(|b| is(*b));
    let totals = match (export, needs_totals) {
        (Some(e), true) => e.backend.fsstat().map_err(from_v3)?,
        _ => FsStats::default(),
    };
    let owner = attrs.uid.to_string();
    let group = attrs.gid.to_string();
    let fh_bytes = if is(FATTR4_FILEHANDLE) { Some(fh.encode(cx.server)) } else { None };
    let max_file = export.map_or(0, |e| e.backend.max_file_size());
    let delta = export.map_or(NfsTime3 { seconds: 0, nseconds: 1 }, |e| e.backend.time_delta());
    let max_io = u64::from(cx.server.max_io_size);
    let mut out = Fattr4 {
        supported_attrs: is(FATTR4_SUPPORTED_ATTRS).then(|| supported(cx.minor)),
        ftype: Some(ftype4(attrs.ftype)),
        fh_expire_type: Some(FH4_PERSISTENT),
        change: Some(change(attrs)),
        size: Some(attrs.size),
        link_support: Some(true),
        symlink_support: Some(true),
        named_attr: Some(false),
        fsid: Some(fsid(cx, fh)),
        unique_handles: Some(true),
        lease_time: Some(cx.svc.lease_seconds),
        cansettime: Some(true),
        case_insensitive: Some(false),
        case_preserving: Some(true),
        chown_restricted: Some(true),
        filehandle: fh_bytes,
        fileid: Some(attrs.fileid),
        files_avail: Some(totals.avail_files),
        files_free: Some(totals.free_files),
        files_total: Some(totals.total_files),
        homogeneous: Some(true),
        maxfilesize: Some(max_file),
        maxlink: Some(LINK_MAX),
        maxname: Some(NAME_MAX as u32),
        maxread: Some(max_io),
        maxwrite: Some(max_io),
        mode: Some(attrs.mode & 0o7777),
        no_trunc: Some(true),
        numlinks: Some(attrs.nlink),
        owner: Some(Utf8Str(owner.as_bytes())),
        owner_group: Some(Utf8Str(group.as_bytes())),
        rawdev: Some(SpecData4 { specdata1: attrs.rdev.specdata1, specdata2: attrs.rdev.specdata2 }),
        space_avail: Some(totals.avail_bytes),
        space_free: Some(totals.free_bytes),
        space_total: Some(totals.total_bytes),
        space_used: Some(attrs.used),
        time_access: Some(time4(attrs.atime)),
        time_delta: Some(time4(delta)),
        time_metadata: Some(time4(attrs.ctime)),
        time_modify: Some(time4(attrs.mtime)),
        mounted_on_fileid: Some(mounted_on),
        suppattr_exclcreat: is(FATTR4_SUPPATTR_EXCLCREAT).then(|| exclcreat(cx.minor)),
        change_attr_type: Some(ChangeAttrType4::TimeMetadata),
        xattr_support: Some(false),
        ..Fattr4::default()
    };
    // Write-only attributes have no value to answer (RFC 8881 §5.5).
    let mut answer = want;
    for bit in WRITE_ONLY {
        answer.clear(*bit);
    }
    // The attributes could be read: no error to report (knfsd answers NFS4_OK when it is asked for).
    out.rdattr_error = Some(NfsStat4::Ok);
    Ok(out.to_raw_masked(&answer))
}

/// The `fattr4` of a READDIR entry whose attributes could not be read: `rdattr_error` alone when asked
/// for (RFC 8881 §5.8.1.12), else `None` (the READDIR fails).
pub(crate) fn rdattr_error(requested: &Bitmap4, err: NfsErr4) -> Option<RawFattr4<'static>> {
    requested.is_set(FATTR4_RDATTR_ERROR).then(|| {
        let only = Fattr4 { rdattr_error: Some(err.status()), ..Fattr4::default() };
        only.to_raw()
    })
}
