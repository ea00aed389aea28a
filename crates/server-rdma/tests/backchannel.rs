//! Backward calls over RPC-over-RDMA (RFC 8167) with a hand-written requester on the software
//! provider: the server calls the client on the client's own queue pair, inline and within the
//! backward credits the client grants; the client's replies reach `handle_reply` and take no forward
//! credit.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::calling_back::{answer, forward_call, is_call, CallingBack, Serving, CB_PROGRAM};
use common::Requester;
use nfs_server::BackChannelError;
use onc_rpc::RpcMessage;
use rpcrdma_proto::{ChunkLists, RdmaBody, RdmaHeader};
use server_rdma::{RdmaServerConfig, DEFAULT_BACKWARD_CREDITS};

/// A call header as the client sends it (asking for 64 credits).
fn msg(xid: u32) -> RdmaHeader {
    RdmaHeader::msg(xid, 64, ChunkLists::default())
}

/// The next `n` messages, sorted: backward calls (header, RPC call) and replies to our calls.
async fn messages(req: &mut Requester, n: usize) -> (Vec<(RdmaHeader, Vec<u8>)>, Vec<(RdmaHeader, Vec<u8>)>) {
    let (mut calls, mut replies) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let (header, rpc) = req.reply().await;
        if is_call(&rpc) {
            calls.push((header, rpc));
        } else {
            replies.push((header, rpc));
        }
    }
    (calls, replies)
}

/// True when no message arrives within `wait`.
async fn nothing_within(req: &mut Requester, wait: Duration) -> bool {
    tokio::time::timeout(wait, req.recv()).await.is_err()
}

#[tokio::test]
async fn a_backward_call_goes_inline_on_the_callers_queue_pair_and_its_reply_reaches_the_handler() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig::default());
    let mut req = serving.connect().await;
    req.send(&msg(1), &forward_call(1, Some((1, 100))));
    let (calls, replies) = messages(&mut req, 2).await;
    assert_eq!((calls.len(), replies.len()), (1, 1));
    let (header, call) = &calls[0];
    // RFC 8167: RDMA_MSG, no chunks, the call's xid, our backward credits asked for.
    assert_eq!(header.body, RdmaBody::Msg(ChunkLists::default()));
    assert_eq!(Some(header.xid), RpcMessage::peek_xid(call));
    assert_eq!(header.credits, DEFAULT_BACKWARD_CREDITS);
    let (cb, args) = RpcMessage::decode(call).expect("the backward call decodes");
    assert_eq!((cb.as_call().map(|c| c.prog), args.len()), (Some(CB_PROGRAM), 100));
    assert_eq!(replies[0].0.xid, 1);
    req.send(&RdmaHeader::msg(header.xid, 16, ChunkLists::default()), &answer(header.xid));
    let answered = handler.answers(1).await;
    let caller = handler.callers.lock().expect("lock")[0];
    assert_eq!(answered, vec![(header.xid, caller)], "matched, on the connection the call went out on");
    let (reply, _) = req.call(&msg(2), &forward_call(2, None)).await;
    assert_eq!(reply.xid, 2, "the connection goes on serving calls");
    let snap = serving.stats.snapshot();
    assert_eq!((snap.backward_calls, snap.backward_replies, snap.unmatched_replies), (1, 1, 0), "{snap}");
    assert_eq!((snap.calls, snap.broken), (2, 0), "the reply is not a call: {snap}");
    serving.stop().await;
}

#[tokio::test]
async fn backward_calls_wait_for_the_credits_the_client_grants() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig::default());
    let mut req = serving.connect().await;
    req.send(&msg(1), &forward_call(1, Some((4, 8))));
    // One credit before the client's first grant.
    let (calls, _) = messages(&mut req, 2).await;
    assert_eq!(calls.len(), 1);
    assert!(nothing_within(&mut req, Duration::from_millis(200)).await, "the second call waits for a grant");
    // The client grants 16; the server uses its own maximum of 2.
    let first = calls[0].0.xid;
    req.send(&RdmaHeader::msg(first, 16, ChunkLists::default()), &answer(first));
    let (calls, replies) = messages(&mut req, 2).await;
    assert_eq!((calls.len(), replies.len()), (2, 0));
    assert!(nothing_within(&mut req, Duration::from_millis(200)).await, "the fourth waits for a credit");
    let second = calls[0].0.xid;
    req.send(&RdmaHeader::msg(second, 16, ChunkLists::default()), &answer(second));
    let (calls, _) = messages(&mut req, 1).await;
    assert_eq!(calls.len(), 1, "a credit came back with the reply");
    assert!(handler.refused.lock().expect("lock").is_empty());
    serving.stop().await;
}

#[tokio::test]
async fn a_backward_reply_takes_no_forward_credit() {
    // One forward credit: a reply counted as a call would put the NULL call past it.
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig { credits: 1, ..RdmaServerConfig::default() });
    let mut req = serving.connect().await;
    req.send(&msg(1), &forward_call(1, Some((1, 0))));
    let (calls, replies) = messages(&mut req, 2).await;
    assert_eq!(replies[0].0.credits, 1, "the grant is one credit");
    let xid = calls[0].0.xid;
    req.send(&RdmaHeader::msg(xid, 16, ChunkLists::default()), &answer(xid));
    req.send(&msg(2), &forward_call(2, None));
    let (header, _) = req.reply().await;
    assert_eq!(header.xid, 2, "the NULL call is answered");
    handler.answers(1).await;
    assert_eq!(serving.stats.snapshot().broken, 0);
    serving.stop().await;
}

#[tokio::test]
async fn calls_too_large_for_the_clients_inline_size_or_with_no_backward_credits_are_refused() {
    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig::default());
    let mut req = serving.connect().await;
    // 4096-byte inline receives: 28 bytes of header leave 4068 for the call.
    let (_, rpc) = req.call(&msg(1), &forward_call(1, Some((1, 4096)))).await;
    let (_, results) = RpcMessage::decode(&rpc).expect("reply");
    assert_eq!(results, [0, 0, 0, 0, 0, 0, 0, 1], "refused");
    assert!(matches!(handler.refused.lock().expect("lock")[0], BackChannelError::TooLarge { max: 4068, .. }));
    serving.stop().await;

    let handler = CallingBack::new();
    let serving = Serving::start(&handler, RdmaServerConfig { backward_credits: 0, ..RdmaServerConfig::default() });
    let mut req = serving.connect().await;
    req.call(&msg(1), &forward_call(1, Some((1, 8)))).await;
    assert!(matches!(handler.refused.lock().expect("lock")[0], BackChannelError::NotBidirectional { .. }));
    serving.stop().await;
}
