//! RAM-disk backend: every file lives in process memory, within a byte capacity.
//!
//! Design:
//! - Inodes ([`table`]): a `RwLock`ed slab of `Arc<Inode>`; `FileId::id` is the slot number + 1 (also the
//!   fattr3 fileid) and the slot's generation goes up when its inode is removed, so an old id is STALE.
//! - Locking: each inode has its own `RwLock` over its attributes and contents. READ and GETATTR take the
//!   table's read lock just long enough to clone the `Arc`, then the inode's read lock; WRITE and SETATTR
//!   take that one inode's write lock. Nothing on the data path takes a global write lock. Namespace
//!   changes (create, remove, rename, link) are serialised by one mutex ([`namespace`]). Lock order: namespace → inode(s) → table; the data
//!   path holds at most one inode lock and never holds the table lock while waiting, so there is no cycle.
//!   READ copies nothing: it returns slices of the file's reference-counted pages, which a later write
//!   copies before changing while a reply still holds them ([`pages`]).
//! - Files ([`pages`]): sparse, 64 KiB pages allocated on first write in a `BTreeMap` by page index, so
//!   offsets up to 2^63-1 work; holes read as zeros. The capacity counts allocated pages: a write needing
//!   more is NFS3ERR_NOSPC (nothing written); truncation and the last unlink give pages back.
//! - Directories ([`dir`]): READDIR cookies are per-directory sequence numbers that only grow, so a cookie
//!   stays valid across any inserts and removes for the directory's whole life. The cookie verifier
//!   therefore never has to change and is always 0 (what knfsd answers, and what a Linux client that has
//!   dropped its copy sends); a directory that is gone is STALE before any cookie is looked at, and ids from
//!   another server instance are stale (generations start at a per-instance value).
//! - Times: nanoseconds from `SystemTime`; mtime/ctime change as POSIX says (write, truncate, directory
//!   changes; ctime on SETATTR, link count changes and rename). atime follows "relatime": READ, READDIR and
//!   READLINK move it only when it is not newer than mtime or ctime.
//! - Everything is "stable" for the backend's lifetime; WRITE reports the stability it was asked for and
//!   COMMIT has nothing to do. A non-empty WRITE by an unprivileged caller clears the set-id bits under the
//!   same inode lock as the data change (see [`super::mode_after_unprivileged_write`]).
//!   The write verifier is drawn per instance from the clock and the OS-seeded hasher keys, so it changes
//!   when the server restarts (and all data is gone).
//! - Handles are not persistent ([`Backend::persistence`] is `None`): contents die with the process, so the
//!   server gives this export a random identity per instance and a restarted server answers STALE.

mod dir;
mod inode;
mod namespace;
mod page_table;
mod pages;
mod table;
#[cfg(test)]
mod tests;

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use nfs3_proto::{Fattr3, Ftype3, NfsErr3, Sattr3, StableHow, WriteVerf3};

use self::dir::Directory;
use self::inode::{now, Attrs, Body, Inode};
use self::pages::{Space, MAX_FILE_SIZE, PAGE_SIZE};
use self::table::Table;
use super::{mode_after_unprivileged_write, Caller};
use super::{Backend, BackendResult, CreateMode, DirPage, FileId, FsStats, NewNode, Seek, WriteDone};
use crate::payload::Served;

/// Longest name in a directory (PATHCONF name_max, as Linux file systems); longer is NAMETOOLONG.
pub const MAX_NAME_LEN: usize = 255;
/// Longest symbolic link target (Linux PATH_MAX); longer is NAMETOOLONG.
pub const MAX_SYMLINK_LEN: usize = 4096;
/// The size of the pages files are made of (allocation and capacity granularity).
pub const MEM_PAGE_SIZE: usize = PAGE_SIZE;

/// fsids of backends made by this process: distinct between exports, repeatable across restarts.
static NEXT_FSID: AtomicU64 = AtomicU64::new(1);

/// The RAM-disk backend ("mem:SIZE").
pub struct MemBackend {
    capacity: u64,
    fsid: u64,
    write_verifier: WriteVerf3,
    root: FileId,
    space: Space,
    table: RwLock<Table>,
    namespace: Mutex<()>,
}

impl std::fmt::Debug for MemBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemBackend")
            .field("capacity", &self.capacity)
            .field("used_bytes", &self.space.used_bytes())
            .field("files", &self.table_read().live())
            .field("fsid", &self.fsid)
            .finish()
    }
}

impl MemBackend {
    /// A RAM disk holding up to `capacity_bytes` of file data (whole pages) and one file per KiB of
    /// capacity (at least 1,024 files).
    pub fn new(capacity_bytes: u64) -> MemBackend {
        MemBackend::with_max_files(capacity_bytes, (capacity_bytes / 1024).max(1024))
    }

