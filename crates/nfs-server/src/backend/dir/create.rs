//! CREATE, MKDIR, SYMLINK and MKNOD (RFC 1813 §3.3.8-§3.3.11).
//!
//! Regular files are created with `openat2(O_CREAT | O_EXCL | O_NOFOLLOW)` below the directory fd, so a
//! dangling symbolic link is never followed to create a file elsewhere. UNCHECKED reuses an existing regular
//! file and, as Linux knfsd does, applies only the size from the given attributes (open(2) with O_CREAT does
//! not change an existing file's mode or owner). EXCLUSIVE stores the verifier where knfsd does: its first
//! four bytes (native order, high bit cleared) as the mtime seconds and the next four as the atime seconds,
//! nanoseconds zero; a retransmitted CREATE finds an empty regular file with those times and succeeds with
//! the same file (the client then sets the real attributes with SETATTR). New nodes get the requested mode
//! explicitly (the server's umask does not apply) and the requested owner when the server may give it.

use std::os::fd::AsFd;

use nfs3_proto::{CreateVerf3, Ftype3, NfsErr3, Sattr3, SetTime3, SpecData3};
use rustix::fs::{futimens, Timespec};
use rustix::fs::{makedev, mkdirat, mknodat, symlinkat, FileType, Mode, OFlags, Statx, Timestamps};
use rustix::io::Errno;

use super::attrs::Setting;
use super::errors::{nfs_err, plain_name};
use super::open::{open_beneath, open_child, verify, Access, Handle};
use super::stat::{file_id, ftype_of, stat_fd};
use super::DirBackend;
use crate::backend::{BackendResult, CreateMode, FileId, NewNode};

/// The verifier's two halves as knfsd stores them: (mtime seconds, atime seconds).
fn verifier_times(verf: CreateVerf3) -> (i64, i64) {
    let [a, b, c, d, e, f, g, h] = verf.0;
    let mtime = u32::from_ne_bytes([a, b, c, d]) & 0x7fff_ffff;
    let atime = u32::from_ne_bytes([e, f, g, h]) & 0x7fff_ffff;
    (i64::from(mtime), i64::from(atime))
}

/// True when `st` is the empty regular file an EXCLUSIVE create with `verf` left behind.
fn made_by(st: &Statx, verf: CreateVerf3) -> bool {
    let (mtime, atime) = verifier_times(verf);
    ftype_of(st) == Some(Ftype3::Reg)
        && st.stx_size == 0
        && st.stx_mtime.tv_sec == mtime
        && st.stx_atime.tv_sec == atime
}

fn mode_bits(attrs: &Sattr3, default: u32) -> Mode {
    Mode::from_raw_mode(attrs.mode.unwrap_or(default) & 0o7777)
}

impl DirBackend {
    pub(crate) fn create_in(
        &self,
        dir: FileId,
        name: &[u8],
        node: NewNode<'_>,
        how: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        let parent = self.resolve_dir(dir)?;
        let name = plain_name(name, NfsErr3::Exist)?;
        let fd = parent.fd.as_fd();
        let (handle, initial) = match node {
            NewNode::File { exclusive } => return self.create_file(&parent, dir, name, how, exclusive, attrs),
            NewNode::Directory => {
                mkdirat(fd, name, mode_bits(attrs, 0o755)).map_err(nfs_err)?;
                (self.open_new(&parent, name, Ftype3::Dir)?, *attrs)
            }
            NewNode::Symlink { target } => {
                symlinkat(target, fd, name).map_err(nfs_err)?;
                (self.open_new(&parent, name, Ftype3::Lnk)?, Sattr3 { mode: None, size: None, ..*attrs })
            }
            NewNode::Special { ftype, rdev } => {
                let (kind, dev) = special(ftype, rdev)?;
                mknodat(fd, name, kind, mode_bits(attrs, 0o644), dev).map_err(nfs_err)?;
                (self.open_new(&parent, name, ftype)?, Sattr3 { size: None, ..*attrs })
            }
        };
        self.learn(handle.id, dir, name);
        let id = handle.id;
        self.apply_attrs(self.cache(handle), &initial, Setting::Initial)?;
        Ok(id)
    }

