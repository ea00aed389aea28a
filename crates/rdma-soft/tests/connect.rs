//! Connection management: private data both ways, addresses, refusal, port picking, depths.

mod support;

use rdma::{Incoming, Provider, QpConfig, RdmaError};
use rdma_soft::SoftProvider;
use support::{localhost, pair_with, DEADLINE};

#[tokio::test]
async fn connect_carries_private_data_both_ways_and_reports_addresses() {
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen(localhost()).expect("listen");
    let addr = listener.local_addr();
    assert_ne!(addr.port(), 0, "port 0 picks a port");
    let server = async {
        let incoming = listener.accept().await.expect("incoming");
        assert_eq!(incoming.private_data(), b"hello from the client");
        assert_eq!(incoming.peer_responder_resources(), 3);
        let peer = incoming.peer_addr().expect("peer address");
        assert_eq!(peer.ip(), addr.ip());
        let qp = incoming.accept(QpConfig { initiator_depth: 8, ..QpConfig::default() }, b"hi").await.expect("accept");
        (qp, peer)
    };
    let client_config = QpConfig { responder_resources: 3, initiator_depth: 0, ..QpConfig::default() };
    let client = provider.connect(addr, client_config, b"hello from the client");
    let (client, (server, peer)) =
        tokio::time::timeout(DEADLINE, async { tokio::join!(async { client.await.expect("connect") }, server) })
            .await
            .expect("in time");
    let (ci, si) = (client.info(), server.info());
    assert_eq!(ci.peer_private_data, b"hi");
    assert_eq!(si.peer_private_data, b"hello from the client");
    assert_eq!((ci.peer, ci.local), (Some(addr), Some(peer)));
    assert_eq!((si.local, si.peer), (Some(addr), Some(peer)));
    assert_eq!(ci.provider, "soft (shared memory, one host)");
    assert_eq!(provider.name(), ci.provider);
    // Initiator depth = min(ours, the peer's responder resources).
    assert_eq!((ci.initiator_depth, si.initiator_depth), (0, 3));
}

#[tokio::test]
async fn accepted_connections_get_distinct_peer_ports() {
    let (a, b) = pair_with(QpConfig::default(), QpConfig::default(), 0).await;
    let (c, d) = pair_with(QpConfig::default(), QpConfig::default(), 0).await;
    assert_ne!(b.info().peer, d.info().peer);
    assert_eq!(a.info().local, b.info().peer);
    assert_eq!(c.info().local, d.info().peer);
}

#[tokio::test]
async fn refuses_when_nothing_listens() {
    let provider = SoftProvider::new().expect("provider");
    let addr = {
        let listener = provider.listen(localhost()).expect("listen");
        listener.local_addr()
    };
    let err = provider.connect(addr, QpConfig::default(), b"").await.expect_err("nothing listens");
    assert!(matches!(err, RdmaError::Refused { reason: None, .. }), "{err}");
}

#[tokio::test]
async fn refuses_when_the_listener_rejects() {
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen(localhost()).expect("listen");
    let addr = listener.local_addr();
    let server = async {
        let incoming: Box<dyn Incoming> = listener.accept().await.expect("incoming");
        incoming.reject();
    };
    let (result, ()) = tokio::join!(provider.connect(addr, QpConfig::default(), b"x"), server);
    let err = result.expect_err("rejected");
    assert!(matches!(&err, RdmaError::Refused { reason: Some(r), .. } if r.contains("rejected")), "{err}");
}

#[tokio::test]
async fn a_wildcard_listener_is_reached_through_a_specific_address() {
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen("0.0.0.0:0".parse().expect("addr")).expect("listen");
    let port = listener.local_addr().port();
    let server = async { listener.accept().await.expect("incoming").accept(QpConfig::default(), b"").await };
    let target = format!("127.0.0.1:{port}").parse().expect("addr");
    let (client, server) = tokio::join!(provider.connect(target, QpConfig::default(), b""), server);
    assert_eq!(client.expect("connect").info().peer, Some(target));
    assert_eq!(server.expect("accept").info().peer.map(|p| p.ip()), Some(target.ip()));
}

#[tokio::test]
async fn rejects_private_data_over_56_bytes_and_a_port_already_listened_on() {
    let provider = SoftProvider::new().expect("provider");
    let listener = provider.listen(localhost()).expect("listen");
    let err = provider.connect(listener.local_addr(), QpConfig::default(), &[0; 57]).await.expect_err("too long");
    assert!(matches!(err, RdmaError::Invalid(_)), "{err}");
    assert!(provider.listen(listener.local_addr()).is_err(), "the name is taken");
}

#[tokio::test]
async fn a_silent_client_does_not_hold_up_other_connections() {
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen(localhost()).expect("listen");
    let addr = listener.local_addr();
    // Connects at the socket level and never says hello.
    let _silent = silent_connection(&format!("nfsbench-rdma-soft/{addr}"));
    let server = async { listener.accept().await.expect("incoming").accept(QpConfig::default(), b"").await };
    let (client, server) = tokio::time::timeout(DEADLINE, async {
        tokio::join!(provider.connect(addr, QpConfig::default(), b""), server)
    })
    .await
    .expect("in time");
    client.expect("connect");
    server.expect("accept");
}

/// A SOCK_SEQPACKET connection to the abstract name `name` that sends nothing.
#[allow(unsafe_code)]
fn silent_connection(name: &str) -> std::os::fd::OwnedFd {
    use std::os::fd::FromRawFd;
    // SAFETY: plain system calls; `addr` outlives the connect call and the descriptor is owned once.
    unsafe {
        let fd = libc::socket(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0);
        let mut addr: libc::sockaddr_un = std::mem::zeroed();
        addr.sun_family = libc::AF_UNIX as libc::sa_family_t;
        for (slot, byte) in addr.sun_path[1..].iter_mut().zip(name.bytes()) {
            *slot = byte as libc::c_char;
        }
        let len = (std::mem::size_of::<libc::sa_family_t>() + 1 + name.len()) as libc::socklen_t;
        assert_eq!(libc::connect(fd, std::ptr::addr_of!(addr).cast(), len), 0);
        std::os::fd::OwnedFd::from_raw_fd(fd)
    }
}
