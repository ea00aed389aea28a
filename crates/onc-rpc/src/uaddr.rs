//! Universal addresses (RFC 5665 §5.2.3), the text form of transport addresses that rpcbind passes
//! around: the host part, then the port as two more dot-separated decimal bytes.
//!
//! - IPv4: `h1.h2.h3.h4.p1.p2`, e.g. `127.0.0.1.8.1` is 127.0.0.1 port 2049 (8 × 256 + 1).
//! - IPv6: `x1:x2:x3:x4:x5:x6:x7:x8.p1.p2` in any RFC 4291 text form, e.g. `::1.8.1` or
//!   `::ffff:127.0.0.1.8.1`.

use std::net::{IpAddr, SocketAddr};

use crate::rpcbind::{NETID_TCP, NETID_TCP6, NETID_UDP, NETID_UDP6};
use crate::RpcError;

/// The universal address of `addr` (RFC 5665 §5.2.3.3 / §5.2.3.4). IPv6 addresses are written in their
/// RFC 5952 canonical form; a scope id is not representable and is dropped.
pub fn format_uaddr(addr: SocketAddr) -> String {
    let [hi, lo] = addr.port().to_be_bytes();
    format!("{}.{hi}.{lo}", addr.ip())
}

/// Parses a universal address of the `inet` or `inet6` family.
pub fn parse_uaddr(uaddr: &[u8]) -> Result<SocketAddr, RpcError> {
    let text = std::str::from_utf8(uaddr).map_err(|_| RpcError::BadUniversalAddress)?;
    // RFC 5665 §5.2.3.3-4: the last two dot-separated fields are the port's high and low bytes.
    let (rest, lo) = text.rsplit_once('.').ok_or(RpcError::BadUniversalAddress)?;
    let (host, hi) = rest.rsplit_once('.').ok_or(RpcError::BadUniversalAddress)?;
    let port = u16::from_be_bytes([port_byte(hi)?, port_byte(lo)?]);
    let ip: IpAddr = if host.contains(':') {
        IpAddr::V6(host.parse().map_err(|_| RpcError::BadUniversalAddress)?)
    } else {
        IpAddr::V4(host.parse().map_err(|_| RpcError::BadUniversalAddress)?)
    };
    Ok(SocketAddr::new(ip, port))
}

/// One port byte: 1 to 3 decimal digits, at most 255 (no sign, no spaces).
fn port_byte(field: &str) -> Result<u8, RpcError> {
    if field.is_empty() || field.len() > 3 || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(RpcError::BadUniversalAddress);
    }
    field.parse().map_err(|_| RpcError::BadUniversalAddress)
}

/// The TCP netid for an address family: `tcp` or `tcp6` (RFC 5665 §5.1).
pub fn tcp_netid(addr: &SocketAddr) -> &'static [u8] {
    if addr.is_ipv4() {
        NETID_TCP
    } else {
        NETID_TCP6
    }
}

/// The UDP netid for an address family: `udp` or `udp6` (RFC 5665 §5.1).
pub fn udp_netid(addr: &SocketAddr) -> &'static [u8] {
    if addr.is_ipv4() {
        NETID_UDP
    } else {
        NETID_UDP6
    }
}
