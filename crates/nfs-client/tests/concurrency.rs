//! Many calls in flight, on one connection and spread over several.

mod common;

use bytes::Bytes;
use common::{spec, TestServer};
use nfs_client::{CreateHow, StableHow};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_calls_share_one_connection_and_each_gets_its_own_reply() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "rsize=4096,wsize=4096")).await.expect("mount");
    let (fh, _) = client.create(client.root(), "blocks", CreateHow::Unchecked, 0o644).await.expect("create");
    // 256 blocks, each filled with its own number.
    let writes: Vec<_> = (0..256u32)
        .map(|i| client.submit_write(&fh, u64::from(i) * 4096, Bytes::from(vec![i as u8; 4096]), StableHow::Unstable))
        .collect();
    for w in writes {
        assert_eq!(w.await.expect("write").count, 4096);
    }
    let before = client.stats().calls;
    let reads: Vec<_> =
        (0..512u32).map(|i| (i % 256, client.submit_read(&fh, u64::from(i % 256) * 4096, 4096))).collect();
    // All 512 are handed to the connection before any is awaited.
    assert_eq!(client.stats().calls - before, 512);
    for (block, read) in reads {
        let reply = read.await.expect("read");
        assert_eq!(reply.data.len(), 4096);
        assert!(reply.data.iter().all(|&b| b == block as u8), "block {block} came back with another's data");
    }
    let conns = client.connections();
    assert_eq!(conns.len(), 1);
    assert_eq!(conns[0].calls_sent, client.stats().calls);
    assert_eq!(conns[0].in_flight, 0);
    assert_eq!(client.stats().retransmissions, 0);
    assert_eq!(client.stats().unknown_replies, 0);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nconnect_4_spreads_calls_round_robin_over_4_connections() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "nconnect=4")).await.expect("mount");
    let calls: Vec<_> = (0..400).map(|_| client.getattr(client.root())).collect();
    for call in calls {
        call.await.expect("getattr");
    }
    let conns = client.connections();
    assert_eq!(conns.len(), 4);
    let locals: std::collections::HashSet<_> = conns.iter().map(|c| c.local.expect("connected")).collect();
    assert_eq!(locals.len(), 4, "four distinct TCP connections");
    for c in &conns {
        assert_eq!(c.remote, server.addr);
        // 400 GETATTRs plus the mount's FSINFO, dealt round-robin.
        assert!((100..=101).contains(&c.calls_sent), "connection {} carried {} calls", c.index, c.calls_sent);
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_mebibyte_transfers_round_trip_intact() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "nconnect=2")).await.expect("mount");
    assert_eq!(client.wsize(), 1 << 20);
    let (fh, _) = client.create(client.root(), "big", CreateHow::Unchecked, 0o644).await.expect("create");
    let data = Bytes::from((0..1u32 << 20).map(|i| (i * 7 % 256) as u8).collect::<Vec<u8>>());
    let writes: Vec<_> =
        (0..4u64).map(|i| client.submit_write(&fh, i << 20, data.clone(), StableHow::FileSync)).collect();
    for w in writes {
        assert_eq!(w.await.expect("write").count, 1 << 20);
    }
    for i in 0..4u64 {
        let reply = client.read(&fh, i << 20, 1 << 20).await.expect("read");
        assert_eq!(reply.data, data);
        assert_eq!(reply.eof, i == 3);
    }
    server.stop().await;
}
