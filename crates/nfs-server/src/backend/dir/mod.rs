//! The directory backend: an export backed by a real local directory, for disk-bound runs.
//!
//! - Identity ([`FileId`]): `id` is the inode number, `generation` the file's birth time and type
//!   (`dir/stat.rs`): what the file system keeps, so identities are the same after a restart, and a recycled
//!   inode number never revives an old handle (the birth time stands in for the inode generation of
//!   FS_IOC_GETVERSION, which would need an `ioctl` this crate cannot make without `unsafe`). The export's
//!   identity ([`Backend::persistence`]) is derived from the file system's id (`f_fsid`, from its UUID on
//!   ext4/xfs/btrfs; else the device number) and the root's identity, so the server's handles of this
//!   export survive restarts. An in-memory, bounded identity map (`dir/map.rs`) remembers each known file as
//!   (parent FileId, name) links learned through LOOKUP, CREATE, READDIR, LINK and RENAME; handles survive
//!   renames through the server; a removed file, or one whose names now hold other inodes, is
//!   NFS3ERR_STALE.
//! - Files the map does not know (every file after a restart, or one evicted) are found by a bounded search
//!   of the export by inode number (`dir/find.rs`): one at a time, budgeted, missing files remembered, and
//!   paused after a search that missed, so clients holding handles of removed files cannot keep the server
//!   scanning.
//! - Confinement (`dir/open.rs`): everything is reached from the root's fd one checked component at a time
//!   with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV); symbolic
//!   links are read, never followed; ".." is only [`Backend::parent`], which stops at the root; other mounts
//!   below the export are not entered.
//! - Open fds are cached (`dir/fdcache.rs`, bounded, sharded LRU): READ/WRITE/GETATTR of a cached file are
//!   one `pread`/`pwrite`/`statx` with no global lock.
//! - Stability: UNSTABLE writes are not synced; DATA_SYNC/FILE_SYNC writes are `fdatasync`/`fsync`ed before
//!   returning; COMMIT is `fsync` (`dir/io.rs`). Namespace changes (create, remove, rename) are not synced
//!   (like an `async` knfsd export).
//! - READDIR cookies are the file system's directory offsets (`dir/readdir.rs`).
//!
//! No `unsafe`: system calls go through `rustix`.

mod attrs;
mod create;
mod errors;
mod fdcache;
mod find;
mod io;
mod map;
mod names;
mod open;
mod readdir;
mod stat;
#[cfg(test)]
mod tests;

use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{SystemTime, UNIX_EPOCH};

use nfs3_proto::{Fattr3, Sattr3, StableHow, WriteVerf3};
use rustix::fs::{openat, Mode, OFlags, CWD};

use self::fdcache::FdCache;
use self::find::Finder;
use self::map::IdentityMap;
use self::open::{Access, Handle};
use self::stat::{device, file_id, ftype_of};
use super::{
    Backend, BackendResult, Caller, CreateMode, DirPage, FileId, FsStats, NewNode, Persistence, Seek, WriteDone,
};
use crate::payload::Served;
use crate::siphash::siphash24;

/// Bounds on the backend's memory and file descriptors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirLimits {
    /// Files remembered in the identity map (each costs about 100 bytes plus its name).
    pub max_known_files: usize,
    /// File descriptors kept open.
    pub max_open_files: usize,
    /// Directory entries one search for files the identity map does not know may read (`dir/find.rs`).
    pub max_search_entries: usize,
}

impl Default for DirLimits {
    /// 262,144 known files; a quarter of the process's open-file limit for cached fds (64 to 4,096); searches
    /// of up to 4,194,304 directory entries (a second or two of `getdents64`).
    fn default() -> Self {
        let nofile = rustix::process::getrlimit(rustix::process::Resource::Nofile).current.unwrap_or(16_384);
        DirLimits {
            max_known_files: 262_144,
            max_open_files: usize::try_from(nofile / 4).unwrap_or(4096).clamp(64, 4096),
            max_search_entries: 1 << 22,
        }
    }
}

