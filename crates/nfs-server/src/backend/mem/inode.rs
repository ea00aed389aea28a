//! One file, directory, symlink or special node: immutable identity, a lock over attributes and contents,
//! and the access time kept apart (an atomic) so READ can update it under a shared lock.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use nfs3_proto::{Fattr3, Ftype3, NfsErr3, NfsTime3, Sattr3, SetTime3, SpecData3};

use super::dir::Directory;
use super::pages::{FileData, Space, MAX_FILE_SIZE};
use crate::backend::{BackendResult, FileId};

/// The size (and `used`) reported for a directory.
const DIRECTORY_SIZE: u64 = 4096;

/// Permission bits a client may set (setuid, setgid, sticky and rwx for all three classes).
const MODE_BITS: u32 = 0o7777;

pub(super) struct Inode {
    pub(super) file: FileId,
    pub(super) ftype: Ftype3,
    /// `NfsTime3` packed as seconds << 32 | nanoseconds, so that integer order is time order.
    atime: AtomicU64,
    node: RwLock<Node>,
}

pub(super) struct Node {
    pub(super) attrs: Attrs,
    pub(super) body: Body,
}

/// The attributes kept under the inode lock (size comes from the body, atime lives in the inode).
#[derive(Debug, Clone, Copy)]
pub(super) struct Attrs {
    pub(super) mode: u32,
    pub(super) uid: u32,
    pub(super) gid: u32,
    /// 0 once the inode is unlinked: a caller that still holds it gets STALE for changes.
    pub(super) nlink: u32,
    pub(super) mtime: NfsTime3,
    pub(super) ctime: NfsTime3,
}

impl Attrs {
    /// Marks a change to contents: mtime and ctime become `now` (POSIX write/truncate/directory change).
    pub(super) fn modified(&mut self, now: NfsTime3) {
        self.mtime = now;
        self.ctime = now;
    }
}

pub(super) enum Body {
    File(FileData),
    Dir(Directory),
    /// The target, shared with READLINK replies (never changes: a symbolic link is made once).
    Symlink(bytes::Bytes),
    /// MKNOD: block and character devices keep their numbers; sockets and FIFOs have zeros.
    Special(SpecData3),
}

impl Inode {
    pub(super) fn new(file: FileId, ftype: Ftype3, attrs: Attrs, body: Body, atime: NfsTime3) -> Inode {
        Inode { file, ftype, atime: AtomicU64::new(pack(atime)), node: RwLock::new(Node { attrs, body }) }
    }

    /// Shared access; a panic elsewhere while the lock was held does not make the inode unusable.
    pub(super) fn read(&self) -> RwLockReadGuard<'_, Node> {
        self.node.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn write(&self) -> RwLockWriteGuard<'_, Node> {
        self.node.write().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn is_dir(&self) -> bool {
        self.ftype == Ftype3::Dir
    }

    fn set_atime(&self, time: NfsTime3) {
        self.atime.store(pack(time), Ordering::Relaxed);
    }

    /// Records an access the "relatime" way: atime moves only when it is not newer than mtime or ctime, so
    /// repeated reads of an unchanged file do not even read the clock.
    pub(super) fn accessed(&self, attrs: &Attrs) {
        let atime = self.atime.load(Ordering::Relaxed);
        if atime <= pack(attrs.mtime) || atime <= pack(attrs.ctime) {
            self.set_atime(now());
        }
    }

    /// The fattr3 for this inode (RFC 1813 §2.6); `node` is its locked state.
    pub(super) fn attributes(&self, node: &Node, fsid: u64) -> Fattr3 {
        let none = SpecData3::default();
        let (size, used, rdev) = match &node.body {
            Body::File(data) => (data.size(), data.used_bytes(), none),
            Body::Dir(_) => (DIRECTORY_SIZE, DIRECTORY_SIZE, none),
            Body::Symlink(target) => (target.len() as u64, target.len() as u64, none),
            Body::Special(rdev) => (0, 0, *rdev),
        };
        Fattr3 {
            ftype: self.ftype,
            mode: node.attrs.mode,
            nlink: node.attrs.nlink,
            uid: node.attrs.uid,
            gid: node.attrs.gid,
            size,
            used,
            rdev,
            fsid,
            fileid: self.file.id,
            atime: unpack(self.atime.load(Ordering::Relaxed)),
            mtime: node.attrs.mtime,
            ctime: node.attrs.ctime,
        }
    }

    /// SETATTR (RFC 1813 §3.3.2) on the locked `node`: the size first (the only step that can fail, so a
    /// failed call changes nothing), then mode, owner and times; ctime becomes `now` when anything was set.
    pub(super) fn set_attributes(
        &self,
        node: &mut Node,
        attrs: &Sattr3,
        space: &Space,
        now: NfsTime3,
    ) -> BackendResult<()> {
        if node.attrs.nlink == 0 {
            return Err(NfsErr3::Stale);
        }
        if let Some(size) = attrs.size {
            node.set_size(size, space, now)?;
        }
        if let Some(mode) = attrs.mode {
            node.attrs.mode = mode & MODE_BITS;
        }
        if let Some(uid) = attrs.uid {
            node.attrs.uid = uid;
        }
        if let Some(gid) = attrs.gid {
            node.attrs.gid = gid;
        }
        if let Some(atime) = chosen_time(attrs.atime, now) {
            self.set_atime(atime);
        }
        if let Some(mtime) = chosen_time(attrs.mtime, now) {
            node.attrs.mtime = mtime;
        }
        if *attrs != Sattr3::default() {
            node.attrs.ctime = now;
        }
        if let Body::File(data) = &mut node.body {
            data.verifier = None;
        }
        Ok(())
    }
}

impl Node {
    /// Truncates or extends a regular file (mtime and ctime change, as for POSIX truncate). A directory is
    /// ISDIR, other types INVAL, past the maximum file size FBIG.
    pub(super) fn set_size(&mut self, size: u64, space: &Space, now: NfsTime3) -> BackendResult<()> {
        match &mut self.body {
            Body::File(_) if size > MAX_FILE_SIZE => Err(NfsErr3::FBig),
            Body::File(data) => {
                data.set_size(size, space);
                self.attrs.modified(now);
                Ok(())
            }
            Body::Dir(_) => Err(NfsErr3::IsDir),
            Body::Symlink(_) | Body::Special(_) => Err(NfsErr3::Inval),
        }
    }
}

/// The time a `set_atime`/`set_mtime` asks for (RFC 1813 §2.6 time_how), if any.
pub(super) fn chosen_time(how: SetTime3, now: NfsTime3) -> Option<NfsTime3> {
    match how {
        SetTime3::DontChange => None,
        SetTime3::SetToServerTime => Some(now),
        SetTime3::SetToClientTime(time) => Some(time),
    }
}

/// The current time with nanoseconds (nfstime3 seconds are 32-bit: saturates in 2106).
pub(super) fn now() -> NfsTime3 {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    NfsTime3 { seconds: u32::try_from(since_epoch.as_secs()).unwrap_or(u32::MAX), nseconds: since_epoch.subsec_nanos() }
}

fn pack(time: NfsTime3) -> u64 {
    (u64::from(time.seconds) << 32) | u64::from(time.nseconds)
}

fn unpack(packed: u64) -> NfsTime3 {
    NfsTime3 { seconds: (packed >> 32) as u32, nseconds: packed as u32 }
}
