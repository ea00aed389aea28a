//! READDIR / READDIRPLUS listings (RFC 1813 §3.3.16, §3.3.17).
//!
//! Cookies are the file system's own directory offsets: `getdents64` reports for each entry the `d_off` at
//! which the next entry starts (what telldir(3) returns), and a listing resumes with `lseek(cookie)` on a
//! fresh directory fd — exactly what Linux knfsd sends. They are never 0 (the start), and on ext4 (hash
//! order), xfs, btrfs and tmpfs (Linux 6.6 and later) they stay valid while entries are added or removed and
//! across server restarts, so a listing neither skips nor repeats surviving entries. Limits: file systems
//! whose offsets are ordinal positions (overlayfs merged directories, tmpfs before 6.6) can skip or repeat
//! entries when the directory changes between pages, as knfsd does there; a cookie that was never issued
//! lands wherever the file system puts it, or is NFS3ERR_BAD_COOKIE when it cannot be seeked to.
//!
//! The cookie verifier is therefore a constant per directory (its generation), not its mtime: a verifier
//! that changed with every entry added or removed would make clients that check it (the dispatcher may)
//! abandon listings during `rm -rf` of a large directory, which is a known pitfall of mtime verifiers.
//!
//! Each listed entry is `statx`ed (without following links) for its generation and learned into the
//! identity map; entries that vanish meanwhile and mount points of other file systems are left out.

use std::os::fd::AsFd;

use nfs3_proto::NfsErr3;
use rustix::fs::{openat, seek, Mode, OFlags, RawDir, SeekFrom};
use rustix::io::Errno;

use super::errors::nfs_err;
use super::stat::{device, file_id, stat_at};
use super::DirBackend;
use crate::backend::{BackendResult, DirEntry, DirPage, FileId};

/// Bytes of `getdents64` records read per system call.
const GETDENTS_BUFFER: usize = 32 * 1024;

impl DirBackend {
    pub(crate) fn readdir_of(&self, dir: FileId, cookie: u64, max_entries: usize) -> BackendResult<DirPage> {
        let handle = self.resolve_dir(dir)?;
        // A private open file description: concurrent listings of one directory do not share a position.
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let listing = openat(handle.fd.as_fd(), c".", flags, Mode::empty()).map_err(nfs_err)?;
        if cookie != 0 {
            seek(listing.as_fd(), SeekFrom::Start(cookie)).map_err(|_| NfsErr3::BadCookie)?;
        }
        let mut buffer: Vec<u8> = Vec::with_capacity(GETDENTS_BUFFER);
        let mut records = RawDir::new(listing.as_fd(), buffer.spare_capacity_mut());
        let mut found: Vec<(Vec<u8>, u64)> = Vec::new();
        let mut eof = true;
        while let Some(record) = records.next() {
            let record = record.map_err(nfs_err)?;
            let name = record.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            if found.len() >= max_entries {
                eof = false;
                break;
            }
            found.push((name.to_vec(), record.next_entry_cookie()));
        }
        let mut entries = Vec::with_capacity(found.len());
        for (name, cookie) in found {
            let st = match stat_at(handle.fd.as_fd(), &name) {
                Ok(st) => st,
                Err(Errno::NOENT) => continue,
                Err(e) => return Err(nfs_err(e)),
            };
            if device(&st) != self.root_dev {
                continue;
            }
            if let Ok(file) = file_id(&st) {
                entries.push(DirEntry { name, file, cookie });
            }
        }
        self.learn_all(dir, &entries);
        Ok(DirPage { entries, eof })
    }

    pub(crate) fn cookie_verifier_of(&self, dir: FileId) -> BackendResult<u64> {
        self.resolve_dir(dir)?;
        Ok(dir.generation)
    }

    fn learn_all(&self, dir: FileId, entries: &[DirEntry]) {
        let known = {
            let map = self.map_read();
            entries.iter().all(|e| map.has_link(e.file, dir, &e.name))
        };
        if known {
            return;
        }
        let mut map = self.map_write();
        for e in entries {
            map.learn(e.file, dir, &e.name);
        }
        if map.over_capacity() {
            map.evict(|file| self.fds.contains(file));
        }
    }
}