/// An export backed by the local directory it was created with. See the module documentation.
#[derive(Debug)]
pub struct DirBackend {
    path: PathBuf,
    root: Arc<Handle>,
    root_dev: u64,
    /// The export's identity in handles: the same in every run (see [`Backend::persistence`]).
    identity: u64,
    limits: DirLimits,
    map: RwLock<IdentityMap>,
    fds: FdCache,
    finder: Finder,
    write_verf: WriteVerf3,
}

impl DirBackend {
    /// Exports the directory `root` with the default [`DirLimits`].
    pub fn new(root: &Path) -> std::io::Result<DirBackend> {
        DirBackend::with_limits(root, DirLimits::default())
    }

    /// Exports the directory `root` (which must exist; symbolic links in `root` itself are followed once,
    /// here, as the administrator gave them).
    pub fn with_limits(root: &Path, limits: DirLimits) -> std::io::Result<DirBackend> {
        let fd = openat(CWD, root, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
        let st = rustix::fs::statx(
            fd.as_fd(),
            c"",
            rustix::fs::AtFlags::EMPTY_PATH,
            rustix::fs::StatxFlags::BASIC_STATS | rustix::fs::StatxFlags::BTIME,
        )?;
        let id = file_id(&st).map_err(|_| std::io::Error::other("export root has an unknown file type"))?;
        let ftype = ftype_of(&st).ok_or_else(|| std::io::Error::other("export root has an unknown file type"))?;
        if st.stx_mask & rustix::fs::StatxFlags::BTIME.bits() == 0 {
            tracing::warn!(
                export = %root.display(),
                "the file system reports no birth times: a handle of a removed file can name a new file that \
                 reuses its inode number"
            );
        }
        // f_fsid is derived from the file system's UUID on ext4, xfs and btrfs, so it survives reboots where
        // device numbers may not; file systems without one (0) fall back to the device number.
        let fsid = match rustix::fs::fstatvfs(fd.as_fd()).map(|v| v.f_fsid) {
            Ok(fsid) if fsid != 0 => fsid,
            _ => device(&st),
        };
        let mut seed = [0u8; 24];
        seed[..8].copy_from_slice(&fsid.to_be_bytes());
        seed[8..16].copy_from_slice(&id.id.to_be_bytes());
        seed[16..].copy_from_slice(&id.generation.to_be_bytes());
        Ok(DirBackend {
            path: root.to_path_buf(),
            root: Arc::new(Handle { fd, id, ftype, access: Access::Read }),
            root_dev: device(&st),
            identity: siphash24(b"nfsbench-dir-exp", &seed),
            limits,
            map: RwLock::new(IdentityMap::new(limits.max_known_files)),
            fds: FdCache::new(limits.max_open_files),
            finder: Finder::default(),
            write_verf: new_write_verifier(),
        })
    }

    /// The exported directory, as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn map_read(&self) -> RwLockReadGuard<'_, IdentityMap> {
        // Map updates are single inserts/removes; a panic elsewhere leaves it usable.
        self.map.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn map_write(&self) -> RwLockWriteGuard<'_, IdentityMap> {
        self.map.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records that `name` in `parent` is `file` (cheap when already known), bounding the map.
    fn learn(&self, file: FileId, parent: FileId, name: &[u8]) {
        if self.map_read().has_link(file, parent, name) {
            return;
        }
        let mut map = self.map_write();
        map.learn(file, parent, name);
        if map.over_capacity() {
            map.evict(|f| self.fds.contains(f));
        }
    }

    /// Closes every cached fd, so the next use of each handle goes through the identity map (tests only).
    #[cfg(test)]
    fn drop_cached_fds(&self) {
        self.fds.clear();
    }

    /// Forgets a removed file: its handle is stale from now on (without a search).
    fn forget(&self, file: FileId) {
        self.map_write().forget(file);
        self.fds.remove(file);
        self.finder.removed(file);
    }
}

/// A write verifier unique to this backend instance: the start time in nanoseconds, the process id, an
/// instance counter and 64 bits from the kernel's random generator, mixed (RFC 1813 §3.3.7: it must change
/// when the server may have lost unstable data, i.e. on every start, while handles stay the same).
fn new_write_verifier() -> WriteVerf3 {
    static INSTANCES: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos ^ (u64::from(std::process::id()) << 40) ^ INSTANCES.fetch_add(1, Ordering::Relaxed);
    x ^= crate::handle::random_u64();
    // splitmix64 finaliser
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    WriteVerf3((x ^ (x >> 31)).to_be_bytes())
}

impl Backend for DirBackend {
    fn describe(&self) -> String {
        format!("dir:{}", self.path.display())
    }

