//! The network threads: connections dealt to them in turn, each connection's calls (and so its queue
//! pair's completions) handled on one thread for its whole life, calls that may block still on the
//! caller's blocking pool, and backward calls and shutdown working from those threads.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::calling_back::{forward_call, CallingBack, Serving};
use common::Requester;
use nfs_server::ConnectionId;
use rpcrdma_proto::{ChunkLists, RdmaHeader};
use server_core::Execution;
use server_rdma::RdmaServerConfig;

fn msg(xid: u32) -> RdmaHeader {
    RdmaHeader::msg(xid, 64, ChunkLists::default())
}

/// Connects `connections` requesters and makes `calls` NULL calls on each, interleaved.
async fn call_on_each(serving: &Serving, connections: usize, calls: u32) -> Vec<Requester> {
    let mut requesters = Vec::new();
    for _ in 0..connections {
        requesters.push(serving.connect().await);
    }
    for round in 0..calls {
        for (i, req) in requesters.iter_mut().enumerate() {
            let xid = round * 100 + i as u32;
            let (reply, _) = req.call(&msg(xid), &forward_call(xid, None)).await;
            assert_eq!(reply.xid, xid);
        }
    }
    requesters
}

/// The threads each connection's calls ran on.
fn threads_by_connection(handler: &CallingBack) -> BTreeMap<ConnectionId, BTreeSet<String>> {
    let mut by_connection: BTreeMap<ConnectionId, BTreeSet<String>> = BTreeMap::new();
    for (conn, thread) in handler.threads.lock().expect("lock").iter() {
        by_connection.entry(*conn).or_default().insert(thread.clone());
    }
    by_connection
}

#[tokio::test]
async fn connections_are_dealt_to_the_network_threads_in_turn_and_each_stays_on_its_own() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig { threads: 2, ..RdmaServerConfig::default() });
    let requesters = call_on_each(&serving, 4, 3).await;
    let by_connection = threads_by_connection(&handler);
    assert_eq!(by_connection.len(), 4);
    let mut per_thread: BTreeMap<String, usize> = BTreeMap::new();
    for (conn, threads) in &by_connection {
        assert_eq!(threads.len(), 1, "connection {conn:?} ran on {threads:?}");
        *per_thread.entry(threads.first().cloned().unwrap()).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = [("rdma-net-0".to_string(), 2), ("rdma-net-1".to_string(), 2)].into();
    assert_eq!(per_thread, expected);
    drop(requesters);
    serving.stop().await;
}

#[tokio::test]
async fn backward_calls_go_out_from_a_connection_on_a_network_thread() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig { threads: 3, ..RdmaServerConfig::default() });
    let mut req = serving.connect().await;
    req.send(&msg(1), &forward_call(1, Some((1, 16))));
    let (mut backward, mut forward) = (None, None);
    for _ in 0..2 {
        let (header, rpc) = req.reply().await;
        if common::calling_back::is_call(&rpc) {
            backward = Some(header.xid);
        } else {
            forward = Some(header.xid);
        }
    }
    assert_eq!(forward, Some(1));
    let xid = backward.expect("the backward call arrived");
    req.send(&RdmaHeader::msg(xid, 16, ChunkLists::default()), &common::calling_back::answer(xid));
    assert_eq!(handler.answers(1).await.len(), 1, "the client's reply reached the handler");
    let threads = threads_by_connection(&handler);
    assert!(threads.values().flatten().all(|t| t == "rdma-net-0"), "{threads:?}");
    serving.stop().await;
}

#[tokio::test]
async fn with_one_thread_connections_run_on_the_callers_runtime() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig { threads: 1, ..RdmaServerConfig::default() });
    let _requesters = call_on_each(&serving, 2, 2).await;
    let here = std::thread::current().name().map(str::to_string);
    let threads = threads_by_connection(&handler);
    assert!(threads.values().flatten().all(|t| Some(t) == here.as_ref()), "{threads:?}, test thread {here:?}");
    serving.stop().await;
}

#[tokio::test]
async fn calls_that_may_block_run_on_the_callers_blocking_pool_not_on_a_network_thread() {
    let handler = CallingBack::new();
    let config = RdmaServerConfig { threads: 2, execution: Execution::BlockingPool, ..RdmaServerConfig::default() };
    let serving = Serving::start(&handler, config);
    let _requesters = call_on_each(&serving, 2, 2).await;
    let threads = threads_by_connection(&handler);
    assert_eq!(threads.len(), 2);
    assert!(threads.values().flatten().all(|t| !t.starts_with("rdma-net-")), "{threads:?}");
    serving.stop().await;
}
