//! Cross-memory attach: one-copy transfers between this process and the peer's address space
//! (process_vm_readv / process_vm_writev), the ptrace permission they need, and watching the peer's
//! life through a pidfd.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// Why a cross-memory copy failed.
#[derive(Debug)]
pub(crate) enum CopyError {
    /// An address was not mapped in one of the processes (EFAULT).
    Fault,
    /// The kernel refused access to the peer's memory (EPERM: ptrace rules).
    Permission,
    /// The peer process is gone (ESRCH).
    PeerGone,
    Other(io::Error),
}

/// Lets any process of ours attach: with Yama's ptrace_scope 1 a peer that is not our ancestor could
/// otherwise not use process_vm_* on us. Harmless (EINVAL) when Yama is absent.
pub(crate) fn allow_any_ptracer() {
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0) };
}

#[cfg(test)]
pub(crate) fn own_pid() -> i32 {
    // SAFETY: getpid cannot fail.
    unsafe { libc::getpid() }
}

/// Which way a copy goes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Direction {
    /// From the peer's memory into ours (RDMA Read).
    FromPeer,
    /// From our memory into the peer's (RDMA Write).
    ToPeer,
}

/// Copies `len` bytes between `local` (in this process) and `remote` (in `pid`).
///
/// The caller guarantees that `[local, local+len)` is memory this process may read (ToPeer) or write
/// (FromPeer) for the whole call; `remote` is checked by the kernel against `pid`'s mappings.
pub(crate) fn copy(pid: i32, direction: Direction, local: usize, remote: usize, len: usize) -> Result<(), CopyError> {
    let mut done = 0;
    while done < len {
        let local_iov = libc::iovec { iov_base: (local + done) as *mut libc::c_void, iov_len: len - done };
        let remote_iov = libc::iovec { iov_base: (remote + done) as *mut libc::c_void, iov_len: len - done };
        // SAFETY: the caller guarantees the local range is ours to read or write for the call; the
        // kernel validates the remote range in the peer's address space and never touches ours
        // outside `local_iov`.
        let ret = unsafe {
            match direction {
                Direction::FromPeer => libc::process_vm_readv(pid, &local_iov, 1, &remote_iov, 1, 0),
                Direction::ToPeer => libc::process_vm_writev(pid, &local_iov, 1, &remote_iov, 1, 0),
            }
        };
        match usize::try_from(ret) {
            Ok(0) => return Err(CopyError::Fault),
            Ok(n) => done += n,
            Err(_) => return Err(copy_error(io::Error::last_os_error())),
        }
    }
    Ok(())
}

/// Local iovecs per process_vm_writev call (the kernel's UIO_MAXIOV).
const MAX_IOVECS: usize = 1024;

/// Writes `parts`, one after the other, to `remote` in `pid`: one process_vm_writev per
/// [`MAX_IOVECS`] parts (more only when the kernel copies less than asked). Returns the calls made.
pub(crate) fn write_gather(pid: i32, parts: &[&[u8]], remote: usize) -> Result<u64, CopyError> {
    let mut calls = 0;
    let mut at = remote;
    let (mut part, mut skip) = (0, 0);
    while part < parts.len() {
        let mut local = Vec::with_capacity((parts.len() - part).min(MAX_IOVECS));
        let mut len = 0;
        for (i, bytes) in parts[part..].iter().take(MAX_IOVECS).enumerate() {
            let from = if i == 0 { skip } else { 0 };
            let piece = &bytes[from..];
            local.push(libc::iovec { iov_base: piece.as_ptr().cast_mut().cast(), iov_len: piece.len() });
            len += piece.len();
        }
        if len == 0 {
            break;
        }
        let remote_iov = libc::iovec { iov_base: at as *mut libc::c_void, iov_len: len };
        // SAFETY: every local iovec lies inside one of `parts`, borrowed for the call, and is only
        // read; the kernel validates the remote range in the peer's address space.
        let ret =
            unsafe { libc::process_vm_writev(pid, local.as_ptr(), local.len() as libc::c_ulong, &remote_iov, 1, 0) };
        calls += 1;
        let mut done = match usize::try_from(ret) {
            Ok(0) => return Err(CopyError::Fault),
            Ok(n) => n,
            Err(_) => return Err(copy_error(io::Error::last_os_error())),
        };
        at += done;
        // Advance past what was written: whole parts, then into the next one.
        while part < parts.len() && done > 0 {
            let left = parts[part].len() - skip;
            if done >= left {
                done -= left;
                part += 1;
                skip = 0;
            } else {
                skip += done;
                done = 0;
            }
        }
        while part < parts.len() && parts[part].len() == skip {
            part += 1;
            skip = 0;
        }
    }
    Ok(calls)
}

