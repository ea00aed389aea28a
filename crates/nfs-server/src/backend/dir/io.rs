//! READ, WRITE and COMMIT (RFC 1813 §3.3.6, §3.3.7, §3.3.21) with `pread`/`pwrite` on cached fds, and
//! FSSTAT (§3.3.18) from `statvfs`; NFSv4.2's SEEK with lseek(2)'s SEEK_DATA/SEEK_HOLE and ALLOCATE and
//! DEALLOCATE with fallocate(2) (the file system says NOTSUPP where it cannot).
//!
//! Stability: UNSTABLE writes go to the page cache and are reported UNSTABLE; DATA_SYNC writes are followed
//! by `fdatasync`, FILE_SYNC writes by `fsync`, before the reply; COMMIT is an `fsync` of the whole file
//! (Linux has no durable range sync). Holes read as zeros because the file system says so; writing past the
//! end leaves a hole (sparse files, offsets beyond 4 GiB).
//!
//! A non-empty WRITE by an unprivileged caller first `fchmod`s away the set-id bits (S_ISUID; S_ISGID when
//! S_IXGRP is set), as the kernel does for a writer without CAP_FSETID; if that fails the data is not
//! written (the error is returned), so a set-id file never keeps its bits after another user's write.

use std::os::fd::AsFd;

use nfs3_proto::{Ftype3, NfsErr3, StableHow};
use rustix::fs::{fallocate, fchmod, fdatasync, fstatvfs, fsync, seek, FallocateFlags, Mode, SeekFrom};
use rustix::io::{pread, pwrite, Errno};

use super::errors::nfs_err;
use super::open::{Access, Handle};
use super::stat::stat_fd;
use super::DirBackend;
use crate::backend::{mode_after_unprivileged_write, BackendResult, Caller, FileId, FsStats, Seek, WriteDone};

/// Largest file size and offset (`off_t` is signed).
pub(crate) const MAX_FILE_SIZE: u64 = i64::MAX as u64;

/// READ/WRITE/COMMIT apply to regular files only: a directory is ISDIR, anything else INVAL (RFC 1813
/// §3.3.6).
fn regular(handle: &Handle) -> Result<(), NfsErr3> {
    match handle.ftype {
        Ftype3::Reg => Ok(()),
        Ftype3::Dir => Err(NfsErr3::IsDir),
        _ => Err(NfsErr3::Inval),
    }
}

/// Clears the set-id bits an unprivileged write removes, before the data is written. The server writes with
/// its own credentials (often root, with CAP_FSETID), so the kernel would not do it for the NFS caller.
fn clear_set_id(handle: &Handle) -> Result<(), NfsErr3> {
    let mode = u32::from(stat_fd(handle.fd.as_fd())?.stx_mode) & 0o7777;
    let cleared = mode_after_unprivileged_write(mode);
    if cleared == mode {
        return Ok(());
    }
    // Linux file_remove_privs(): a writer without CAP_FSETID loses S_ISUID, and S_ISGID with S_IXGRP.
    fchmod(handle.fd.as_fd(), Mode::from_raw_mode(cleared)).map_err(nfs_err)
}

impl DirBackend {
    pub(crate) fn read_file(&self, file: FileId, offset: u64, count: u32, buf: &mut Vec<u8>) -> BackendResult<bool> {
        buf.clear();
        let handle = self.resolve(file)?;
        regular(&handle)?;
        let handle = self.upgrade(handle, Access::Read)?;
        if offset > MAX_FILE_SIZE {
            return Ok(true);
        }
        let want = count as usize;
        buf.resize(want, 0);
        let mut done = 0;
        while done < want {
            let Some(rest) = buf.get_mut(done..) else { break };
            match pread(handle.fd.as_fd(), rest, offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(Errno::INTR) => {}
                Err(e) => {
                    buf.clear();
                    return Err(nfs_err(e));
                }
            }
        }
        buf.truncate(done);
        if done < want {
            return Ok(true);
        }
        // A full read may still end exactly at the end of the file.
        let size = stat_fd(handle.fd.as_fd())?.stx_size;
        Ok(offset.saturating_add(done as u64) >= size)
    }

