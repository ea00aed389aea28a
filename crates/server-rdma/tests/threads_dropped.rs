//! A server whose future is dropped while connections are open on its network threads (rather than
//! shut down through its shutdown future): the connections are cut, and no network thread outlives it.
//! In a test binary of its own, so that no other test's network threads are counted.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::calling_back::{forward_call, CallingBack};
use common::{provider, Requester};
use rpcrdma_proto::{ChunkLists, ConnectPrivate, RdmaHeader};
use server_rdma::{RdmaServer, RdmaServerConfig};

/// Threads of this process named like the server's network threads.
fn network_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("rdma-net-"))
        .count()
}

#[tokio::test]
async fn dropping_the_servers_future_cuts_its_connections_and_ends_its_threads() {
    let handler = CallingBack::new();
    let provider = provider();
    let listener = provider.listen("127.0.0.1:0".parse().expect("address")).expect("listen");
    let addr = listener.local_addr();
    let server = RdmaServer::new(listener, handler, RdmaServerConfig { threads: 2, ..RdmaServerConfig::default() });
    let running = tokio::spawn(server.run(std::future::pending()));
    let private = ConnectPrivate::new(4096, 4096, false).encode();
    let mut requesters = Vec::new();
    for xid in 0..2u32 {
        let mut req = Requester::connect(&*provider, addr, &private).await;
        let (reply, _) = req.call(&RdmaHeader::msg(xid, 64, ChunkLists::default()), &forward_call(xid, None)).await;
        assert_eq!(reply.xid, xid);
        requesters.push(req);
    }
    assert_eq!(network_threads(), 2);
    running.abort();
    assert!(running.await.expect_err("aborted").is_cancelled());
    for req in &mut requesters {
        assert!(req.broken().await, "the connection is cut when the server goes");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while network_threads() > 0 {
        assert!(Instant::now() < deadline, "{} network threads outlived the server", network_threads());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
