//! Addresses: the abstract socket name a [`SocketAddr`] listens under, wildcard fallback when
//! dialing, and the ports picked for `listen` on port 0 and for accepted connections.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

const PREFIX: &str = "nfsbench-rdma-soft/";
/// The Linux default ephemeral port range (net.ipv4.ip_local_port_range).
const EPHEMERAL_FIRST: u32 = 32768;
const EPHEMERAL_COUNT: u32 = 60999 - 32768 + 1;

/// The abstract-namespace name (without the leading NUL) of a listener at `addr`.
pub(crate) fn socket_name(addr: SocketAddr) -> Vec<u8> {
    format!("{PREFIX}{}", SocketAddr::new(addr.ip(), addr.port())).into_bytes()
}

/// The names to try when connecting to `addr`: the address itself, then (as TCP would reach a
/// listener bound to a wildcard address) the wildcard listeners of the same port.
pub(crate) fn dial_candidates(addr: SocketAddr) -> Vec<SocketAddr> {
    let mut out = vec![addr];
    if !addr.ip().is_unspecified() {
        if addr.is_ipv4() {
            out.push(SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), addr.port()));
        }
        out.push(SocketAddr::new(IpAddr::V6(Ipv6Addr::UNSPECIFIED), addr.port()));
    }
    out
}

/// A random number: a per-process random key hashed with a counter that never repeats.
fn random() -> u64 {
    static STATE: OnceLock<RandomState> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    STATE.get_or_init(RandomState::new).hash_one((count, std::process::id()))
}

/// A random port of the ephemeral range, for `listen` on port 0.
pub(crate) fn random_port() -> u16 {
    (EPHEMERAL_FIRST + (random() % u64::from(EPHEMERAL_COUNT)) as u32) as u16
}

/// The port an accepted connection's peer address carries: unique per connection of this process
/// until the ephemeral range wraps, starting at a random place.
pub(crate) fn connection_port() -> u16 {
    static NEXT: OnceLock<AtomicU32> = OnceLock::new();
    let next = NEXT.get_or_init(|| AtomicU32::new((random() % u64::from(EPHEMERAL_COUNT)) as u32));
    (EPHEMERAL_FIRST + next.fetch_add(1, Ordering::Relaxed) % EPHEMERAL_COUNT) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_socket_address() {
        assert_eq!(socket_name("127.0.0.1:20049".parse().expect("addr")), b"nfsbench-rdma-soft/127.0.0.1:20049");
        assert_eq!(socket_name("[::1]:20049".parse().expect("addr")), b"nfsbench-rdma-soft/[::1]:20049");
    }

    #[test]
    fn dialing_falls_back_to_wildcard_listeners_of_the_same_port() {
        let got = dial_candidates("10.0.0.1:7".parse().expect("addr"));
        let want: Vec<SocketAddr> =
            ["10.0.0.1:7", "0.0.0.0:7", "[::]:7"].iter().map(|a| a.parse().expect("a")).collect();
        assert_eq!(got, want);
        assert_eq!(dial_candidates("0.0.0.0:7".parse().expect("addr")).len(), 1);
    }

    #[test]
    fn picked_ports_are_ephemeral_and_connection_ports_differ() {
        let ports: std::collections::HashSet<u16> = (0..100).map(|_| random_port()).collect();
        assert!(ports.iter().all(|p| (32768..=60999).contains(p)));
        assert!(ports.len() > 90, "ports repeat too often");
        assert_ne!(connection_port(), connection_port());
    }
}
