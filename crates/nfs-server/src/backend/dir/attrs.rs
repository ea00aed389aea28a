//! GETATTR and SETATTR (RFC 1813 §3.3.1, §3.3.2), and the attribute setting CREATE shares.
//!
//! Attributes are changed through the file's own fd, never by name: `fchownat(fd, "", AT_EMPTY_PATH)` and
//! `utimensat(fd, "", AT_EMPTY_PATH)` work on every kind of fd; mode changes use `fchmod`, or for O_PATH fds
//! (devices, FIFOs, sockets) `chmod("/proc/self/fd/N")`, which names that exact inode. Order: owner first
//! (it may clear set-id bits), then mode, size, and times last (a truncation would otherwise move mtime).

use std::os::fd::{AsFd, AsRawFd};
use std::sync::Arc;

use nfs3_proto::{Fattr3, Ftype3, NfsErr3, Sattr3, SetTime3};
use rustix::fs::{chmodat, chownat, fchmod, ftruncate, utimensat, AtFlags, Gid, Mode, Timestamps, Uid, CWD};
use rustix::fs::{Timespec, UTIME_NOW, UTIME_OMIT};

use super::errors::nfs_err;
use super::io::MAX_FILE_SIZE;
use super::open::{Access, Handle};
use super::stat::{fattr, stat_fd};
use super::DirBackend;
use crate::backend::{BackendResult, FileId};

/// When attributes are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Setting {
    /// SETATTR: every failure is reported.
    Explicit,
    /// Initial attributes of a new file: an owner the server may not give away (EPERM when it does not run as
    /// root) is left as created, so unprivileged servers can still create files.
    Initial,
}

fn timespec(how: SetTime3) -> Result<Timespec, NfsErr3> {
    Ok(match how {
        SetTime3::DontChange => Timespec { tv_sec: 0, tv_nsec: UTIME_OMIT },
        SetTime3::SetToServerTime => Timespec { tv_sec: 0, tv_nsec: UTIME_NOW },
        SetTime3::SetToClientTime(t) if t.nseconds < 1_000_000_000 => {
            Timespec { tv_sec: i64::from(t.seconds), tv_nsec: i64::from(t.nseconds) }
        }
        SetTime3::SetToClientTime(_) => return Err(NfsErr3::Inval),
    })
}

/// A uid or gid from the wire; `u32::MAX` is `-1`, which the kernel reads as "unchanged", so it is refused.
fn id_value(raw: Option<u32>) -> Result<Option<u32>, NfsErr3> {
    match raw {
        Some(u32::MAX) => Err(NfsErr3::Inval),
        other => Ok(other),
    }
}

impl DirBackend {
    pub(crate) fn getattr_of(&self, file: FileId) -> BackendResult<Fattr3> {
        let handle = self.resolve(file)?;
        self.attrs_of(&handle)
    }

    /// Current attributes of an open file; a file that lost its last name (removed by someone else) is stale.
    pub(crate) fn attrs_of(&self, handle: &Handle) -> BackendResult<Fattr3> {
        let st = stat_fd(handle.fd.as_fd())?;
        if st.stx_nlink == 0 {
            self.forget(handle.id);
            return Err(NfsErr3::Stale);
        }
        fattr(&st)
    }

    pub(crate) fn setattr_of(&self, file: FileId, attrs: &Sattr3) -> BackendResult<Fattr3> {
        let handle = self.resolve(file)?;
        let handle = self.apply_attrs(handle, attrs, Setting::Explicit)?;
        self.attrs_of(&handle)
    }

    /// Applies `attrs` to an open file; returns the handle used (it may have been reopened for writing).
    pub(crate) fn apply_attrs(&self, handle: Arc<Handle>, a: &Sattr3, when: Setting) -> BackendResult<Arc<Handle>> {
        let (uid, gid) = (id_value(a.uid)?, id_value(a.gid)?);
        if uid.is_some() || gid.is_some() {
            let flags = AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW;
            match chownat(handle.fd.as_fd(), c"", uid.map(Uid::from_raw), gid.map(Gid::from_raw), flags) {
                Ok(()) => {}
                Err(rustix::io::Errno::PERM) if when == Setting::Initial => {}
                Err(e) => return Err(nfs_err(e)),
            }
        }
        // Linux ignores mode changes of symbolic links (their permissions are always 0777), as knfsd does.
        if let (Some(mode), false) = (a.mode, handle.ftype == Ftype3::Lnk) {
            set_mode(&handle, Mode::from_raw_mode(mode & 0o7777))?;
        }
        let handle = match (a.size, handle.ftype) {
            (None, _) => handle,
            (Some(_), Ftype3::Dir) => return Err(NfsErr3::IsDir),
            (Some(size), Ftype3::Reg) => {
                if size > MAX_FILE_SIZE {
                    return Err(NfsErr3::FBig);
                }
                let writable = self.upgrade(handle, Access::ReadWrite)?;
                ftruncate(writable.fd.as_fd(), size).map_err(nfs_err)?;
                writable
            }
            (Some(_), _) => return Err(NfsErr3::Inval),
        };
        if a.atime != SetTime3::DontChange || a.mtime != SetTime3::DontChange {
            let times = Timestamps { last_access: timespec(a.atime)?, last_modification: timespec(a.mtime)? };
            let flags = AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW;
            utimensat(handle.fd.as_fd(), c"", &times, flags).map_err(nfs_err)?;
        }
        Ok(handle)
    }
}

fn set_mode(handle: &Handle, mode: Mode) -> Result<(), NfsErr3> {
    if handle.access != Access::Path {
        return fchmod(handle.fd.as_fd(), mode).map_err(nfs_err);
    }
    let proc_path = format!("/proc/self/fd/{}", handle.fd.as_raw_fd());
    chmodat(CWD, proc_path.as_str(), mode, AtFlags::empty()).map_err(nfs_err)
}
