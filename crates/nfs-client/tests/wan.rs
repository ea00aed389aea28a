//! A mount through an emulated long-distance link (`NfsClient::mount_with_link`, `nfsbench run --wan`).

mod common;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::proxy::Proxy;
use common::{spec, TestServer};
use nfs_client::{ClientError, NfsClient};

const RTT: Duration = Duration::from_millis(5);

fn link() -> std::sync::Arc<wan::Link> {
    wan::Link::new(mount_options::LinkSpec::parse("rtt=5ms").expect("spec"))
}

async fn timed_getattr(client: &NfsClient) -> Duration {
    let t = Instant::now();
    tokio::time::timeout(Duration::from_secs(10), client.getattr(client.root()))
        .await
        .expect("an answer within 10 s")
        .expect("getattr");
    t.elapsed()
}

fn locals(client: &NfsClient) -> HashSet<SocketAddr> {
    client.connections().iter().map(|c| c.local.expect("connected")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_take_the_links_round_trip_on_every_connection_and_after_a_reconnection() {
    let server = TestServer::start().await;
    // The proxy sees the real connections' client addresses.
    let proxy = Proxy::start(server.addr).await;
    let options = "nconnect=2,hard,timeo=600";
    let client =
        NfsClient::mount_with_link(&spec(proxy.addr.port(), options), None, Some(link())).await.expect("mount");
    for _ in 0..4 {
        let took = timed_getattr(&client).await;
        assert!(took >= RTT && took < RTT * 2, "a GETATTR took {took:?} over a {RTT:?} link");
    }
    // The addresses reported are the real connections' (the proxy's peers), not the relays' loopback pairs.
    let before = locals(&client);
    assert_eq!(before.len(), 2);
    assert!(before.is_subset(&proxy.peers().into_iter().collect()), "{before:?} vs {:?}", proxy.peers());

    // Both connections cut: the calls after it reconnect, through the link again.
    proxy.kill();
    for _ in 0..2 {
        assert!(timed_getattr(&client).await >= RTT);
    }
    assert!(client.stats().reconnects >= 1, "{:?}", client.stats());
    let after = locals(&client);
    assert!(after.is_subset(&proxy.peers().into_iter().collect()), "{after:?} vs {:?}", proxy.peers());
    assert_ne!(after, before);
    client.unmount().await.expect("unmount");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_with_proto_rdma_is_refused_not_ignored() {
    let spec = spec(9, "proto=rdma");
    let err = NfsClient::mount_with_link(&spec, None, Some(link())).await.expect_err("refused");
    assert!(matches!(&err, ClientError::Unsupported(what) if what.contains("--wan")), "{err}");
}
