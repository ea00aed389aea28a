//! RPC-over-RDMA conformance, our client against our server (server-rdma on the real NFS server, RAM
//! export) over the soft provider: real NFS calls, data checked byte for byte, and the server's transport
//! counters checked for the path each took. Complements the scripted peers of tests/rdma.rs and
//! crates/server-rdma/tests (hostile headers, ERR_CHUNK, disconnects mid-chunk).
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use mount_options::{MountConfig, MountSpec, RdmaSettings};
use nfs_client::{CreateHow, FileHandle, NfsClient, StableHow};
use rdma::Provider;
use rdma_soft::SoftProvider;
use server_rdma::{RdmaServer, RdmaServerConfig, RdmaTransportStats};
use test_support::TestServer;
use tokio::sync::oneshot;

/// The embedded server over TCP (MOUNT) and over RPC-over-RDMA on the soft provider.
struct RdmaTestServer {
    tcp: TestServer,
    rdma: SocketAddr,
    stats: Arc<RdmaTransportStats>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<Result<(), rdma::RdmaError>>>,
}

impl RdmaTestServer {
    async fn start(config: RdmaServerConfig) -> Self {
        let tcp = TestServer::start().await;
        let provider = SoftProvider::new().expect("soft provider");
        let listener = provider.listen("127.0.0.1:0".parse().unwrap()).expect("listen");
        let server = RdmaServer::new(listener, Arc::clone(&tcp.server), config);
        let (rdma, stats) = (server.local_addr(), server.stats());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async {
            let _ = stopped.await;
        }));
        RdmaTestServer { tcp, rdma, stats, stop: Some(stop), task: Some(task) }
    }

    async fn mount(&self, options: &str, credits: u32, inline_size: u32) -> NfsClient {
        let all = format!("proto=rdma,port={},mountport={}{options}", self.rdma.port(), self.tcp.addr.port());
        let mut spec = MountSpec::parse("127.0.0.1:/export", Some(&all)).expect("options");
        spec.portmapper_port = self.tcp.addr.port();
        let rdma = RdmaSettings { credits, inline_size, ..RdmaSettings::default() };
        let config = MountConfig { spec, rdma, link: None };
        let provider = Arc::new(SoftProvider::new().expect("soft provider"));
        NfsClient::builder(&config).rdma_provider(provider).mount().await.expect("mount over RDMA")
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.expect("rdma server task").expect("rdma server ran without error");
        }
        self.tcp.stop().await;
    }
}

fn pattern(len: usize, seed: u8) -> Bytes {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 12) as u8).collect::<Vec<_>>().into()
}

async fn file(client: &NfsClient, name: &str) -> FileHandle {
    client.create(client.root(), name, CreateHow::Unchecked, 0o644).await.expect("create").0
}

/// WRITE then READ of each size, data equal; returns nothing, panics on a mismatch.
async fn round_trip(client: &NfsClient, name: &str, sizes: &[usize]) {
    let fh = file(client, name).await;
    let mut offset = 0u64;
    for (i, &len) in sizes.iter().enumerate() {
        let data = pattern(len, i as u8);
        let written = client.write(&fh, offset, data.clone(), StableHow::FileSync).await.expect("write");
        assert_eq!(written.count as usize, len, "WRITE of {len} bytes");
        let read = client.read(&fh, offset, len as u32).await.expect("read");
        assert!(read.data == data, "READ of {len} bytes at {offset} returns what was written");
        offset += len as u64;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payloads_around_the_inline_threshold_and_of_1_mib_round_trip_exactly() {
    for inline in [4096, 1024] {
        let config = RdmaServerConfig { inline_size: inline, ..RdmaServerConfig::default() };
        let server = RdmaTestServer::start(config).await;
        let client = server.mount("", 128, inline).await;
        let sizes = [inline as usize - 1, inline as usize, inline as usize + 1, 1 << 20];
        round_trip(&client, "boundaries", &sizes).await;
        let s = server.stats.snapshot();
        // Every WRITE payload travels in a read chunk (RFC 8267: DDP-eligible), so the server RDMA-Read
        // exactly the bytes written; READs above the threshold come back through the Write list.
        let total: u64 = sizes.iter().map(|&n| n as u64).sum();
        assert_eq!(s.bytes_rdma_read, total, "inline {inline}: {s}");
        assert!(s.replies_write_chunk >= 3, "inline {inline}: the larger READs use the Write list: {s}");
        assert_eq!((s.broken, s.err_chunk_sent, s.err_vers_sent), (0, 0, 0), "inline {inline}: {s}");
        client.unmount().await.expect("unmount");
        server.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_calls_wait_for_credits_and_never_exhaust_the_servers_receives() {
    for (grant, ask) in [(1, 128), (64, 2)] {
        let config = RdmaServerConfig { credits: grant, ..RdmaServerConfig::default() };
        let server = RdmaTestServer::start(config).await;
        let client = server.mount("", ask, 4096).await;
        let fh = file(&client, "credits").await;
        let data = pattern(64 << 10, 9);
        client.write(&fh, 0, data.clone(), StableHow::FileSync).await.expect("write");
        // 64 READs submitted at once: they wait for credits (RFC 8166 §3.3) instead of overrunning the
        // server's posted receives, which the soft provider would punish by breaking the connection.
        let pending: Vec<_> = (0..64u64).map(|i| client.submit_read(&fh, (i % 16) * 4096, 4096)).collect();
        for (i, p) in pending.into_iter().enumerate() {
            let reply = p.await.expect("read");
            let at = (i as u64 % 16 * 4096) as usize;
            assert!(reply.data == data.slice(at..at + 4096), "grant {grant}, ask {ask}: READ {i}");
        }
        let s = server.stats.snapshot();
        assert_eq!(s.broken, 0, "grant {grant}, ask {ask}: {s}");
        assert!(s.calls >= 66, "grant {grant}, ask {ask}: {s}");
        client.unmount().await.expect("unmount");
        server.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nconnect_over_rdma_opens_a_queue_pair_per_connection_and_uses_them_all() {
    let server = RdmaTestServer::start(RdmaServerConfig::default()).await;
    let client = server.mount(",nconnect=4", 128, 4096).await;
    assert_eq!(client.connections().len(), 4);
    round_trip(&client, "spread", &[4096; 16]).await;
    let s = server.stats.snapshot();
    assert_eq!(s.accepted, 4, "{s}");
    assert!(client.connections().iter().all(|c| c.calls_sent > 0 && c.transport.starts_with("rdma (soft")));
    client.unmount().await.expect("unmount");
    server.stop().await;
}
