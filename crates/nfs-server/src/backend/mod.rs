//! The storage behind an export. A backend knows files, directories and their attributes; it knows nothing
//! of RPC, handles on the wire, credentials or exports: the dispatcher (`crate::dispatch`) turns NFSv3
//! calls into these methods, checks permissions with [`crate::access`] before calling, and builds the
//! replies (including wcc_data, for which it reads attributes before and after a change).
//!
//! Rules every backend follows:
//! - Errors are `nfsstat3` values ([`NfsErr3`]): NOENT, EXIST, NOTDIR, ISDIR, NOTEMPTY, NOSPC, FBIG,
//!   NAMETOOLONG, STALE (a [`FileId`] that no longer exists), INVAL, IO ...
//! - Names are single path components: the dispatcher rejects "", ".", "..", and names with '/' or NUL
//!   before any backend sees them (RFC 1813 §3.3.3 leaves "." and ".." to the server; we answer them in
//!   the dispatcher from the parent map).
//! - Stability: `write` with [`StableHow::Unstable`] may leave data in volatile state until `commit`;
//!   `FileSync`/`DataSync` must be durable when it returns. The memory backend is always "stable" for its
//!   own lifetime but reports `Unstable` honestly when asked for it, as knfsd does on tmpfs.
//! - Calls may come from many threads at once; a backend synchronises internally.
//! - [`Backend::may_block`] says whether calls can wait on a disk; the server then runs them on a blocking
//!   thread pool instead of a network thread.
//! - Set-id bits: a WRITE by an unprivileged caller ([`Caller::Unprivileged`]) clears S_ISUID, and S_ISGID
//!   when S_IXGRP is set, of a regular file before the data lands ([`mode_after_unprivileged_write`]), as the
//!   Linux kernel does for a writer without CAP_FSETID; the backend does it itself (the `dir:` backend writes
//!   with the server's own credentials, so the kernel would not).
//! - Persistence: [`Backend::persistence`] says whether files and their [`FileId`]s outlive the process
//!   (`dir:`); the server then makes handles that stay valid across its restarts, and the backend must find a
//!   file from a [`FileId`] it has not seen since it started.

pub mod dir;
pub mod mem;

use crate::payload::Served;
use nfs3_proto::{CreateVerf3, Fattr3, Ftype3, NfsErr3, NfsTime3, Sattr3, SpecData3, StableHow, WriteVerf3};

/// A file within one backend: stable for the life of the file, never reused while the server runs
/// (`generation` changes when an id number is recycled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId {
    pub id: u64,
    pub generation: u64,
}

pub type BackendResult<T> = Result<T, NfsErr3>;

/// Who modifies a file's data, for the set-id rule: Linux clears set-id bits on a write by a caller without
/// CAP_FSETID; for NFS that is every caller whose effective uid after squashing is not 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// uid 0 (CAP_FSETID): set-id bits stay.
    Privileged,
    /// Anyone else: a write clears them.
    Unprivileged,
}

impl Caller {
    /// The caller class of effective uid `uid` (after squashing).
    pub fn of_uid(uid: u32) -> Caller {
        if uid == 0 {
            Caller::Privileged
        } else {
            Caller::Unprivileged
        }
    }
}

/// Set-user-ID.
pub const S_ISUID: u32 = 0o4000;
/// Set-group-ID.
pub const S_ISGID: u32 = 0o2000;
/// Group execute.
pub const S_IXGRP: u32 = 0o010;

/// The permission bits of a regular file after an unprivileged caller modifies it.
// Linux should_remove_suid()/file_remove_privs(): S_ISUID always, S_ISGID only with S_IXGRP (without it, it marks mandatory locking).
pub fn mode_after_unprivileged_write(mode: u32) -> u32 {
    let mut kill = mode & S_ISUID;
    if mode & S_ISGID != 0 && mode & S_IXGRP != 0 {
        kill |= S_ISGID;
    }
    mode & !kill
}

