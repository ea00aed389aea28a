//! Opening files without ever leaving the export, and finding a [`FileId`]'s file again.
//!
//! Escape prevention, in layers:
//! - Every name given to a system call is one checked component (`errors::check_name`): no '/', no NUL,
//!   never "." or ".." (".." is answered by `Backend::parent`, which stops at the root).
//! - Files are opened one component at a time from the root's fd (or from a cached directory fd that was
//!   itself opened that way) with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
//!   RESOLVE_NO_XDEV)`: the kernel refuses to follow any symbolic link, to go above the starting directory,
//!   or to cross into another mount. Symbolic links are opened as O_PATH fds of the link itself (for
//!   READLINK and attributes) and never traversed.
//! - Other `*at` calls (mkdir, mknod, symlink, link, rename, unlink, statx) take a directory fd and a single
//!   component and do not follow a symbolic link in it.
//! - Every open checks that the inode found is the one the [`FileId`] names (inode number and birth-time
//!   generation), so a name that now holds another file answers NFS3ERR_STALE.
//!
//! Outside the model: a local process (not an NFS client) that moves a directory out of the export while
//! the server holds an fd for it.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::sync::Arc;

use nfs3_proto::{Ftype3, NfsErr3};
use rustix::fs::{openat, openat2, Mode, OFlags, ResolveFlags, CWD};
use rustix::io::Errno;

use super::errors::nfs_err;
use super::map::Link;
use super::stat::{file_id, ftype_of_id, stat_fd};
use super::DirBackend;
use crate::backend::FileId;

/// Deepest directory chain followed when reopening a file from the identity map.
const MAX_DEPTH: usize = 4096;

/// openat2 resolution rules for every open below the root.
const RESOLVE: ResolveFlags = ResolveFlags::BENEATH
    .union(ResolveFlags::NO_SYMLINKS)
    .union(ResolveFlags::NO_MAGICLINKS)
    .union(ResolveFlags::NO_XDEV);

/// Opens one checked component below `dir` with [`RESOLVE`]. Kernels before 5.6 lack openat2 (ENOSYS); there
/// plain `openat` with O_NOFOLLOW is used, which for a single component that is neither "." nor ".." cannot
/// follow a link or leave `dir` either (only the mount check is lost; identities are still verified).
pub(crate) fn open_beneath(dir: BorrowedFd<'_>, name: &[u8], flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
    match openat2(dir, name, flags, mode, RESOLVE) {
        Err(Errno::NOSYS) => openat(dir, name, flags | OFlags::NOFOLLOW, mode),
        other => other,
    }
}

/// What an open fd allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Access {
    /// O_PATH: identity, attributes and `*at` calls only.
    Path,
    Read,
    ReadWrite,
}

/// An open file of the export.
#[derive(Debug)]
pub(crate) struct Handle {
    pub fd: OwnedFd,
    pub id: FileId,
    pub ftype: Ftype3,
    pub access: Access,
}

impl Handle {
    pub(crate) fn is_dir(&self) -> bool {
        self.ftype == Ftype3::Dir
    }
}

/// Open flags; openat2 refuses O_PATH combined with anything but O_CLOEXEC, O_DIRECTORY and O_NOFOLLOW.
fn flags_for(ftype: Ftype3, access: Access) -> OFlags {
    let dir = if ftype == Ftype3::Dir { OFlags::DIRECTORY } else { OFlags::empty() };
    OFlags::CLOEXEC
        | OFlags::NOFOLLOW
        | dir
        | match access {
            Access::Path => OFlags::PATH,
            Access::Read => OFlags::RDONLY | OFlags::NOCTTY,
            Access::ReadWrite => OFlags::RDWR | OFlags::NOCTTY,
        }
}

/// The accesses tried, best first, when opening a file of type `ftype`: regular files read-write (falling
/// back when the server's own credentials or a read-only file system refuse), directories for reading,
/// everything else (symbolic links, devices, FIFOs, sockets) as O_PATH so that opening has no side effect.
fn accesses(ftype: Ftype3) -> &'static [Access] {
    match ftype {
        Ftype3::Reg => &[Access::ReadWrite, Access::Read, Access::Path],
        Ftype3::Dir => &[Access::Read, Access::Path],
        _ => &[Access::Path],
    }
}

