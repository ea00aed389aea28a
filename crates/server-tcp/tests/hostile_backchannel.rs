//! Peers that abuse the backchannel: replies nobody asked for, backward calls never answered or never
//! read. Each costs the server a bounded amount, and the peer's own connection and every other one
//! are still served.

mod common;

use std::sync::Arc;

use common::calling_back::{answer, call_back, is_call, CallingBack};
use common::{eventually, framed_call, Client, Running, PROC_NULL};
use nfs_server::BackChannelError;
use onc_rpc::{frame_record, RpcMessage, MAX_FRAGMENT_LEN};
use server_core::{ConnectionLimits, MAX_BACKWARD_QUEUED};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};

fn framed(record: &[u8]) -> Vec<u8> {
    frame_record(record, MAX_FRAGMENT_LEN as usize)
}

async fn start(handler: &Arc<CallingBack>) -> Running {
    Running::start_in(Arc::clone(handler), ConnectionLimits::default(), Some(Arc::clone(&handler.channel))).await
}

async fn null_ping(client: &mut Client, xid: u32) {
    client.send(&framed_call(xid, PROC_NULL, &[])).await;
    assert_eq!(client.success().await.0, xid, "the connection is served");
}

#[tokio::test]
async fn replies_with_unknown_xids_are_dropped_and_counted_and_the_connection_still_served() {
    let handler = CallingBack::new();
    let running = start(&handler).await;
    let mut hostile = Client::connect(running.addr).await;
    let flood: Vec<u8> = (0..500).flat_map(|i| framed(&answer(0xdead_0000 + i))).collect();
    hostile.send(&flood).await;
    // The only record coming back is the reply to the NULL call: nothing answers a reply.
    null_ping(&mut hostile, 1).await;
    eventually(&running.stats, "500 unmatched replies", |s| s.unmatched_replies == 500).await;
    let mut other = Client::connect(running.addr).await;
    null_ping(&mut other, 2).await;
    assert!(handler.answered.lock().expect("lock").is_empty());
    let snap = running.stats.snapshot();
    assert_eq!((snap.backward_replies, snap.calls, snap.replies), (500, 2, 2), "{snap}");
    running.stop().await;
}

#[tokio::test]
async fn a_client_that_reads_backward_calls_and_never_answers_is_still_served_and_holds_nothing() {
    let handler = CallingBack::new();
    let running = start(&handler).await;
    let mut silent = Client::connect(running.addr).await;
    for xid in 0..50 {
        silent.send(&framed(&call_back(xid, 1, 100))).await;
        // Its backward call and our reply, in either order.
        let first = silent.reply().await.expect("a record");
        let second = silent.reply().await.expect("a record");
        let reply = if is_call(&first) { second } else { first };
        assert_eq!(RpcMessage::peek_xid(&reply), Some(xid), "forward call {xid} answered");
    }
    assert_eq!(handler.outstanding(), 50, "the service waits; the transport keeps nothing");
    eventually(&running.stats, "all written, nothing held", |s| {
        s.backward_calls == 50 && s.server_in_flight_bytes == 0
    })
    .await;
    running.stop().await;
}

#[tokio::test]
async fn backward_calls_to_a_client_that_reads_nothing_are_capped_and_others_are_served() {
    let handler = CallingBack::new();
    let running = start(&handler).await;
    let socket = TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(16 << 10).expect("rcvbuf");
    let stream: TcpStream = socket.connect(running.addr).await.expect("connect");
    let (_reader, mut writer) = stream.into_split();
    // Twenty calls each asking for sixteen 60 KB backward calls: 19 MB the client never reads.
    let batch: Vec<u8> = (0..20).flat_map(|xid| framed(&call_back(xid, 16, 60_000))).collect();
    writer.write_all(&batch).await.expect("send");
    eventually(&running.stats, "every call executed", |s| s.calls == 20).await;
    let refused = handler.refused.lock().expect("lock").clone();
    assert!(!refused.is_empty(), "some backward calls were refused");
    assert!(refused.iter().all(|e| matches!(e, BackChannelError::QueueFull { limit: MAX_BACKWARD_QUEUED, .. })));
    let mut other = Client::connect(running.addr).await;
    null_ping(&mut other, 100).await;
    // Held at most: the calls on the write queue and those waiting to join it, 60 KB each, and replies.
    let snap = running.stats.snapshot();
    let cap = 2 * MAX_BACKWARD_QUEUED * 61_000 + (64 << 10);
    assert!(snap.peak_server_in_flight_bytes <= cap, "{} > {cap}: {snap}", snap.peak_server_in_flight_bytes);
    running.stop().await;
}