/// What makes a backend's handles survive a restart of the server (see [`Backend::persistence`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persistence {
    /// A value naming the export's file system and root, the same in every run (not secret).
    pub identity: u64,
    /// The host directory served: the server's state directory may not lie inside it.
    pub host_dir: std::path::PathBuf,
}

/// What to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewNode<'a> {
    /// A regular file; `exclusive` carries the EXCLUSIVE create verifier (RFC 1813 §3.3.8), stored by the
    /// backend so that a retransmitted create with the same verifier succeeds.
    File {
        exclusive: Option<CreateVerf3>,
    },
    Directory,
    Symlink {
        target: &'a [u8],
    },
    /// MKNOD: character or block device, socket or FIFO.
    Special {
        ftype: Ftype3,
        rdev: SpecData3,
    },
}

/// How an existing name is treated by `create` (RFC 1813 §3.3.8 createhow3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateMode {
    /// UNCHECKED: an existing regular file is reused (and `attrs` applied); anything else exists → EXIST.
    Unchecked,
    /// GUARDED, MKDIR, SYMLINK, MKNOD: an existing name is NFS3ERR_EXIST.
    Guarded,
    /// EXCLUSIVE: an existing file created with the same verifier is success, else EXIST.
    Exclusive,
}

/// One directory entry, as READDIR(PLUS) lists them. `cookie` is opaque to clients and must let
/// [`Backend::readdir`] resume after this entry; 0 is reserved for "from the start".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: Vec<u8>,
    pub file: FileId,
    pub cookie: u64,
}

/// A page of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirPage {
    pub entries: Vec<DirEntry>,
    /// No entries after the last one returned.
    pub eof: bool,
}

/// File-system totals for FSSTAT (RFC 1813 §3.3.18).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FsStats {
    pub total_bytes: u64,
    pub free_bytes: u64,
    pub avail_bytes: u64,
    pub total_files: u64,
    pub free_files: u64,
    pub avail_files: u64,
}

/// The result of a write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteDone {
    pub count: u32,
    /// The stability actually reached (at least what was asked for).
    pub committed: StableHow,
}

/// What [`Backend::seek`] looks for (NFSv4.2 SEEK, lseek(2)'s SEEK_DATA and SEEK_HOLE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seek {
    Data,
    Hole,
}