    /// A RAM disk with an explicit limit on the number of files (the root included); past it, creating is
    /// NFS3ERR_NOSPC.
    pub fn with_max_files(capacity_bytes: u64, max_files: u64) -> MemBackend {
        let nonce = instance_nonce();
        let now = now();
        let root_attrs = Attrs { mode: 0o777, uid: 0, gid: 0, nlink: 2, mtime: now, ctime: now };
        let table = Table::new(max_files, mix(nonce, 1), |root| {
            Inode::new(root, Ftype3::Dir, root_attrs, Body::Dir(Directory::new(root)), now)
        });
        let root = FileId { id: 1, generation: mix(nonce, 1) };
        MemBackend {
            capacity: capacity_bytes,
            fsid: 0x6d65_6d00_0000_0000 | NEXT_FSID.fetch_add(1, Ordering::Relaxed),
            write_verifier: WriteVerf3(mix(nonce, 2).to_be_bytes()),
            root,
            space: Space::new(capacity_bytes),
            table: RwLock::new(table),
            namespace: Mutex::new(()),
        }
    }

    /// The live inode `file` names, or STALE.
    fn inode(&self, file: FileId) -> BackendResult<Arc<Inode>> {
        self.table_read().get(file)
    }

    fn table_read(&self) -> RwLockReadGuard<'_, Table> {
        self.table.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn table_write(&self) -> RwLockWriteGuard<'_, Table> {
        self.table.write().unwrap_or_else(PoisonError::into_inner)
    }

    fn lock_namespace(&self) -> MutexGuard<'_, ()> {
        self.namespace.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `change` on a regular file's contents (ALLOCATE, DEALLOCATE); mtime and ctime move on success.
    fn change_contents(
        &self,
        file: FileId,
        change: impl FnOnce(&mut pages::FileData, &Space) -> BackendResult<()>,
    ) -> BackendResult<()> {
        let inode = self.inode(file)?;
        let mut guard = inode.write();
        let node = &mut *guard;
        match &mut node.body {
            Body::File(data) => change(data, &self.space)?,
            Body::Dir(_) => return Err(NfsErr3::IsDir),
            Body::Symlink(_) | Body::Special(_) => return Err(NfsErr3::Inval),
        }
        node.attrs.modified(now());
        Ok(())
    }
}

impl Backend for MemBackend {
    fn describe(&self) -> String {
        format!("mem:{}", human_size(self.capacity))
    }

    fn may_block(&self) -> bool {
        false
    }

    fn root(&self) -> FileId {
        self.root
    }

    fn getattr(&self, file: FileId) -> BackendResult<Fattr3> {
        let inode = self.inode(file)?;
        let node = inode.read();
        Ok(inode.attributes(&node, self.fsid))
    }

    fn setattr(&self, file: FileId, attrs: &Sattr3) -> BackendResult<Fattr3> {
        let inode = self.inode(file)?;
        let mut node = inode.write();
        inode.set_attributes(&mut node, attrs, &self.space, now())?;
        Ok(inode.attributes(&node, self.fsid))
    }

    fn lookup(&self, dir: FileId, name: &[u8]) -> BackendResult<FileId> {
        check_name(name)?;
        match &self.inode(dir)?.read().body {
            Body::Dir(entries) => entries.get(name).ok_or(NfsErr3::NoEnt),
            _ => Err(NfsErr3::NotDir),
        }
    }

    fn parent(&self, dir: FileId) -> BackendResult<FileId> {
        match &self.inode(dir)?.read().body {
            Body::Dir(entries) => Ok(entries.parent()),
            _ => Err(NfsErr3::NotDir),
        }
    }

    fn read(&self, file: FileId, offset: u64, count: u32) -> BackendResult<(Served, bool)> {
        let inode = self.inode(file)?;
        let node = inode.read();
        match &node.body {
            Body::File(contents) => {
                let (data, eof) = contents.read(offset, count);
                inode.accessed(&node.attrs);
                Ok((Served::shared(data), eof))
            }
            Body::Dir(_) => Err(NfsErr3::IsDir),
            Body::Symlink(_) | Body::Special(_) => Err(NfsErr3::Inval),
        }
    }

    fn write(
        &self,
        file: FileId,
        offset: u64,
        data: &[u8],
        stable: StableHow,
        caller: Caller,
    ) -> BackendResult<WriteDone> {
        let count = u32::try_from(data.len()).map_err(|_| NfsErr3::Inval)?;
        let inode = self.inode(file)?;
        let mut guard = inode.write();
        let node = &mut *guard;
        if node.attrs.nlink == 0 {
            return Err(NfsErr3::Stale); // removed since we looked it up
        }
        match &mut node.body {
            Body::File(contents) => contents.write(offset, data, &self.space)?,
            Body::Dir(_) => return Err(NfsErr3::IsDir),
            Body::Symlink(_) | Body::Special(_) => return Err(NfsErr3::Inval),
        }
        if count != 0 {
            // Linux file_remove_privs(): a writer without CAP_FSETID loses S_ISUID, and S_ISGID with S_IXGRP.
            if caller == Caller::Unprivileged {
                node.attrs.mode = mode_after_unprivileged_write(node.attrs.mode);
            }
            node.attrs.modified(now());
        }
        Ok(WriteDone { count, committed: stable })
    }