    fn may_block(&self) -> bool {
        true
    }

    fn root(&self) -> FileId {
        self.root.id
    }

    fn getattr(&self, file: FileId) -> BackendResult<Fattr3> {
        self.getattr_of(file)
    }

    fn setattr(&self, file: FileId, attrs: &Sattr3) -> BackendResult<Fattr3> {
        let changed = self.setattr_of(file, attrs);
        if changed.as_ref().is_ok_and(|a| a.ftype == nfs3_proto::Ftype3::Dir) {
            self.finder.reach_changed(); // a directory's permissions may now let a search into it
        }
        changed
    }

    fn lookup(&self, dir: FileId, name: &[u8]) -> BackendResult<FileId> {
        self.lookup_in(dir, name)
    }

    fn parent(&self, dir: FileId) -> BackendResult<FileId> {
        self.parent_of(dir)
    }

    /// `pread` into a buffer of the server's own: every byte served is a byte copied.
    fn read(&self, file: FileId, offset: u64, count: u32) -> BackendResult<(Served, bool)> {
        let mut buf = Vec::new();
        let eof = self.read_file(file, offset, count, &mut buf)?;
        Ok((Served::copied(buf), eof))
    }

    fn write(
        &self,
        file: FileId,
        offset: u64,
        data: &[u8],
        stable: StableHow,
        caller: Caller,
    ) -> BackendResult<WriteDone> {
        self.write_file(file, offset, data, stable, caller)
    }

    fn commit(&self, file: FileId, _offset: u64, _count: u32) -> BackendResult<()> {
        self.commit_file(file)
    }

    fn create(
        &self,
        dir: FileId,
        name: &[u8],
        node: NewNode<'_>,
        mode: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        let created = self.create_in(dir, name, node, mode, attrs)?;
        self.finder.exists(created);
        Ok(created)
    }

    fn readlink(&self, link: FileId) -> BackendResult<Served> {
        self.readlink_of(link).map(Served::copied)
    }

    fn remove(&self, dir: FileId, name: &[u8], rmdir: bool) -> BackendResult<()> {
        self.remove_in(dir, name, rmdir)
    }

    fn rename(&self, from_dir: FileId, from_name: &[u8], to_dir: FileId, to_name: &[u8]) -> BackendResult<()> {
        self.rename_in(from_dir, from_name, to_dir, to_name)?;
        self.finder.reach_changed(); // a moved directory can bring a subtree within the search's bounds
        Ok(())
    }

    fn link(&self, file: FileId, dir: FileId, name: &[u8]) -> BackendResult<()> {
        self.link_in(file, dir, name)
    }

    fn readdir(&self, dir: FileId, cookie: u64, max_entries: usize) -> BackendResult<DirPage> {
        self.readdir_of(dir, cookie, max_entries)
    }

    fn cookie_verifier(&self, dir: FileId) -> BackendResult<u64> {
        self.cookie_verifier_of(dir)
    }

    fn fsstat(&self) -> BackendResult<FsStats> {
        self.fs_stats()
    }

    fn max_file_size(&self) -> u64 {
        io::MAX_FILE_SIZE
    }

    fn seek(&self, file: FileId, offset: u64, what: Seek) -> BackendResult<Option<u64>> {
        self.seek_file(file, offset, what)
    }

    fn allocate(&self, file: FileId, offset: u64, length: u64) -> BackendResult<()> {
        self.fallocate_file(file, offset, length, false)
    }

    fn deallocate(&self, file: FileId, offset: u64, length: u64) -> BackendResult<()> {
        self.fallocate_file(file, offset, length, true)
    }

    fn write_verifier(&self) -> WriteVerf3 {
        self.write_verf
    }

    fn persistence(&self) -> Option<Persistence> {
        Some(Persistence { identity: self.identity, host_dir: self.path.clone() })
    }
}