    pub(crate) fn write_file(
        &self,
        file: FileId,
        offset: u64,
        data: &[u8],
        stable: StableHow,
        caller: Caller,
    ) -> BackendResult<WriteDone> {
        let handle = self.resolve(file)?;
        regular(&handle)?;
        match offset.checked_add(data.len() as u64) {
            Some(end) if end <= MAX_FILE_SIZE => {}
            _ => return Err(NfsErr3::FBig),
        }
        let handle = self.upgrade(handle, Access::ReadWrite)?;
        if caller == Caller::Unprivileged && !data.is_empty() {
            clear_set_id(&handle)?;
        }
        let mut done = 0;
        while done < data.len() {
            let Some(rest) = data.get(done..) else { break };
            match pwrite(handle.fd.as_fd(), rest, offset + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(Errno::INTR) => {}
                // Part of the data is written: report the short count (RFC 1813 §3.3.7 allows it).
                Err(_) if done > 0 => break,
                Err(e) => return Err(nfs_err(e)),
            }
        }
        if done == 0 && !data.is_empty() {
            return Err(NfsErr3::Io);
        }
        match stable {
            StableHow::Unstable => {}
            StableHow::DataSync => fdatasync(handle.fd.as_fd()).map_err(nfs_err)?,
            StableHow::FileSync => fsync(handle.fd.as_fd()).map_err(nfs_err)?,
        }
        Ok(WriteDone { count: u32::try_from(done).unwrap_or(u32::MAX), committed: stable })
    }

    pub(crate) fn commit_file(&self, file: FileId) -> BackendResult<()> {
        let handle = self.resolve(file)?;
        regular(&handle)?;
        let handle = self.upgrade(handle, Access::Read)?;
        fsync(handle.fd.as_fd()).map_err(nfs_err)
    }

    /// lseek(2) SEEK_DATA / SEEK_HOLE on the file's own descriptor (reads and writes give their offsets,
    /// so moving it disturbs nothing); ENXIO (nothing at or after `offset`) is `None`.
    pub(crate) fn seek_file(&self, file: FileId, offset: u64, what: Seek) -> BackendResult<Option<u64>> {
        let handle = self.resolve(file)?;
        regular(&handle)?;
        let handle = self.upgrade(handle, Access::Read)?;
        if offset > MAX_FILE_SIZE {
            return Ok(None);
        }
        let at = offset;
        let whence = match what {
            Seek::Data => SeekFrom::Data(at),
            Seek::Hole => SeekFrom::Hole(at),
        };
        match seek(handle.fd.as_fd(), whence) {
            Ok(found) => Ok(Some(found)),
            Err(Errno::NXIO) => Ok(None),
            Err(e) => Err(nfs_err(e)),
        }
    }

    /// fallocate(2): mode 0 (`punch` false: allocate, extending the size) or PUNCH_HOLE | KEEP_SIZE.
    pub(crate) fn fallocate_file(&self, file: FileId, offset: u64, length: u64, punch: bool) -> BackendResult<()> {
        let handle = self.resolve(file)?;
        regular(&handle)?;
        match offset.checked_add(length) {
            Some(end) if end <= MAX_FILE_SIZE => {}
            _ => return Err(NfsErr3::FBig),
        }
        let handle = self.upgrade(handle, Access::ReadWrite)?;
        let mode = if punch { FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE } else { FallocateFlags::empty() };
        fallocate(handle.fd.as_fd(), mode, offset, length).map_err(|e| match e {
            Errno::OPNOTSUPP => NfsErr3::NotSupp,
            other => nfs_err(other),
        })
    }

    pub(crate) fn fs_stats(&self) -> BackendResult<FsStats> {
        let vfs = fstatvfs(self.root.fd.as_fd()).map_err(nfs_err)?;
        let unit = if vfs.f_frsize != 0 { vfs.f_frsize } else { vfs.f_bsize };
        Ok(FsStats {
            total_bytes: vfs.f_blocks.saturating_mul(unit),
            free_bytes: vfs.f_bfree.saturating_mul(unit),
            avail_bytes: vfs.f_bavail.saturating_mul(unit),
            total_files: vfs.f_files,
            free_files: vfs.f_ffree,
            avail_files: vfs.f_favail,
        })
    }
}
