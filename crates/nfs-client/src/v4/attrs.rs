//! File attributes for NFSv4 (RFC 8881 §5), sans I/O: the attributes the client asks GETATTR for, and
//! `fattr4` read into the version-neutral [`Attr`] (owners as numeric ids, as Linux sends and reads them
//! with `sec=sys` when id mapping is off; a name is `nobody`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mount_options::NOBODY;
use nfs4_proto::attr::*;
use nfs4_proto::{Bitmap4, Fattr4, NfsFtype4, NfsTime4, RawFattr4};

use crate::types::{Attr, FileKind};

/// What GETATTR asks for every file: what [`Attr`] holds.
pub(crate) fn file_attrs() -> Bitmap4 {
    Bitmap4::from_bits([
        FATTR4_TYPE,
        FATTR4_SIZE,
        FATTR4_FSID,
        FATTR4_FILEID,
        FATTR4_MODE,
        FATTR4_NUMLINKS,
        FATTR4_OWNER,
        FATTR4_OWNER_GROUP,
        FATTR4_SPACE_USED,
        FATTR4_TIME_ACCESS,
        FATTR4_TIME_METADATA,
        FATTR4_TIME_MODIFY,
    ])
}

/// What GETATTR asks of the export's root at mount: the file's attributes and the file system's, as
/// FSINFO does for NFSv3 (largest READ and WRITE) and the lease time.
pub(crate) fn root_attrs() -> Bitmap4 {
    let mut bits = file_attrs();
    for bit in [FATTR4_LEASE_TIME, FATTR4_MAXREAD, FATTR4_MAXWRITE] {
        bits.set(bit);
    }
    bits
}

/// Attributes to set: a mode and/or a size.
pub(crate) fn set_attrs(mode: Option<u32>, size: Option<u64>) -> RawFattr4<'static> {
    Fattr4 { mode, size, ..Fattr4::default() }.to_raw()
}

/// The file system facts of the root's attributes: `(maxread, maxwrite, lease_time)`, 0 when absent.
pub(crate) fn fs_limits(a: &Fattr4<'_>) -> (u64, u64, u32) {
    (a.maxread.unwrap_or(0), a.maxwrite.unwrap_or(0), a.lease_time.unwrap_or(0))
}

fn kind(t: NfsFtype4) -> FileKind {
    match t {
        NfsFtype4::Dir | NfsFtype4::AttrDir => FileKind::Directory,
        NfsFtype4::Blk => FileKind::BlockDevice,
        NfsFtype4::Chr => FileKind::CharDevice,
        NfsFtype4::Lnk => FileKind::Symlink,
        NfsFtype4::Sock => FileKind::Socket,
        NfsFtype4::Fifo => FileKind::Fifo,
        _ => FileKind::Regular,
    }
}

fn time(t: Option<NfsTime4>) -> SystemTime {
    match t {
        Some(t) if t.seconds >= 0 => UNIX_EPOCH + Duration::new(t.seconds as u64, t.nseconds.min(999_999_999)),
        Some(t) => UNIX_EPOCH.checked_sub(Duration::from_secs(t.seconds.unsigned_abs())).unwrap_or(UNIX_EPOCH),
        None => UNIX_EPOCH,
    }
}

/// A numeric owner (`"1000"`) as its id; a name (`"user@domain"`) is `nobody`.
fn id(owner: Option<&[u8]>) -> u32 {
    owner.and_then(|o| std::str::from_utf8(o).ok()).and_then(|s| s.parse().ok()).unwrap_or(NOBODY)
}

/// [`Attr`] from the attributes a server returned.
pub(crate) fn to_attr(a: &Fattr4<'_>) -> Attr {
    Attr {
        kind: a.ftype.map_or(FileKind::Regular, kind),
        mode: a.mode.unwrap_or(0) & 0o7777,
        nlink: a.numlinks.unwrap_or(1),
        uid: id(a.owner.as_ref().map(|o| o.0)),
        gid: id(a.owner_group.as_ref().map(|g| g.0)),
        size: a.size.unwrap_or(0),
        used: a.space_used.unwrap_or(0),
        fsid: a.fsid.map_or(0, |f| f.major ^ f.minor.rotate_left(32)),
        fileid: a.fileid.unwrap_or(0),
        atime: time(a.time_access),
        mtime: time(a.time_modify),
        ctime: time(a.time_metadata),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs4_proto::{Fsid4, Utf8Str};

    #[test]
    fn a_server_fattr4_becomes_an_attr_with_numeric_owners() {
        let a = Fattr4 {
            ftype: Some(NfsFtype4::Dir),
            mode: Some(0o40755),
            numlinks: Some(3),
            owner: Some(Utf8Str(b"1000")),
            owner_group: Some(Utf8Str(b"users@example.org")),
            size: Some(4096),
            fileid: Some(77),
            fsid: Some(Fsid4 { major: 1, minor: 0 }),
            time_modify: Some(NfsTime4 { seconds: 10, nseconds: 5 }),
            ..Fattr4::default()
        };
        let attr = to_attr(&a);
        assert_eq!(
            (attr.kind, attr.mode, attr.nlink, attr.uid, attr.gid),
            (FileKind::Directory, 0o755, 3, 1000, NOBODY)
        );
        assert_eq!((attr.size, attr.fileid, attr.fsid), (4096, 77, 1));
        assert_eq!(attr.mtime, UNIX_EPOCH + Duration::new(10, 5));
        assert_eq!(attr.atime, UNIX_EPOCH, "absent times are the epoch");
    }

    #[test]
    fn the_root_asks_for_the_limits_and_the_lease() {
        let bits = root_attrs();
        for bit in [FATTR4_MAXREAD, FATTR4_MAXWRITE, FATTR4_LEASE_TIME, FATTR4_TYPE, FATTR4_SIZE] {
            assert!(bits.is_set(bit), "{bit}");
        }
        assert!(!file_attrs().is_set(FATTR4_LEASE_TIME));
        let a = Fattr4 { maxread: Some(1 << 20), maxwrite: Some(65536), lease_time: Some(90), ..Fattr4::default() };
        assert_eq!(fs_limits(&a), (1 << 20, 65536, 90));
        let raw = set_attrs(Some(0o644), Some(0));
        let back = raw.decode_attrs().expect("decodes");
        assert_eq!((back.mode, back.size), (Some(0o644), Some(0)));
    }
}