    fn commit(&self, file: FileId, _offset: u64, _count: u32) -> BackendResult<()> {
        match self.inode(file)?.ftype {
            Ftype3::Reg => Ok(()), // memory is as durable as this backend gets
            Ftype3::Dir => Err(NfsErr3::IsDir),
            _ => Err(NfsErr3::Inval),
        }
    }

    fn create(
        &self,
        dir: FileId,
        name: &[u8],
        node: NewNode<'_>,
        mode: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        self.create_node(dir, name, node, mode, attrs)
    }

    fn readlink(&self, link: FileId) -> BackendResult<Served> {
        let inode = self.inode(link)?;
        let node = inode.read();
        match &node.body {
            Body::Symlink(target) => {
                inode.accessed(&node.attrs);
                Ok(Served::shared(target.clone().into()))
            }
            _ => Err(NfsErr3::Inval),
        }
    }

    fn remove(&self, dir: FileId, name: &[u8], rmdir: bool) -> BackendResult<()> {
        self.remove_name(dir, name, rmdir)
    }

    fn rename(&self, from_dir: FileId, from_name: &[u8], to_dir: FileId, to_name: &[u8]) -> BackendResult<()> {
        self.rename_entry(from_dir, from_name, to_dir, to_name)
    }

    fn link(&self, file: FileId, dir: FileId, name: &[u8]) -> BackendResult<()> {
        self.link_name(file, dir, name)
    }

    fn readdir(&self, dir: FileId, cookie: u64, max_entries: usize) -> BackendResult<DirPage> {
        let inode = self.inode(dir)?;
        let node = inode.read();
        match &node.body {
            Body::Dir(entries) => {
                let page = entries.page(cookie, max_entries)?;
                inode.accessed(&node.attrs);
                Ok(page)
            }
            _ => Err(NfsErr3::NotDir),
        }
    }

    fn cookie_verifier(&self, dir: FileId) -> BackendResult<u64> {
        // Cookies never go bad while the directory exists (see the module notes), so the verifier is fixed.
        match self.inode(dir)?.ftype {
            Ftype3::Dir => Ok(0),
            _ => Err(NfsErr3::NotDir),
        }
    }

    fn fsstat(&self) -> BackendResult<FsStats> {
        let total_bytes = self.space.total_bytes();
        let free_bytes = total_bytes.saturating_sub(self.space.used_bytes());
        let (total_files, free_files) = {
            let table = self.table_read();
            (table.max_live(), table.max_live().saturating_sub(table.live()))
        };
        Ok(FsStats {
            total_bytes,
            free_bytes,
            avail_bytes: free_bytes,
            total_files,
            free_files,
            avail_files: free_files,
        })
    }

    fn max_file_size(&self) -> u64 {
        MAX_FILE_SIZE
    }

    fn seek(&self, file: FileId, offset: u64, what: Seek) -> BackendResult<Option<u64>> {
        match &self.inode(file)?.read().body {
            Body::File(data) => Ok(data.seek(offset, what == Seek::Data)),
            Body::Dir(_) => Err(NfsErr3::IsDir),
            Body::Symlink(_) | Body::Special(_) => Err(NfsErr3::Inval),
        }
    }

    fn allocate(&self, file: FileId, offset: u64, length: u64) -> BackendResult<()> {
        self.change_contents(file, |data, space| data.allocate(offset, length, space))
    }

    fn deallocate(&self, file: FileId, offset: u64, length: u64) -> BackendResult<()> {
        self.change_contents(file, |data, space| {
            data.punch(offset, length, space);
            Ok(())
        })
    }

    fn write_verifier(&self) -> WriteVerf3 {
        self.write_verifier
    }
}

/// A single path component the backend can store: the dispatcher already refuses "", ".", "..", '/' and
/// NUL (RFC 1813 §3.3.3), so meeting one here is INVAL; over [`MAX_NAME_LEN`] is NAMETOOLONG.
fn check_name(name: &[u8]) -> BackendResult<()> {
    if name.len() > MAX_NAME_LEN {
        Err(NfsErr3::NameTooLong)
    } else if name.is_empty() || name == b"." || name == b".." || name.iter().any(|&b| b == b'/' || b == 0) {
        Err(NfsErr3::Inval)
    } else {
        Ok(())
    }
}

/// 64 bits that differ between backend instances: the clock, the process, and the OS-seeded keys of
/// std's `RandomState` (fresh for every call).
fn instance_nonce() -> u64 {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.finish()
}

/// splitmix64 of `nonce` and `salt`: independent-looking values from one nonce.
fn mix(nonce: u64, salt: u64) -> u64 {
    let mut z = nonce.wrapping_add(salt.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// "1GiB", "512MiB", "1000" (bytes when no binary unit divides it).
fn human_size(bytes: u64) -> String {
    for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if bytes >= 1 << shift && bytes & ((1 << shift) - 1) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}