fn copy_error(err: io::Error) -> CopyError {
    match err.raw_os_error() {
        Some(libc::EFAULT) => CopyError::Fault,
        Some(libc::EPERM) => CopyError::Permission,
        Some(libc::ESRCH) => CopyError::PeerGone,
        _ => CopyError::Other(err),
    }
}

/// Reads the 8 bytes at `remote` in `pid`: proves at connect time that we may access the peer.
pub(crate) fn probe(pid: i32, remote: usize) -> Result<[u8; 8], CopyError> {
    let mut word = [0u8; 8];
    copy(pid, Direction::FromPeer, word.as_mut_ptr() as usize, remote, word.len())?;
    Ok(word)
}

/// A handle on the peer process that tells whether it has exited.
#[derive(Debug)]
pub(crate) struct PeerProcess {
    pid: i32,
    pidfd: Option<OwnedFd>,
}

impl PeerProcess {
    pub(crate) fn new(pid: i32) -> PeerProcess {
        // SAFETY: pidfd_open with integer arguments; a non-negative result is a fresh descriptor.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
        let pidfd = i32::try_from(raw).ok().filter(|fd| *fd >= 0).map(|fd| {
            // SAFETY: pidfd_open returned a fresh descriptor that nothing else owns.
            unsafe { OwnedFd::from_raw_fd(fd) }
        });
        PeerProcess { pid, pidfd }
    }

    /// True once the process has exited.
    pub(crate) fn exited(&self) -> bool {
        match &self.pidfd {
            Some(fd) => {
                let mut pfd = libc::pollfd { fd: fd.as_raw_fd(), events: libc::POLLIN, revents: 0 };
                // SAFETY: one valid pollfd, zero timeout.
                let ret = unsafe { libc::poll(&mut pfd, 1, 0) };
                ret > 0 && pfd.revents & libc::POLLIN != 0
            }
            None => {
                // SAFETY: signal 0 only checks for existence.
                let ret = unsafe { libc::kill(self.pid, 0) };
                ret != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_within_the_own_process_and_reports_unmapped_addresses() {
        let src = vec![9u8; 3000];
        let mut dst = vec![0u8; 3000];
        copy(own_pid(), Direction::FromPeer, dst.as_mut_ptr() as usize, src.as_ptr() as usize, 3000).expect("copy");
        assert_eq!(dst, src);
        assert!(matches!(copy(own_pid(), Direction::FromPeer, dst.as_mut_ptr() as usize, 8, 8), Err(CopyError::Fault)));
        assert!(!PeerProcess::new(own_pid()).exited());
    }

    #[test]
    fn a_gather_write_lands_its_parts_in_order_including_empty_ones() {
        let mut dst = vec![0u8; 2600];
        let (a, b, c) = (vec![1u8; 1000], Vec::new(), vec![2u8; 1600]);
        let parts: Vec<&[u8]> = vec![&a, &b, &c];
        let calls = write_gather(own_pid(), &parts, dst.as_mut_ptr() as usize).expect("gather");
        assert_eq!(calls, 1);
        assert!(dst[..1000].iter().all(|x| *x == 1) && dst[1000..].iter().all(|x| *x == 2));
        assert!(matches!(write_gather(own_pid(), &parts, 8), Err(CopyError::Fault)));
    }
}
