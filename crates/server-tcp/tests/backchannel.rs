//! Backward calls over TCP: the service calls the client back on the client's own connection, the
//! call goes out as an ordinary record between whole replies, and the client's reply comes back
//! through `handle_reply` — never executed as a call.

mod common;

use std::sync::Arc;

use common::calling_back::{answer, call_back, is_call, CallingBack};
use common::{framed_call, Client, Running, PROC_NULL};
use nfs_server::BackChannelError;
use onc_rpc::{frame_record, RpcMessage, MAX_FRAGMENT_LEN};
use server_core::{ConnectionLimits, Execution};

fn framed(record: &[u8]) -> Vec<u8> {
    frame_record(record, MAX_FRAGMENT_LEN as usize)
}

async fn start(handler: &Arc<CallingBack>, execution: Execution) -> Running {
    let limits = ConnectionLimits { execution, ..ConnectionLimits::default() };
    Running::start_in(Arc::clone(handler), limits, Some(Arc::clone(&handler.channel))).await
}

/// Reads `n` records and sorts them: backward calls, and replies to our calls.
async fn records(client: &mut Client, n: usize) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let (mut calls, mut replies) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let record = client.reply().await.expect("a record");
        if is_call(&record) {
            calls.push(record);
        } else {
            replies.push(record);
        }
    }
    (calls, replies)
}

async fn a_backward_call_goes_out_on_the_callers_connection_and_its_reply_comes_back(execution: Execution) {
    let handler = CallingBack::new();
    let running = start(&handler, execution).await;
    let mut other = Client::connect(running.addr).await;
    other.send(&framed_call(1, PROC_NULL, &[])).await;
    other.success().await;
    let mut client = Client::connect(running.addr).await;
    client.send(&framed(&call_back(2, 1, 40))).await;
    let (calls, replies) = records(&mut client, 2).await;
    assert_eq!((calls.len(), replies.len()), (1, 1), "one backward call and our reply");
    let (msg, results) = RpcMessage::decode(&replies[0]).expect("reply decodes");
    assert_eq!((msg.xid, results), (2, &[0, 0, 0, 1, 0, 0, 0, 0][..]), "one queued, none refused");
    let (call, args) = RpcMessage::decode(&calls[0]).expect("the backward call decodes");
    assert_eq!((call.as_call().map(|c| c.prog), args.len()), (Some(common::calling_back::CB_PROGRAM), 40));
    client.send(&framed(&answer(call.xid))).await;
    let answered = handler.answers(1).await;
    let caller = handler.callers.lock().expect("lock")[1];
    assert_eq!(answered, vec![(call.xid, caller)], "matched, on the connection the call went out on");
    // The connection goes on serving calls, and nothing was answered to the reply.
    client.send(&framed_call(3, PROC_NULL, &[])).await;
    assert_eq!(client.success().await.0, 3);
    let snap = running.stats.snapshot();
    assert_eq!((snap.backward_calls, snap.backward_replies, snap.unmatched_replies), (1, 1, 0), "{snap}");
    assert_eq!(snap.calls, 3, "the reply is not counted as a call: {snap}");
    running.stop().await;
}

#[tokio::test]
async fn a_backward_call_comes_back_through_handle_reply_with_calls_run_inline() {
    a_backward_call_goes_out_on_the_callers_connection_and_its_reply_comes_back(Execution::Inline).await;
}

#[tokio::test]
async fn a_backward_call_comes_back_through_handle_reply_with_calls_on_the_blocking_pool() {
    a_backward_call_goes_out_on_the_callers_connection_and_its_reply_comes_back(Execution::BlockingPool).await;
}

#[tokio::test]
async fn backward_calls_and_replies_interleave_as_whole_records() {
    let handler = CallingBack::new();
    let running = start(&handler, Execution::Inline).await;
    let mut client = Client::connect(running.addr).await;
    // Five pipelined calls asking for three backward calls each: within what a connection holds.
    let mut pipeline = Vec::new();
    for xid in 10..15 {
        pipeline.extend(framed(&call_back(xid, 3, 5000)));
    }
    client.send(&pipeline).await;
    let (calls, replies) = records(&mut client, 5 * 4).await;
    assert_eq!((calls.len(), replies.len()), (15, 5), "every record whole and well-formed");
    assert!(handler.refused.lock().expect("lock").is_empty());
    let mut answers = Vec::new();
    for call in &calls {
        let xid = RpcMessage::peek_xid(call).expect("xid");
        answers.extend(framed(&answer(xid)));
    }
    client.send(&answers).await;
    assert_eq!(handler.answers(15).await.len(), 15);
    assert_eq!(handler.outstanding(), 0);
    running.stop().await;
}

#[tokio::test]
async fn a_connection_without_a_back_channel_refuses_backward_calls_and_a_closed_one_is_gone() {
    let handler = CallingBack::new();
    // The server does not register its connections in the handler's channel.
    let running = Running::start_in(Arc::clone(&handler), ConnectionLimits::default(), None).await;
    let mut client = Client::connect(running.addr).await;
    client.send(&framed(&call_back(1, 1, 0))).await;
    let (_, results) = client.success().await;
    assert_eq!(results, [0, 0, 0, 0, 0, 0, 0, 1], "refused");
    let caller = handler.callers.lock().expect("lock")[0];
    assert_eq!(handler.refused.lock().expect("lock")[0], BackChannelError::NoSuchConnection(caller));
    running.stop().await;

    let handler = CallingBack::new();
    let running = start(&handler, Execution::Inline).await;
    let mut client = Client::connect(running.addr).await;
    client.send(&framed_call(1, PROC_NULL, &[])).await;
    client.success().await;
    let conn = handler.callers.lock().expect("lock")[0];
    assert!(handler.channel.is_open(conn));
    drop(client);
    for _ in 0..1000 {
        if !handler.channel.is_open(conn) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(handler.channel.send_call(conn, answer(5)), Err(BackChannelError::NoSuchConnection(conn)));
    running.stop().await;
}
