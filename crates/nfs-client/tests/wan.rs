//! A mount through an emulated long-distance link (`MountConfig::link`, `nfsbench run --wan`): TCP
//! connections through the link's relays, RDMA queue pairs through the soft provider wrapped.

mod common;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::proxy::Proxy;
use common::{spec, TestServer};
use mount_options::{LinkSpec, MountConfig, MountSpec};
use nfs_client::{ClientError, NfsClient};
use rdma::{BoxFuture, Listener, Provider, QpConfig, QueuePair, RdmaError};

const RTT: Duration = Duration::from_millis(5);

fn over_link(spec: MountSpec) -> MountConfig {
    MountConfig { link: Some(LinkSpec::parse("rtt=5ms").expect("spec")), ..MountConfig::new(spec) }
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
    let config = over_link(spec(proxy.addr.port(), options));
    let client = NfsClient::builder(&config).mount().await.expect("mount");
    // Every call pays the round trip. A delay applied twice would make every call take 2 × RTT or more,
    // so the fastest of eight must stay under that: one call late because the machine is loaded does not
    // fail the test, a link that delays twice does.
    let mut took = Vec::new();
    for _ in 0..8 {
        took.push(timed_getattr(&client).await);
    }
    assert!(took.iter().all(|t| *t >= RTT), "GETATTRs took {took:?} over a {RTT:?} link");
    let fastest = took.iter().min().copied().unwrap_or_default();
    assert!(fastest < RTT * 2, "the fastest GETATTR took {fastest:?} over a {RTT:?} link: {took:?}");
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

#[test]
fn over_rdma_the_link_rides_in_the_soft_provider() {
    let config = over_link(spec(9, "proto=rdma"));
    let soft = std::sync::Arc::new(rdma_soft::SoftProvider::new().expect("soft provider"));
    let rdma = NfsClient::builder(&config).rdma_provider(soft).rdma().expect("accepted").expect("proto=rdma");
    let name = rdma.provider.name();
    assert!(name.starts_with("soft") && name.contains("over an emulated link (rtt=5ms)"), "{name}");
}

/// A provider standing for a device: it cannot tell the link what the peer's RDMA Reads and Writes moved.
#[derive(Debug)]
struct Device;

impl Provider for Device {
    fn name(&self) -> String {
        "verbs (mlx5_0)".into()
    }

    fn connect<'a>(
        &'a self,
        _: SocketAddr,
        _: QpConfig,
        _: &'a [u8],
    ) -> BoxFuture<'a, Result<Box<dyn QueuePair>, RdmaError>> {
        Box::pin(async { Err(RdmaError::Disconnected) })
    }

    fn listen(&self, _: SocketAddr) -> Result<Box<dyn Listener>, RdmaError> {
        Err(RdmaError::Disconnected)
    }
}

#[tokio::test]
async fn a_link_over_an_rdma_device_is_refused_not_ignored() {
    let config = over_link(spec(9, "proto=rdma"));
    let err =
        NfsClient::builder(&config).rdma_provider(std::sync::Arc::new(Device)).mount().await.expect_err("refused");
    assert!(matches!(&err, ClientError::LinkNeedsSoftProvider { provider } if provider == "verbs (mlx5_0)"), "{err}");
    assert_eq!(
        err.to_string(),
        "--wan emulates RDMA over the soft provider only (this is verbs (mlx5_0)): use --rdma-provider soft, or the \
         real path's own distance"
    );
}