/// Storage for one export.
pub trait Backend: Send + Sync + 'static {
    /// A short description for logs and reports ("mem:1GiB", "dir:/srv/x").
    fn describe(&self) -> String;

    /// True when calls may wait on a disk.
    fn may_block(&self) -> bool;

    /// The export's root directory.
    fn root(&self) -> FileId;

    /// Current attributes. `fsid` and `fileid` are filled by the backend.
    fn getattr(&self, file: FileId) -> BackendResult<Fattr3>;

    /// Applies the settable attributes (size changes truncate or extend with zeros; `SetTime3::ServerTime`
    /// means now). Returns the new attributes.
    fn setattr(&self, file: FileId, attrs: &Sattr3) -> BackendResult<Fattr3>;

    /// Finds `name` in directory `dir`.
    fn lookup(&self, dir: FileId, name: &[u8]) -> BackendResult<FileId>;

    /// The parent of a directory (the root is its own parent), for "..".
    fn parent(&self, dir: FileId) -> BackendResult<FileId>;

    /// Reads up to `count` bytes at `offset`. Returns the data — slices of the backend's own memory where
    /// it keeps files in memory, never to change under the holder ([`Served`]) — and end-of-file: true when
    /// the read reached the end of the file. Holes read as zeros.
    fn read(&self, file: FileId, offset: u64, count: u32) -> BackendResult<(Served, bool)>;

    /// Writes `data` at `offset` (extending, possibly sparsely). A non-empty write by
    /// [`Caller::Unprivileged`] first clears the file's set-id bits ([`mode_after_unprivileged_write`]).
    fn write(
        &self,
        file: FileId,
        offset: u64,
        data: &[u8],
        stable: StableHow,
        caller: Caller,
    ) -> BackendResult<WriteDone>;

    /// Makes everything written to `file` in `offset..offset+count` (count 0: to the end) durable.
    fn commit(&self, file: FileId, offset: u64, count: u32) -> BackendResult<()>;

    /// Creates `name` in `dir` with initial attributes `attrs` (mode, uid, gid; size for files).
    fn create(
        &self,
        dir: FileId,
        name: &[u8],
        node: NewNode<'_>,
        mode: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId>;

    /// The target of a symbolic link.
    fn readlink(&self, link: FileId) -> BackendResult<Served>;

    /// Removes a non-directory (`rmdir: false`) or an empty directory (`rmdir: true`).
    fn remove(&self, dir: FileId, name: &[u8], rmdir: bool) -> BackendResult<()>;

    /// Renames atomically, replacing a compatible target (POSIX rename rules: a directory only replaces an
    /// empty directory; renaming a directory into its own subtree is INVAL).
    fn rename(&self, from_dir: FileId, from_name: &[u8], to_dir: FileId, to_name: &[u8]) -> BackendResult<()>;

    /// Makes a hard link to a non-directory.
    fn link(&self, file: FileId, dir: FileId, name: &[u8]) -> BackendResult<()>;

    /// Lists `dir` starting after `cookie` (0: from the start), at most `max_entries` entries. "." and ".."
    /// are not listed by the backend; the dispatcher adds them.
    fn readdir(&self, dir: FileId, cookie: u64, max_entries: usize) -> BackendResult<DirPage>;

    /// A value that changes whenever `dir`'s cookies become invalid (RFC 1813 §3.3.16 cookieverf).
    fn cookie_verifier(&self, dir: FileId) -> BackendResult<u64>;

    fn fsstat(&self) -> BackendResult<FsStats>;

    /// Largest file size the backend supports.
    fn max_file_size(&self) -> u64;

    /// The write verifier: changes whenever unstable data may have been lost (server restart).
    fn write_verifier(&self) -> WriteVerf3;

    /// `Some` when files and their [`FileId`]s outlive the process (a host directory): the server then
    /// issues handles that stay valid across its restarts, and the backend resolves any [`FileId`] of a
    /// file that still exists, including ones it has not seen since it started. `None` (the default):
    /// contents die with the process, and handles of an earlier run are STALE.
    fn persistence(&self) -> Option<Persistence> {
        None
    }

    /// Time granularity of stored times.
    fn time_delta(&self) -> NfsTime3 {
        NfsTime3 { seconds: 0, nseconds: 1 }
    }

    /// The first offset at or after `offset` where data (or a hole) begins, as lseek(2)'s SEEK_DATA and
    /// SEEK_HOLE; `None` when `offset` is at or past the end of the file. The end of the file counts as a
    /// hole. By default a backend knows no holes: data runs to the end of the file.
    fn seek(&self, file: FileId, offset: u64, what: Seek) -> BackendResult<Option<u64>> {
        let size = self.getattr(file)?.size;
        if offset >= size {
            return Ok(None);
        }
        Ok(Some(match what {
            Seek::Data => offset,
            Seek::Hole => size,
        }))
    }

    /// Reserves space for `length` bytes at `offset`, extending the file when the range ends past it
    /// (fallocate(2) mode 0). NOTSUPP by default.
    fn allocate(&self, file: FileId, offset: u64, length: u64) -> BackendResult<()> {
        let _ = (file, offset, length);
        Err(NfsErr3::NotSupp)
    }

    /// Punches a hole over `length` bytes at `offset`: they read as zeros, the size does not change
    /// (fallocate(2) PUNCH_HOLE | KEEP_SIZE). NOTSUPP by default.
    fn deallocate(&self, file: FileId, offset: u64, length: u64) -> BackendResult<()> {
        let _ = (file, offset, length);
        Err(NfsErr3::NotSupp)
    }
}
