//! Addresses: the abstract socket name a [`SocketAddr`] listens under, wildcard fallback when
//! dialing, the address an accepted peer is known by, and the ports picked for `listen` on port 0
//! and for accepted connections.

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

/// Why a connecting process's claimed address was refused (see [`peer_address`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RefusedAddress {
    #[error("the client says it dialed {claimed}, which this listener ({listener}) does not answer to")]
    NotThisListener { claimed: IpAddr, listener: IpAddr },
    #[error("the client claims the address {claimed}, which is not an address of this host (network namespace)")]
    NotThisHost { claimed: IpAddr },
}

/// The address a connecting process is known by (exports' client lists judge it): the address it
/// dialed, as it says in its Hello. On one host that is where a TCP connection from it would come
/// from (a local process reaching a local address X leaves from X), but the Hello is the client's
/// word, and a client's identity for access rules comes from the kernel, never from the client.
/// The kernel tells us that the peer is a process of this host in this network namespace (abstract
/// Unix sockets are per namespace), so the claim is accepted only when it is an address such a
/// process could connect from: one this listener answers to (its own address, or any address of
/// the family when it listens on a wildcard; dialing an unspecified address means loopback, as with
/// TCP), and one of this namespace (`is_local`: any loopback address, 127.0.0.0/8 all being on lo,
/// or an address assigned to an interface). Anything else is refused with the reason: substituting
/// an address would serve a client that lies under a name it did not ask for.
pub(crate) fn peer_address(
    listener: IpAddr,
    claimed: IpAddr,
    is_local: &dyn Fn(IpAddr) -> bool,
) -> Result<IpAddr, RefusedAddress> {
    let answers = match listener {
        ip if ip == claimed => true,
        IpAddr::V4(ip) => ip.is_unspecified() && claimed.is_ipv4(),
        // A wildcard IPv6 listener also takes IPv4 dials (see `dial_candidates`).
        IpAddr::V6(ip) => ip.is_unspecified(),
    };
    if !answers {
        return Err(RefusedAddress::NotThisListener { claimed, listener });
    }
    let ip = match claimed.to_canonical() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    if ip.is_loopback() || is_local(ip) {
        Ok(ip)
    } else {
        Err(RefusedAddress::NotThisHost { claimed })
    }
}

/// True when `ip` is assigned to an interface of this network namespace (getifaddrs; false when it
/// cannot be listed).
pub(crate) fn is_local_address(ip: IpAddr) -> bool {
    match crate::sys::socket::local_addresses() {
        Ok(addresses) => addresses.iter().any(|a| a.to_canonical() == ip),
        Err(e) => {
            tracing::warn!("listing this host's addresses (getifaddrs): {e}");
            false
        }
    }
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

    fn ip(text: &str) -> IpAddr {
        text.parse().expect("address")
    }

    #[test]
    fn a_peer_is_known_by_the_address_it_dialed_only_when_a_local_process_could_use_it() {
        let lan = |a: IpAddr| a == ip("192.168.1.5");
        // Multi-homed loopback: each listener of 127.0.0.1..4 knows its clients by its own address.
        for n in 1..=4 {
            let addr = ip(&format!("127.0.0.{n}"));
            assert_eq!(peer_address(addr, addr, &lan), Ok(addr));
        }
        assert_eq!(peer_address(ip("0.0.0.0"), ip("127.0.0.3"), &lan), Ok(ip("127.0.0.3")));
        assert_eq!(peer_address(ip("0.0.0.0"), ip("192.168.1.5"), &lan), Ok(ip("192.168.1.5")));
        assert_eq!(peer_address(ip("::"), ip("::1"), &lan), Ok(ip("::1")));
        assert_eq!(peer_address(ip("::"), ip("::ffff:192.168.1.5"), &lan), Ok(ip("192.168.1.5")));
        assert_eq!(peer_address(ip("0.0.0.0"), ip("0.0.0.0"), &lan), Ok(ip("127.0.0.1")));
        // A claim that is no address of this host, or that the listener does not answer to.
        let refused = peer_address(ip("0.0.0.0"), ip("10.9.9.9"), &lan).expect_err("not local");
        assert_eq!(refused, RefusedAddress::NotThisHost { claimed: ip("10.9.9.9") });
        let text = refused.to_string();
        assert!(text.contains("10.9.9.9") && text.contains("not an address of this host"), "{text}");
        assert!(peer_address(ip("::"), ip("10.9.9.9"), &lan).is_err());
        let other = peer_address(ip("127.0.0.1"), ip("127.0.0.2"), &lan).expect_err("other");
        assert!(matches!(other, RefusedAddress::NotThisListener { .. }) && other.to_string().contains("answer"));
        assert!(peer_address(ip("127.0.0.1"), ip("10.9.9.9"), &lan).is_err());
        assert!(peer_address(ip("0.0.0.0"), ip("::1"), &lan).is_err());
    }

    #[test]
    fn this_hosts_own_addresses_are_local_and_documentation_ones_are_not() {
        assert!(is_local_address(ip("127.0.0.1")));
        assert!(!is_local_address(ip("192.0.2.77")), "TEST-NET-1 is assigned here?");
    }

    #[test]
    fn picked_ports_are_ephemeral_and_connection_ports_differ() {
        let ports: std::collections::HashSet<u16> = (0..100).map(|_| random_port()).collect();
        assert!(ports.iter().all(|p| (32768..=60999).contains(p)));
        assert!(ports.len() > 90, "ports repeat too often");
        assert_ne!(connection_port(), connection_port());
    }
}