    /// Opens a node just made by mkdir/symlink/mknod and checks it is what was made.
    fn open_new(&self, parent: &Handle, name: &[u8], ftype: Ftype3) -> BackendResult<Handle> {
        let (fd, access) = open_child(parent.fd.as_fd(), name, ftype).map_err(nfs_err)?;
        let st = stat_fd(fd.as_fd())?;
        if ftype_of(&st) != Some(ftype) {
            return Err(NfsErr3::Exist);
        }
        verify(fd, file_id(&st)?, access)
    }

    fn create_file(
        &self,
        parent: &Handle,
        dir: FileId,
        name: &[u8],
        how: CreateMode,
        exclusive: Option<CreateVerf3>,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        let verf = match how {
            CreateMode::Exclusive => Some(exclusive.unwrap_or_default()),
            CreateMode::Unchecked | CreateMode::Guarded => None,
        };
        // Two rounds: an UNCHECKED create whose file vanishes between the checks tries once more.
        for _ in 0..2 {
            match self.create_regular(parent, name, mode_bits(attrs, 0o644)) {
                Ok(handle) => {
                    let id = handle.id;
                    self.learn(id, dir, name);
                    let initial = match verf {
                        // RFC 1813 §3.3.8: EXCLUSIVE has no initial attributes beyond the verifier.
                        Some(_) => {
                            Sattr3 { size: None, atime: SetTime3::DontChange, mtime: SetTime3::DontChange, ..*attrs }
                        }
                        None => *attrs,
                    };
                    let handle = self.apply_attrs(self.cache(handle), &initial, Setting::Initial)?;
                    if let Some(verf) = verf {
                        let (mtime, atime) = verifier_times(verf);
                        let times = Timestamps {
                            last_access: Timespec { tv_sec: atime, tv_nsec: 0 },
                            last_modification: Timespec { tv_sec: mtime, tv_nsec: 0 },
                        };
                        futimens(handle.fd.as_fd(), &times).map_err(nfs_err)?;
                    }
                    return Ok(id);
                }
                Err(NfsErr3::Exist) => {}
                Err(e) => return Err(e),
            }
            let st = match self.child(parent, name) {
                Ok((_, st)) => st,
                Err(NfsErr3::NoEnt) => continue,
                Err(e) => return Err(e),
            };
            let file = file_id(&st)?;
            let reusable = match (how, verf) {
                (CreateMode::Exclusive, Some(verf)) => made_by(&st, verf),
                (CreateMode::Unchecked, _) => ftype_of(&st) == Some(Ftype3::Reg),
                _ => false,
            };
            if !reusable {
                return Err(NfsErr3::Exist);
            }
            self.learn(file, dir, name);
            if how == CreateMode::Unchecked && attrs.size.is_some() {
                let handle = self.resolve(file)?;
                self.apply_attrs(handle, &Sattr3 { size: attrs.size, ..Sattr3::default() }, Setting::Explicit)?;
            }
            return Ok(file);
        }
        Err(NfsErr3::Exist)
    }

    /// `openat2(O_CREAT | O_EXCL)`: a new empty regular file, open for reading and writing.
    fn create_regular(&self, parent: &Handle, name: &[u8], mode: Mode) -> BackendResult<Handle> {
        let flags = OFlags::CREATE | OFlags::EXCL | OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NOCTTY;
        let fd = open_beneath(parent.fd.as_fd(), name, flags, mode).map_err(|e| match e {
            Errno::EXIST => NfsErr3::Exist,
            other => nfs_err(other),
        })?;
        let st = stat_fd(fd.as_fd())?;
        verify(fd, file_id(&st)?, Access::ReadWrite)
    }
}

/// The `mknod` file type and device number for MKNOD; regular files, directories and links are BADTYPE
/// (RFC 1813 §3.3.11).
fn special(ftype: Ftype3, rdev: SpecData3) -> Result<(FileType, u64), NfsErr3> {
    Ok(match ftype {
        Ftype3::Chr => (FileType::CharacterDevice, makedev(rdev.specdata1, rdev.specdata2)),
        Ftype3::Blk => (FileType::BlockDevice, makedev(rdev.specdata1, rdev.specdata2)),
        Ftype3::Sock => (FileType::Socket, 0),
        Ftype3::Fifo => (FileType::Fifo, 0),
        Ftype3::Reg | Ftype3::Dir | Ftype3::Lnk => return Err(NfsErr3::BadType),
    })
}
