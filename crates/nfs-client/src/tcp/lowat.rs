//! The socket options behind reply coalescing ([`super::coalesce`]): the receive low-water mark
//! (`SO_RCVLOWAT`, socket(7)) and the receive buffer's size (`SO_RCVBUF`). Neither Tokio, mio nor the
//! workspace's socket crates expose the first, so these two are the crate's only system calls of its
//! own; `unsafe` is allowed in this module alone.
#![allow(unsafe_code)]

use std::io;
use std::mem::size_of;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};

use tokio::net::tcp::OwnedReadHalf;

/// A socket whose receive low-water mark the reader sets.
pub(crate) trait LowWater {
    /// Sets `SO_RCVLOWAT` to `bytes` (1 is the default: any byte makes the socket readable).
    fn set_low_water(&self, bytes: usize) -> io::Result<()>;
    /// `SO_RCVBUF`: the receive buffer's size now (Linux reports it doubled for bookkeeping, as set).
    fn recv_buffer(&self) -> io::Result<usize>;
}

impl LowWater for OwnedReadHalf {
    fn set_low_water(&self, bytes: usize) -> io::Result<()> {
        set_int(self.as_ref().as_fd(), libc::SO_RCVLOWAT, bytes.min(i32::MAX as usize) as libc::c_int)
    }

    fn recv_buffer(&self) -> io::Result<usize> {
        get_int(self.as_ref().as_fd(), libc::SO_RCVBUF).map(|n| usize::try_from(n).unwrap_or(0))
    }
}

fn set_int(fd: BorrowedFd<'_>, option: libc::c_int, value: libc::c_int) -> io::Result<()> {
    // SAFETY: `fd` is borrowed, so the descriptor stays open for the call; `optval` points to `value`,
    // a c_int on this frame that outlives the call, and `optlen` is its size, so the kernel reads
    // exactly that int and keeps no pointer to it.
    let rc = unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            option,
            (&raw const value).cast(),
            size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn get_int(fd: BorrowedFd<'_>, option: libc::c_int) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut len = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `fd` is borrowed (open for the call); `optval` points to `value` and `optlen` to `len`,
    // both on this frame and outliving the call; `len` says `value` holds one c_int, and the kernel
    // writes at most that many bytes and keeps no pointer to either.
    let rc =
        unsafe { libc::getsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, option, (&raw mut value).cast(), &raw mut len) };
    if rc == 0 {
        Ok(value)
    } else {
        Err(io::Error::last_os_error())
    }
}
