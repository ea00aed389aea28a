//! Name operations: LOOKUP, ".." (parent), READLINK, REMOVE/RMDIR, RENAME and LINK (RFC 1813 §3.3.3, §3.3.5,
//! §3.3.12-§3.3.15), each a `*at` call on a directory fd with one checked component, followed by the
//! identity-map update that keeps handles valid across renames and makes removed files stale.

use std::os::fd::{AsFd, AsRawFd};

use nfs3_proto::{Ftype3, NfsErr3};
use rustix::fs::{linkat, openat, readlinkat, renameat, unlinkat, AtFlags, Mode, OFlags, Statx, CWD};
use rustix::io::Errno;

use super::errors::{check_name, nfs_err, plain_name, Name};
use super::open::{verify, Access, Handle};
use super::stat::{device, file_id, ftype_of, stat_at};
use super::DirBackend;
use crate::backend::{BackendResult, FileId};

impl DirBackend {
    /// The identity of `name` in an open directory, without following a symbolic link. A name that is a
    /// mount point of another file system is outside the export (NFS3ERR_ACCES).
    pub(crate) fn child(&self, dir: &Handle, name: &[u8]) -> BackendResult<(FileId, Statx)> {
        let st = stat_at(dir.fd.as_fd(), name).map_err(nfs_err)?;
        if device(&st) != self.root_dev {
            return Err(NfsErr3::Acces);
        }
        Ok((file_id(&st)?, st))
    }

    pub(crate) fn lookup_in(&self, dir: FileId, name: &[u8]) -> BackendResult<FileId> {
        let handle = self.resolve_dir(dir)?;
        match check_name(name)? {
            Name::Dot => Ok(dir),
            Name::DotDot => self.parent_of(dir),
            Name::Plain(name) => {
                let (file, _) = self.child(&handle, name)?;
                self.learn(file, dir, name);
                Ok(file)
            }
        }
    }

    /// The parent of a directory; the root is its own parent, so ".." never leads above the export.
    pub(crate) fn parent_of(&self, dir: FileId) -> BackendResult<FileId> {
        let handle = self.resolve_dir(dir)?;
        if dir == self.root.id {
            return Ok(dir);
        }
        let (parent, _) = self.child(&handle, b"..")?;
        if parent == self.root.id || self.fds.contains(parent) || self.map_read().contains(parent) {
            return Ok(parent);
        }
        // Unknown parent (its name was never learned): keep an fd so its handle works. `dir` is below the
        // root and is not the root, so its ".." is the root or below it.
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = openat(handle.fd.as_fd(), c"..", flags, Mode::empty()).map_err(nfs_err)?;
        self.cache(verify(fd, parent, Access::Read)?);
        Ok(parent)
    }

    pub(crate) fn readlink_of(&self, link: FileId) -> BackendResult<Vec<u8>> {
        let handle = self.resolve(link)?;
        if handle.ftype != Ftype3::Lnk {
            return Err(NfsErr3::Inval);
        }
        let target = readlinkat(handle.fd.as_fd(), c"", Vec::new()).map_err(nfs_err)?;
        Ok(target.into_bytes())
    }

    pub(crate) fn remove_in(&self, dir: FileId, name: &[u8], rmdir: bool) -> BackendResult<()> {
        let handle = self.resolve_dir(dir)?;
        let name = plain_name(name, NfsErr3::Inval)?;
        let (victim, st) = self.child(&handle, name)?;
        let is_dir = ftype_of(&st) == Some(Ftype3::Dir);
        match (rmdir, is_dir) {
            (true, false) => return Err(NfsErr3::NotDir),
            (false, true) => return Err(NfsErr3::IsDir),
            _ => {}
        }
        let flags = if rmdir { AtFlags::REMOVEDIR } else { AtFlags::empty() };
        unlinkat(handle.fd.as_fd(), name, flags).map_err(nfs_err)?;
        self.lose_name(victim, &st, dir, name);
        Ok(())
    }

    /// Updates the identity map after `name` in `dir` stopped naming `file` (`st` taken before): a
    /// directory or a file's last link is forgotten (its handle becomes stale), another hard link keeps it.
    fn lose_name(&self, file: FileId, st: &Statx, dir: FileId, name: &[u8]) {
        if ftype_of(st) == Some(Ftype3::Dir) || st.stx_nlink <= 1 {
            self.forget(file);
        } else {
            self.map_write().unlearn(file, dir, name);
        }
    }

    pub(crate) fn rename_in(&self, from_dir: FileId, from: &[u8], to_dir: FileId, to: &[u8]) -> BackendResult<()> {
        let from_handle = self.resolve_dir(from_dir)?;
        let to_handle = self.resolve_dir(to_dir)?;
        let from = plain_name(from, NfsErr3::Inval)?;
        let to = plain_name(to, NfsErr3::Inval)?;
        let (moved, _) = self.child(&from_handle, from)?;
        let replaced = match self.child(&to_handle, to) {
            Ok(found) => Some(found),
            Err(NfsErr3::NoEnt) => None,
            Err(e) => return Err(e),
        };
        renameat(from_handle.fd.as_fd(), from, to_handle.fd.as_fd(), to).map_err(|e| match e {
            // Linux reports a non-empty target directory as EEXIST or ENOTEMPTY (rename(2)).
            Errno::EXIST | Errno::NOTEMPTY => NfsErr3::NotEmpty,
            other => nfs_err(other),
        })?;
        if replaced.as_ref().is_some_and(|(file, _)| *file == moved) {
            return Ok(()); // Both names were links to one file: POSIX rename does nothing.
        }
        if let Some((file, st)) = replaced {
            self.lose_name(file, &st, to_dir, to);
        }
        self.map_write().unlearn(moved, from_dir, from);
        self.learn(moved, to_dir, to);
        Ok(())
    }

    pub(crate) fn link_in(&self, file: FileId, dir: FileId, name: &[u8]) -> BackendResult<()> {
        let target = self.resolve(file)?;
        if target.is_dir() {
            return Err(NfsErr3::IsDir);
        }
        let handle = self.resolve_dir(dir)?;
        let name = plain_name(name, NfsErr3::Exist)?;
        let linked = linkat(target.fd.as_fd(), c"", handle.fd.as_fd(), name, AtFlags::EMPTY_PATH);
        match linked {
            Ok(()) => {}
            // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; without it link through /proc/self/fd (same inode).
            Err(Errno::NOENT) => {
                let proc_path = format!("/proc/self/fd/{}", target.fd.as_raw_fd());
                let linked = linkat(CWD, proc_path.as_str(), handle.fd.as_fd(), name, AtFlags::SYMLINK_FOLLOW);
                linked.map_err(|e| if e == Errno::NOENT { NfsErr3::Stale } else { nfs_err(e) })?;
            }
            Err(e) => return Err(nfs_err(e)),
        }
        self.learn(file, dir, name);
        Ok(())
    }
}
