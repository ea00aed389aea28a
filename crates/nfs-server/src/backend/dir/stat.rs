//! `statx` results turned into identities ([`FileId`]) and NFSv3 attributes ([`Fattr3`]).
//!
//! Identity: `FileId { id: st_ino, generation }` where `generation` is the file's birth time (statx
//! STATX_BTIME, in nanoseconds, low 60 bits) with the file type in the top 4 bits. A birth time never changes
//! for the life of an inode and differs (at nanosecond resolution) when the file system hands the same inode
//! number to a new file, so a handle to a removed file never names its successor. On file systems that do not
//! report birth times the generation is the file type alone; inode reuse by a file of the same type is then
//! not detected (the identity map still forgets removed files, see `map.rs`).

use std::os::fd::BorrowedFd;

use nfs3_proto::{Fattr3, Ftype3, NfsErr3, NfsTime3, SpecData3};
use rustix::fs::{statx, AtFlags, FileType, Statx, StatxFlags, StatxTimestamp};
use rustix::io::Errno;

use super::errors::nfs_err;
use crate::backend::FileId;

/// What every stat asks for: the basic fields and the birth time.
const MASK: StatxFlags = StatxFlags::BASIC_STATS.union(StatxFlags::BTIME);

/// Attributes of the file an fd refers to (any kind of fd, including O_PATH).
pub(crate) fn stat_fd(fd: BorrowedFd<'_>) -> Result<Statx, NfsErr3> {
    statx(fd, c"", AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW, MASK).map_err(nfs_err)
}

/// Attributes of `name` in directory `dir`, never following a symbolic link. `name` must be a checked single
/// component.
pub(crate) fn stat_at(dir: BorrowedFd<'_>, name: &[u8]) -> Result<Statx, Errno> {
    statx(dir, name, AtFlags::SYMLINK_NOFOLLOW, MASK)
}

/// The NFS file type of a `statx` mode; `None` for types NFSv3 cannot describe.
pub(crate) fn ftype_of(st: &Statx) -> Option<Ftype3> {
    Some(match FileType::from_raw_mode(u32::from(st.stx_mode)) {
        FileType::RegularFile => Ftype3::Reg,
        FileType::Directory => Ftype3::Dir,
        FileType::Symlink => Ftype3::Lnk,
        FileType::Fifo => Ftype3::Fifo,
        FileType::Socket => Ftype3::Sock,
        FileType::CharacterDevice => Ftype3::Chr,
        FileType::BlockDevice => Ftype3::Blk,
        FileType::Unknown => return None,
    })
}

/// The device a file lives on (`st_dev`).
pub(crate) fn device(st: &Statx) -> u64 {
    rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor)
}

/// The identity of the file `st` describes.
pub(crate) fn file_id(st: &Statx) -> Result<FileId, NfsErr3> {
    let ftype = ftype_of(st).ok_or(NfsErr3::BadType)?;
    let birth = if st.stx_mask & StatxFlags::BTIME.bits() != 0 {
        (st.stx_btime.tv_sec as u64).wrapping_mul(1_000_000_000).wrapping_add(u64::from(st.stx_btime.tv_nsec))
    } else {
        0
    };
    Ok(FileId { id: st.stx_ino, generation: (birth & (u64::MAX >> 4)) | (u64::from(ftype.as_u32()) << 60) })
}

/// The file type recorded in a [`FileId`]'s generation.
pub(crate) fn ftype_of_id(file: FileId) -> Option<Ftype3> {
    Ftype3::from_u32((file.generation >> 60) as u32)
}

/// NFS time from a kernel timestamp: times before 1970 read as 0, after 2106 as the largest value.
pub(crate) fn nfs_time(t: StatxTimestamp) -> NfsTime3 {
    let seconds = u32::try_from(t.tv_sec.max(0)).unwrap_or(u32::MAX);
    NfsTime3 { seconds, nseconds: t.tv_nsec.min(999_999_999) }
}

/// `fattr3` (RFC 1813 §2.6) of the file `st` describes: `fsid` is `st_dev`, `fileid` is `st_ino`, `used` is
/// the allocated bytes (so sparse files show their holes).
pub(crate) fn fattr(st: &Statx) -> Result<Fattr3, NfsErr3> {
    let ftype = ftype_of(st).ok_or(NfsErr3::BadType)?;
    let rdev = match ftype {
        Ftype3::Chr | Ftype3::Blk => SpecData3 { specdata1: st.stx_rdev_major, specdata2: st.stx_rdev_minor },
        _ => SpecData3::default(),
    };
    Ok(Fattr3 {
        ftype,
        mode: u32::from(st.stx_mode) & 0o7777,
        nlink: st.stx_nlink,
        uid: st.stx_uid,
        gid: st.stx_gid,
        size: st.stx_size,
        used: st.stx_blocks.saturating_mul(512),
        rdev,
        fsid: device(st),
        fileid: st.stx_ino,
        atime: nfs_time(st.stx_atime),
        mtime: nfs_time(st.stx_mtime),
        ctime: nfs_time(st.stx_ctime),
    })
}
