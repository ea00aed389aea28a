//! Unix-domain SOCK_SEQPACKET sockets in the Linux abstract namespace: the connection-management and
//! message channel of the software provider. Message boundaries are kept; descriptors travel with
//! SCM_RIGHTS; the peer's pid comes from SO_PEERCRED (the kernel's word, not the peer's).
#![allow(unsafe_code)]

use std::io;
use std::mem;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::ptr;

/// The most descriptors one message carries.
pub(crate) const MAX_FDS: usize = 4;

/// Registers a socket with the current tokio runtime's reactor (which must exist).
pub(crate) fn register(fd: OwnedFd) -> io::Result<tokio::io::unix::AsyncFd<OwnedFd>> {
    // SAFETY: the `OwnedFd` keeps its descriptor open, and always returns the same one, for as long
    // as the `AsyncFd` owns it.
    unsafe { tokio::io::unix::AsyncFd::register(fd) }.map_err(io::Error::from)
}

/// A new non-blocking, close-on-exec SOCK_SEQPACKET socket.
pub(crate) fn seqpacket() -> io::Result<OwnedFd> {
    let kind = libc::SOCK_SEQPACKET | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: plain system call.
    let raw = unsafe { libc::socket(libc::AF_UNIX, kind, 0) };
    owned(raw)
}

fn owned(raw: RawFd) -> io::Result<OwnedFd> {
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the system call returned a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(raw) })
}

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// An abstract-namespace address: a leading NUL, then `name` (at most 107 bytes).
fn abstract_addr(name: &[u8]) -> io::Result<(libc::sockaddr_un, libc::socklen_t)> {
    // SAFETY: sockaddr_un is plain data; all zeroes is valid.
    let mut addr: libc::sockaddr_un = unsafe { mem::zeroed() };
    addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
    if name.len() + 1 > addr.sun_path.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "socket name too long"));
    }
    for (slot, byte) in addr.sun_path[1..].iter_mut().zip(name) {
        *slot = *byte as libc::c_char;
    }
    let len = mem::size_of::<libc::sa_family_t>() + 1 + name.len();
    Ok((addr, len as libc::socklen_t))
}

/// Binds `fd` to the abstract name `name` (EADDRINUSE when taken).
pub(crate) fn bind(fd: BorrowedFd<'_>, name: &[u8]) -> io::Result<()> {
    let (addr, len) = abstract_addr(name)?;
    // SAFETY: `addr` is a valid sockaddr_un of `len` bytes for the duration of the call.
    check(unsafe { libc::bind(fd.as_raw_fd(), ptr::addr_of!(addr).cast(), len) })
}

pub(crate) fn listen(fd: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: plain system call.
    check(unsafe { libc::listen(fd.as_raw_fd(), libc::SOMAXCONN) })
}

/// Connects `fd` to the abstract name `name` (ECONNREFUSED when nothing listens there, EAGAIN when the
/// listener's backlog is full).
pub(crate) fn connect(fd: BorrowedFd<'_>, name: &[u8]) -> io::Result<()> {
    let (addr, len) = abstract_addr(name)?;
    // SAFETY: `addr` is a valid sockaddr_un of `len` bytes for the duration of the call.
    check(unsafe { libc::connect(fd.as_raw_fd(), ptr::addr_of!(addr).cast(), len) })
}

/// Accepts one pending connection as a non-blocking socket.
pub(crate) fn accept(fd: BorrowedFd<'_>) -> io::Result<OwnedFd> {
    let flags = libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC;
    // SAFETY: null address pointers ask for no peer address.
    owned(unsafe { libc::accept4(fd.as_raw_fd(), ptr::null_mut(), ptr::null_mut(), flags) })
}

/// Who is at the other end, as the kernel recorded it when the connection was made (SO_PEERCRED).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PeerCred {
    pub pid: i32,
    pub uid: u32,
}

/// The process at the other end and its user, as the kernel recorded them (SO_PEERCRED).
pub(crate) fn peer_cred(fd: BorrowedFd<'_>) -> io::Result<PeerCred> {
    let mut cred = libc::ucred { pid: 0, uid: 0, gid: 0 };
    let mut len = mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid out-pointers of the sizes given.
    check(unsafe {
        libc::getsockopt(fd.as_raw_fd(), libc::SOL_SOCKET, libc::SO_PEERCRED, ptr::addr_of_mut!(cred).cast(), &mut len)
    })?;
    Ok(PeerCred { pid: cred.pid, uid: cred.uid })
}