/// Opens the single component `name` of directory `dir`, expected to be of type `ftype`, with the best
/// access allowed. Never follows a symbolic link and never leaves `dir`.
pub(crate) fn open_child(dir: BorrowedFd<'_>, name: &[u8], ftype: Ftype3) -> Result<(OwnedFd, Access), Errno> {
    let mut last = Errno::ACCESS;
    for &access in accesses(ftype) {
        match open_beneath(dir, name, flags_for(ftype, access), Mode::empty()) {
            Ok(fd) => return Ok((fd, access)),
            Err(e @ (Errno::ACCESS | Errno::PERM | Errno::ROFS | Errno::TXTBSY)) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Checks that `fd` is the file `expect` names and still has a name somewhere.
pub(crate) fn verify(fd: OwnedFd, expect: FileId, access: Access) -> Result<Handle, NfsErr3> {
    let st = stat_fd(fd.as_fd())?;
    if file_id(&st)? != expect || st.stx_nlink == 0 {
        return Err(NfsErr3::Stale);
    }
    let ftype = ftype_of_id(expect).ok_or(NfsErr3::Stale)?;
    Ok(Handle { fd, id: expect, ftype, access })
}

/// Why reopening a remembered name failed.
enum Miss {
    /// The name no longer leads to the file (removed, replaced, swapped for a link): forget the name.
    Gone,
    /// Something else (out of descriptors, permissions): report it, keep the name.
    Failed(NfsErr3),
}

fn open_verified(dir: &Handle, name: &[u8], expect: FileId) -> Result<Handle, Miss> {
    let ftype = ftype_of_id(expect).ok_or(Miss::Gone)?;
    if !dir.is_dir() {
        return Err(Miss::Gone);
    }
    let (fd, access) = open_child(dir.fd.as_fd(), name, ftype).map_err(|e| match e {
        Errno::NOENT | Errno::NOTDIR | Errno::LOOP | Errno::XDEV | Errno::ISDIR => Miss::Gone,
        other => Miss::Failed(nfs_err(other)),
    })?;
    verify(fd, expect, access).map_err(|e| if e == NfsErr3::Stale { Miss::Gone } else { Miss::Failed(e) })
}

impl DirBackend {
    /// The open file a [`FileId`] names: from the fd cache, else reopened through the identity map.
    /// NFS3ERR_STALE when the file is gone, unknown, or its names now hold other files.
    pub(crate) fn resolve(&self, file: FileId) -> Result<Arc<Handle>, NfsErr3> {
        if file == self.root.id {
            return Ok(Arc::clone(&self.root));
        }
        if let Some(handle) = self.fds.get(file) {
            return Ok(handle);
        }
        self.resolve_uncached(file)
    }

    /// Like [`DirBackend::resolve`] for a file that must be a directory.
    pub(crate) fn resolve_dir(&self, dir: FileId) -> Result<Arc<Handle>, NfsErr3> {
        let handle = self.resolve(dir)?;
        if handle.is_dir() {
            Ok(handle)
        } else {
            Err(NfsErr3::NotDir)
        }
    }

    /// Reopens `file` through its remembered names; when none leads to it (unknown since the server started,
    /// forgotten, or moved outside the server), searches the export for it (`dir/find.rs`) and tries again.
    fn resolve_uncached(&self, file: FileId) -> Result<Arc<Handle>, NfsErr3> {
        match self.resolve_known(file) {
            Err(NfsErr3::Stale) => {
                self.find(file)?;
                self.resolve_known(file)
            }
            other => other,
        }
    }

    fn resolve_known(&self, file: FileId) -> Result<Arc<Handle>, NfsErr3> {
        let links: Vec<Link> = self.map_read().links(file).map(<[Link]>::to_vec).unwrap_or_default();
        for link in links {
            let opened = match self.resolve_ancestor(link.parent) {
                Ok(dir) => open_verified(&dir, &link.name, file),
                Err(NfsErr3::Stale) => Err(Miss::Gone),
                Err(e) => Err(Miss::Failed(e)),
            };
            match opened {
                Ok(handle) => return Ok(self.cache(handle)),
                Err(Miss::Gone) => self.map_write().unlearn(file, link.parent, &link.name),
                Err(Miss::Failed(e)) => return Err(e),
            }
        }
        Err(NfsErr3::Stale)
    }

    /// Opens directory `dir` by walking up its first links to the root or a cached directory, then down one
    /// component at a time.
    fn resolve_ancestor(&self, dir: FileId) -> Result<Arc<Handle>, NfsErr3> {
        let mut chain: Vec<(FileId, Link)> = Vec::new();
        let mut current = dir;
        let mut handle = loop {
            if current == self.root.id {
                break Arc::clone(&self.root);
            }
            if let Some(cached) = self.fds.get(current) {
                break cached;
            }
            if chain.len() >= MAX_DEPTH {
                return Err(NfsErr3::Stale);
            }
            let link = self.map_read().links(current).and_then(<[Link]>::first).cloned().ok_or(NfsErr3::Stale)?;
            let parent = link.parent;
            chain.push((current, link));
            current = parent;
        };
        for (id, link) in chain.iter().rev() {
            match open_verified(&handle, &link.name, *id) {
                Ok(opened) => handle = self.cache(opened),
                Err(Miss::Gone) => {
                    self.map_write().unlearn(*id, link.parent, &link.name);
                    return Err(NfsErr3::Stale);
                }
                Err(Miss::Failed(e)) => return Err(e),
            }
        }
        Ok(handle)
    }

    /// Caches a freshly opened handle and returns it shared.
    pub(crate) fn cache(&self, handle: Handle) -> Arc<Handle> {
        let handle = Arc::new(handle);
        self.fds.insert(Arc::clone(&handle));
        handle
    }

    /// A handle for the same file allowing at least `need`: reopened through `/proc/self/fd` (the exact same
    /// inode; nothing is resolved by name), or by name through the identity map when /proc is not mounted.
    pub(crate) fn upgrade(&self, handle: Arc<Handle>, need: Access) -> Result<Arc<Handle>, NfsErr3> {
        if handle.access >= need {
            return Ok(handle);
        }
        let proc_path = format!("/proc/self/fd/{}", handle.fd.as_raw_fd());
        let flags = flags_for(handle.ftype, need) & !OFlags::NOFOLLOW;
        match openat(CWD, proc_path.as_str(), flags, Mode::empty()) {
            Ok(fd) => Ok(self.cache(verify(fd, handle.id, need)?)),
            Err(e @ (Errno::ACCESS | Errno::PERM | Errno::ROFS | Errno::TXTBSY | Errno::ISDIR)) => Err(nfs_err(e)),
            Err(_) if handle.id != self.root.id => {
                self.fds.remove(handle.id);
                let reopened = self.resolve_uncached(handle.id)?;
                if reopened.access >= need {
                    Ok(reopened)
                } else {
                    Err(NfsErr3::Acces)
                }
            }
            Err(e) => Err(nfs_err(e)),
        }
    }
}
