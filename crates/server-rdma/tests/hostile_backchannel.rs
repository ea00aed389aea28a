//! Peers that abuse the backchannel over RPC-over-RDMA: replies nobody asked for, backward calls never
//! answered. Each costs the server a bounded amount, and the peer's own connection and every other one
//! are still served.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::calling_back::{answer, forward_call, is_call, CallingBack, Serving};
use common::Requester;
use nfs_server::BackChannelError;
use onc_rpc::RpcMessage;
use rpcrdma_proto::{ChunkLists, RdmaHeader};
use server_core::MAX_BACKWARD_QUEUED;
use server_rdma::RdmaServerConfig;

fn msg(xid: u32) -> RdmaHeader {
    RdmaHeader::msg(xid, 64, ChunkLists::default())
}

#[tokio::test]
async fn replies_with_unknown_xids_are_dropped_and_counted_and_the_connection_still_served() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig::default());
    let mut hostile = serving.connect().await;
    // Fewer than the receives posted (64 credits and 2 backward), so only the xids are wrong.
    for i in 0..40 {
        let xid = 0xdead_0000 + i;
        hostile.send(&RdmaHeader::msg(xid, 16, ChunkLists::default()), &answer(xid));
    }
    let (reply, _) = hostile.call(&msg(1), &forward_call(1, None)).await;
    assert_eq!(reply.xid, 1, "the only answer is the NULL call's");
    let mut other = serving.connect().await;
    other.call(&msg(2), &forward_call(2, None)).await;
    let snap = serving.stats.snapshot();
    assert_eq!((snap.backward_replies, snap.unmatched_replies, snap.calls, snap.broken), (40, 40, 2, 0), "{snap}");
    assert!(handler.answered.lock().expect("lock").is_empty());
    serving.stop().await;
}

/// Reads messages until the reply to forward call `xid`; returns its results and the backward calls
/// seen on the way.
async fn forward_reply(req: &mut Requester, xid: u32) -> (Vec<u8>, usize) {
    let mut backward = 0;
    loop {
        let (header, rpc) = req.reply().await;
        if is_call(&rpc) {
            backward += 1;
            continue;
        }
        assert_eq!(header.xid, xid, "forward call {xid} answered");
        let (_, results) = RpcMessage::decode(&rpc).expect("the reply decodes");
        return (results.to_vec(), backward);
    }
}

#[tokio::test]
async fn a_client_that_never_answers_holds_one_credit_and_a_bounded_queue_and_is_still_served() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig::default());
    let mut silent = serving.connect().await;
    // Forty backward calls asked for at once: the channel takes its share, the rest are refused.
    silent.send(&msg(1), &forward_call(1, Some((40, 8))));
    let (results, mut backward) = forward_reply(&mut silent, 1).await;
    let queued = u32::from_be_bytes(results[..4].try_into().unwrap()) as usize;
    assert_eq!(queued, MAX_BACKWARD_QUEUED, "the channel's share");
    // More calls go on being served while the client answers nothing.
    for xid in 2..10 {
        silent.send(&msg(xid), &forward_call(xid, Some((1, 8))));
        backward += forward_reply(&mut silent, xid).await.1;
    }
    // One credit before any grant: one backward call sent in all; the others wait or were refused.
    while tokio::time::timeout(Duration::from_millis(200), silent.recv()).await.is_ok() {
        backward += 1;
    }
    assert_eq!(backward, 1, "one backward call outstanding at a time");
    let refused = handler.refused.lock().expect("lock").clone();
    // The channel holds its share, and one more once the sent call made room.
    assert_eq!(refused.len(), 40 + 8 - (MAX_BACKWARD_QUEUED + 1), "every other call refused");
    assert!(refused.iter().all(|e| matches!(e, BackChannelError::QueueFull { .. })));
    let mut other = serving.connect().await;
    other.call(&msg(100), &forward_call(100, None)).await;
    let snap = serving.stats.snapshot();
    assert_eq!((snap.backward_calls, snap.broken), (1, 0), "{snap}");
    serving.stop().await;
}