/// The pid of the process at the other end, as the kernel recorded it (SO_PEERCRED).
pub(crate) fn peer_pid(fd: BorrowedFd<'_>) -> io::Result<i32> {
    peer_cred(fd).map(|cred| cred.pid)
}

/// The IPv4 and IPv6 addresses assigned to the interfaces of this process's network namespace
/// (getifaddrs).
pub(crate) fn local_addresses() -> io::Result<Vec<std::net::IpAddr>> {
    let mut list: *mut libc::ifaddrs = ptr::null_mut();
    // SAFETY: `list` is a valid out-pointer; on success it owns a list we free below.
    check(unsafe { libc::getifaddrs(&mut list) })?;
    let mut out = Vec::new();
    let mut at = list;
    while !at.is_null() {
        // SAFETY: `at` is a node of the list getifaddrs returned, alive until freeifaddrs; its
        // address, when not null, points at a sockaddr of the family it names (sockaddr_in for
        // AF_INET, sockaddr_in6 for AF_INET6), read unaligned to be safe.
        unsafe {
            let addr = (*at).ifa_addr;
            if !addr.is_null() {
                match i32::from((*addr).sa_family) {
                    libc::AF_INET => {
                        let sin = ptr::read_unaligned(addr.cast::<libc::sockaddr_in>());
                        out.push(std::net::Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr)).into());
                    }
                    libc::AF_INET6 => {
                        let sin6 = ptr::read_unaligned(addr.cast::<libc::sockaddr_in6>());
                        out.push(std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr).into());
                    }
                    _ => {}
                }
            }
            at = (*at).ifa_next;
        }
    }
    // SAFETY: frees the list getifaddrs allocated, once; nothing points into it any more.
    unsafe { libc::freeifaddrs(list) };
    Ok(out)
}

/// Raises the send buffer so that bursts of messages rarely meet EAGAIN (best effort).
pub(crate) fn grow_send_buffer(fd: BorrowedFd<'_>, bytes: usize) {
    let value = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
    for opt in [libc::SO_SNDBUFFORCE, libc::SO_SNDBUF] {
        // SAFETY: `value` is a valid c_int for the duration of the call.
        let ret = unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                ptr::addr_of!(value).cast(),
                mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if ret == 0 {
            return;
        }
    }
}

/// Ends both directions; the peer reads end-of-file once it has read what was sent before.
pub(crate) fn shutdown(fd: BorrowedFd<'_>) {
    // SAFETY: plain system call.
    unsafe { libc::shutdown(fd.as_raw_fd(), libc::SHUT_RDWR) };
}

/// Sends one message gathered from `parts`, with `fds` attached (SCM_RIGHTS). Returns the bytes sent;
/// a message is sent whole or not at all.
pub(crate) fn send(fd: BorrowedFd<'_>, parts: &[&[u8]], fds: &[BorrowedFd<'_>]) -> io::Result<usize> {
    let to_iovec = |p: &&[u8]| libc::iovec { iov_base: p.as_ptr().cast_mut().cast(), iov_len: p.len() };
    // A doorbell (one part, no descriptors) is sent for most messages while the peer sleeps: it
    // allocates nothing.
    let (mut one, mut many): ([libc::iovec; 1], Vec<libc::iovec>);
    let iov: &mut [libc::iovec] = match parts {
        [part] => {
            one = [to_iovec(part)];
            &mut one
        }
        _ => {
            many = parts.iter().map(to_iovec).collect();
            &mut many
        }
    };
    let raw_fds: Vec<RawFd> = fds.iter().map(|f| f.as_raw_fd()).collect();
    let mut control = if raw_fds.is_empty() { Vec::new() } else { vec![0u64; control_words(raw_fds.len())] };
    // SAFETY: msghdr is plain data; all zeroes is valid.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = iov.as_mut_ptr();
    msg.msg_iovlen = iov.len();
    if !raw_fds.is_empty() {
        let data_len = mem::size_of_val(raw_fds.as_slice());
        msg.msg_control = control.as_mut_ptr().cast();
        // SAFETY: CMSG_SPACE only computes a size.
        msg.msg_controllen = unsafe { libc::CMSG_SPACE(data_len as u32) } as usize;
        // SAFETY: `control` is at least CMSG_SPACE(data_len) bytes and 8-aligned, so the first header
        // and its data fit; the pointers stay inside `control`.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(data_len as u32) as usize;
            ptr::copy_nonoverlapping(raw_fds.as_ptr().cast::<u8>(), libc::CMSG_DATA(cmsg), data_len);
        }
    }
    // SAFETY: `msg` points at `iov`, the caller's slices and `control`, all alive for the call.
    let sent = unsafe { libc::sendmsg(fd.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) };
    usize::try_from(sent).map_err(|_| io::Error::last_os_error())
}

