//! Socket addresses across the librdmacm boundary: a [`SocketAddr`] as the `sockaddr_in` /
//! `sockaddr_in6` librdmacm takes, and the `sockaddr` it reports turned back into a [`SocketAddr`].
#![allow(unsafe_code)]

use std::mem;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

use rdma_sys as sys;

/// A C socket address, owned, for calls such as `rdma_resolve_addr` and `rdma_bind_addr`.
pub(crate) enum RawSockAddr {
    V4(libc::sockaddr_in),
    V6(libc::sockaddr_in6),
}

impl RawSockAddr {
    pub(crate) fn new(addr: SocketAddr) -> Self {
        match addr {
            SocketAddr::V4(a) => {
                // SAFETY: sockaddr_in is plain old data; all zeroes is a valid (unspecified) value.
                let mut sin: libc::sockaddr_in = unsafe { mem::zeroed() };
                sin.sin_family = libc::AF_INET as libc::sa_family_t;
                sin.sin_port = a.port().to_be();
                sin.sin_addr.s_addr = u32::from_ne_bytes(a.ip().octets());
                RawSockAddr::V4(sin)
            }
            SocketAddr::V6(a) => {
                // SAFETY: as above, for sockaddr_in6.
                let mut sin6: libc::sockaddr_in6 = unsafe { mem::zeroed() };
                sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                sin6.sin6_port = a.port().to_be();
                sin6.sin6_flowinfo = a.flowinfo().to_be();
                sin6.sin6_addr.s6_addr = a.ip().octets();
                sin6.sin6_scope_id = a.scope_id();
                RawSockAddr::V6(sin6)
            }
        }
    }

    /// The address as librdmacm's `struct sockaddr *`; valid while `self` is neither moved nor dropped.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut sys::sockaddr {
        match self {
            RawSockAddr::V4(sin) => (sin as *mut libc::sockaddr_in).cast(),
            RawSockAddr::V6(sin6) => (sin6 as *mut libc::sockaddr_in6).cast(),
        }
    }
}

/// Reads the socket address at `sa` (`None` for a null pointer, an unset address or a family other
/// than IPv4 and IPv6).
///
/// # Safety
/// `sa` is null or points to a socket address of at least the size its family implies (librdmacm's
/// addresses live in a `sockaddr_storage`-sized union inside the `rdma_cm_id`, which must outlive this
/// call).
pub(crate) unsafe fn socket_addr(sa: *const sys::sockaddr) -> Option<SocketAddr> {
    if sa.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees `sa` is readable; every family begins with sa_family.
    let family = unsafe { std::ptr::read_unaligned(sa.cast::<libc::sa_family_t>()) };
    match i32::from(family) {
        libc::AF_INET => {
            // SAFETY: family AF_INET: the caller guarantees a whole sockaddr_in is there.
            let sin = unsafe { std::ptr::read_unaligned(sa.cast::<libc::sockaddr_in>()) };
            let ip = Ipv4Addr::from(sin.sin_addr.s_addr.to_ne_bytes());
            Some(SocketAddr::V4(SocketAddrV4::new(ip, u16::from_be(sin.sin_port))))
        }
        libc::AF_INET6 => {
            // SAFETY: family AF_INET6: the caller guarantees a whole sockaddr_in6 is there.
            let sin6 = unsafe { std::ptr::read_unaligned(sa.cast::<libc::sockaddr_in6>()) };
            let ip = Ipv6Addr::from(sin6.sin6_addr.s6_addr);
            let port = u16::from_be(sin6.sin6_port);
            Some(SocketAddr::V6(SocketAddrV6::new(ip, port, u32::from_be(sin6.sin6_flowinfo), sin6.sin6_scope_id)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(addr: SocketAddr) -> Option<SocketAddr> {
        let mut raw = RawSockAddr::new(addr);
        // SAFETY: `raw` holds a whole sockaddr_in(6) and lives across the call.
        unsafe { socket_addr(raw.as_mut_ptr()) }
    }

    #[test]
    fn ipv4_and_ipv6_addresses_round_trip_through_c_form() {
        for text in ["10.99.0.1:20049", "0.0.0.0:0", "[fe80::1%3]:20049", "[::1]:65535"] {
            let addr: SocketAddr = text.parse().expect("test address");
            assert_eq!(round_trip(addr), Some(addr), "{text}");
        }
    }

    #[test]
    fn ports_are_in_network_byte_order() {
        let addr: SocketAddr = "10.99.0.1:20049".parse().expect("test address");
        let RawSockAddr::V4(sin) = RawSockAddr::new(addr) else { panic!("an IPv4 address") };
        assert_eq!(sin.sin_port.to_ne_bytes(), 20049u16.to_be_bytes());
        assert_eq!(sin.sin_addr.s_addr.to_ne_bytes(), [10, 99, 0, 1]);
    }

    #[test]
    fn null_and_unknown_families_read_as_none() {
        // SAFETY: null is allowed.
        assert_eq!(unsafe { socket_addr(std::ptr::null()) }, None);
        // SAFETY: an all-zero sockaddr_storage is readable and has family AF_UNSPEC.
        let storage: libc::sockaddr_storage = unsafe { mem::zeroed() };
        // SAFETY: `storage` is large enough for every family and outlives the call.
        let read = unsafe { socket_addr((&storage as *const libc::sockaddr_storage).cast()) };
        assert_eq!(read, None);
    }
}