fn control_words(fds: usize) -> usize {
    // SAFETY: CMSG_SPACE only computes a size.
    let bytes = unsafe { libc::CMSG_SPACE((fds * mem::size_of::<RawFd>()) as u32) } as usize;
    bytes.div_ceil(8)
}

/// One received message.
#[derive(Debug)]
pub(crate) struct Received {
    /// Bytes written into the buffer; 0 with nothing else means end-of-file.
    pub len: usize,
    /// The message was longer than the buffer (its tail was dropped).
    pub truncated: bool,
    /// Descriptors that came with it (only when asked for).
    pub fds: Vec<OwnedFd>,
}

/// Receives one message into `buf`, taking up to [`MAX_FDS`] descriptors when `want_fds` (otherwise the
/// kernel discards any that were sent).
pub(crate) fn recv(fd: BorrowedFd<'_>, buf: &mut [u8], want_fds: bool) -> io::Result<Received> {
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let mut control = vec![0u64; if want_fds { control_words(MAX_FDS) } else { 0 }];
    // SAFETY: msghdr is plain data; all zeroes is valid.
    let mut msg: libc::msghdr = unsafe { mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if want_fds {
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = control.len() * 8;
    }
    // SAFETY: `msg` points at `buf` and `control`, both alive and writable for the call.
    let got = unsafe { libc::recvmsg(fd.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
    let len = usize::try_from(got).map_err(|_| io::Error::last_os_error())?;
    let mut fds = Vec::new();
    if want_fds {
        // SAFETY: the kernel filled `control` and `msg_controllen`; the CMSG macros stay inside it.
        unsafe {
            let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
            while !cmsg.is_null() {
                if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                    let data_len = (*cmsg).cmsg_len - libc::CMSG_LEN(0) as usize;
                    let data = libc::CMSG_DATA(cmsg);
                    for i in 0..data_len / mem::size_of::<RawFd>() {
                        let raw = ptr::read_unaligned(data.cast::<RawFd>().add(i));
                        // The kernel installed it for us: we own it now.
                        fds.push(OwnedFd::from_raw_fd(raw));
                    }
                }
                cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
            }
        }
    }
    Ok(Received { len, truncated: msg.msg_flags & libc::MSG_TRUNC != 0, fds })
}

/// A connected pair of non-blocking SOCK_SEQPACKET sockets, for tests.
#[cfg(test)]
pub(crate) fn pair() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    let kind = libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK;
    // SAFETY: `fds` is a valid out-array of two descriptors.
    let ret = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) };
    assert_eq!(ret, 0);
    // SAFETY: fresh descriptors from socketpair.
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn messages_keep_their_boundaries_and_carry_descriptors() {
        let (a, b) = pair();
        let (x, _y) = pair();
        send(a.as_fd(), &[b"he", b"llo"], &[x.as_fd()]).expect("send");
        send(a.as_fd(), &[b"second"], &[]).expect("send");
        let mut buf = [0u8; 16];
        let got = recv(b.as_fd(), &mut buf, true).expect("recv");
        assert_eq!((&buf[..got.len], got.truncated, got.fds.len()), (&b"hello"[..], false, 1));
        let got = recv(b.as_fd(), &mut buf, false).expect("recv");
        assert_eq!(&buf[..got.len], b"second");
    }

    #[test]
    fn a_message_longer_than_the_buffer_is_reported_truncated() {
        let (a, b) = pair();
        send(a.as_fd(), &[&[7u8; 32]], &[]).expect("send");
        let mut buf = [0u8; 8];
        let got = recv(b.as_fd(), &mut buf, false).expect("recv");
        assert!(got.truncated);
        assert_eq!(peer_pid(a.as_fd()).expect("cred"), std::process::id() as i32);
        // SAFETY: getuid cannot fail.
        assert_eq!(peer_cred(a.as_fd()).expect("cred").uid, unsafe { libc::getuid() });
    }

    #[test]
    fn the_loopback_address_is_a_local_address() {
        let local = local_addresses().expect("getifaddrs");
        assert!(local.contains(&std::net::Ipv4Addr::LOCALHOST.into()), "{local:?}");
    }
}
