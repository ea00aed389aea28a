//! The backchannel end to end: our server's front ends (server-tcp, server-rdma over the software
//! provider) call the client back on its own connection, and the client's transports answer through
//! the handler their owner set, or PROG_UNAVAIL without one; a fake handler on each side. And servers
//! that flood the client with calls cost it a bounded amount.

mod common;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::rdma_fake::{reply, RdmaAction, RdmaFake};
use nfs_client::rdma::BACKWARD_CREDITS;
use nfs_client::transport::{reply_channel, CallbackHandler, RpcCall, RpcTransport};
use nfs_client::{RdmaConfig, RdmaTransport, RetransmitPolicy, TcpOptions, TcpTransport};
use nfs_server::{BackwardReply, ConnectionInfo, Reply};
use onc_rpc::{frame_record, AcceptStat, CallHeader, OpaqueAuth, RecordDecoder, RecordLimits, ReplyBody, RpcMessage};
use rdma::Provider;
use rpcrdma_proto::{ChunkLists, RdmaHeader};
use server_core::{BackChannel, ConnectionLimits, RecordHandler};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use xdr::XdrEncode;

const POLICY: RetransmitPolicy = RetransmitPolicy { timeo: Duration::from_secs(60), retrans: 2, hard: true };
const PROGRAM: u32 = 0x2000_0001;
const CB_PROGRAM: u32 = 0x4000_0001;

/// The server's handler: call CALL_BACK(n) and it sends n backward calls on the caller's connection;
/// it keeps the replies that answer them.
#[derive(Debug)]
struct CallingBack {
    channel: Arc<BackChannel>,
    next_xid: AtomicU32,
    outstanding: Mutex<HashSet<u32>>,
    replies: Mutex<Vec<Vec<u8>>>,
}

impl CallingBack {
    fn new() -> Arc<Self> {
        Arc::new(CallingBack {
            channel: BackChannel::new(),
            next_xid: AtomicU32::new(0xcb00_0000),
            outstanding: Mutex::default(),
            replies: Mutex::default(),
        })
    }

    /// The replies matched so far, once there are `n` (10 s at most).
    async fn replies(&self, n: usize) -> Vec<Vec<u8>> {
        for _ in 0..1000 {
            let replies = self.replies.lock().expect("lock").clone();
            if replies.len() >= n {
                return replies;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{n} replies to backward calls within 10 s");
    }
}

impl RecordHandler for CallingBack {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        let (msg, args) = RpcMessage::decode(record).ok()?;
        msg.as_call()?;
        let count = args.first_chunk::<4>().map_or(0, |w| u32::from_be_bytes(*w));
        let mut queued = 0;
        for _ in 0..count {
            let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
            let header = CallHeader::new(CB_PROGRAM, 1, 0, OpaqueAuth::NONE, OpaqueAuth::NONE);
            self.outstanding.lock().expect("lock").insert(xid);
            if self.channel.send_call(conn.id, RpcMessage::call(xid, header).header_writer(0).into_vec()).is_ok() {
                queued += 1;
            }
        }
        let mut w = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(4);
        w.put_u32(queued);
        Some(Reply::from_inline(w.into_vec()))
    }

    fn may_block(&self) -> bool {
        false
    }

    fn handle_reply(&self, record: &[u8], _conn: &ConnectionInfo) -> BackwardReply {
        let xid = RpcMessage::peek_xid(record).unwrap_or_default();
        if !self.outstanding.lock().expect("lock").remove(&xid) {
            return BackwardReply::Unknown;
        }
        self.replies.lock().expect("lock").push(record.to_vec());
        BackwardReply::Matched
    }
}

/// The client's handler: answers every call with success and `reply_len` bytes of results (the
/// connection index first), and keeps what it saw.
#[derive(Debug, Default)]
struct Answering {
    seen: Mutex<Vec<(u32, usize)>>,
    reply_len: usize,
}

impl CallbackHandler for Answering {
    fn handle_call(&self, record: &[u8], connection: usize) -> Option<Vec<u8>> {
        let xid = RpcMessage::peek_xid(record)?;
        self.seen.lock().expect("lock").push((xid, connection));
        let mut w = RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(self.reply_len);
        let mut results = vec![0xcc; self.reply_len.max(4)];
        results[..4].copy_from_slice(&(connection as u32).to_be_bytes());
        w.put_raw(&results);
        Some(w.into_vec())
    }
}

fn call_back(xid: u32, count: u32) -> RpcCall {
    let header = CallHeader::new(PROGRAM, 1, 1, OpaqueAuth::NONE, OpaqueAuth::NONE);
    let mut w = RpcMessage::call(xid, header).header_writer(4);
    w.put_u32(count);
    RpcCall { xid, proc: "CALL_BACK", inline: w.into_vec(), payload: None, reply_payload: 0, reply_len: None }
}

/// Sends CALL_BACK(`count`) and returns how many backward calls the server queued.
async fn ask_for_calls(t: &dyn RpcTransport, xid: u32, count: u32) -> u32 {
    let (tx, rx) = reply_channel();
    t.submit(call_back(xid, count), tx);
    let reply = rx.wait("CALL_BACK").await.expect("answered");
    let (_, results) = RpcMessage::decode(&reply.record).expect("reply decodes");
    u32::from_be_bytes(results[..4].try_into().expect("a word"))
}

/// The accept_stat of an RPC reply.
fn accept_stat(record: &[u8]) -> Option<AcceptStat> {
    match RpcMessage::decode(record).ok()?.0.as_reply()? {
        ReplyBody::Accepted(accepted) => Some(accepted.stat),
        _ => None,
    }
}

fn provider() -> Arc<dyn Provider> {
    Arc::new(rdma_soft::SoftProvider::new().expect("soft provider"))
}

async fn serve_tcp(handler: &Arc<CallingBack>) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let loopback: SocketAddr = "127.0.0.1:0".parse().expect("address");
    let server = server_tcp::TcpServer::bind(&[loopback], Arc::clone(handler), ConnectionLimits::default())
        .expect("bind")
        .with_back_channel(Arc::clone(&handler.channel));
    let addr = server.local_addrs()[0];
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

fn serve_rdma(
    handler: &Arc<CallingBack>,
    provider: &Arc<dyn Provider>,
) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = provider.listen("127.0.0.1:0".parse().expect("address")).expect("listen");
    let addr = listener.local_addr();
    let config = server_rdma::RdmaServerConfig::default();
    let server = server_rdma::RdmaServer::new(listener, Arc::clone(handler), config)
        .with_back_channel(Arc::clone(&handler.channel));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

async fn tcp_client(addr: SocketAddr) -> TcpTransport {
    let options = TcpOptions { retransmit: POLICY, max_record: (1 << 20) + nfs_client::tcp::REPLY_HEADROOM };
    TcpTransport::connect(&[addr], options).await.expect("connect")
}

/// The server calls back twice on the client's connection; the client's handler answers both, and
/// the answers reach the server's handler. Without a handler the client answers PROG_UNAVAIL.
async fn round_trips(t: &dyn RpcTransport, server: &CallingBack) {
    assert_eq!(ask_for_calls(t, 1, 1).await, 1);
    let unavailable = server.replies(1).await;
    assert_eq!(accept_stat(&unavailable[0]), Some(AcceptStat::ProgUnavail), "no handler yet");
    let client = Arc::new(Answering { reply_len: 8, ..Answering::default() });
    t.set_callback_handler(client.clone());
    assert_eq!(ask_for_calls(t, 2, 2).await, 2);
    let replies = server.replies(3).await;
    for reply in &replies[1..] {
        assert_eq!(accept_stat(reply), Some(AcceptStat::Success), "answered by the handler");
    }
    let seen = client.seen.lock().expect("lock").clone();
    let answered: Vec<u32> = replies[1..].iter().filter_map(|r| RpcMessage::peek_xid(r)).collect();
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), answered, "the same calls, in order");
    assert!(seen.iter().all(|s| s.1 == 0), "on connection 0");
    let stats = t.callback_stats();
    assert_eq!((stats.calls, stats.answered, stats.unavailable, stats.dropped), (3, 2, 1, 0), "{stats:?}");
    // The transport's own calls go on, unaffected.
    assert_eq!(ask_for_calls(t, 3, 0).await, 0);
}

#[tokio::test]
async fn over_tcp_the_servers_calls_reach_the_client_handler_and_its_replies_the_server() {
    let server = CallingBack::new();
    let (addr, _stop) = serve_tcp(&server).await;
    let t = tcp_client(addr).await;
    round_trips(&t, &server).await;
    t.shutdown().await;
}

#[tokio::test]
async fn over_rdma_the_servers_calls_reach_the_client_handler_and_its_replies_the_server() {
    let server = CallingBack::new();
    let provider = provider();
    let (addr, _stop) = serve_rdma(&server, &provider);
    let t = RdmaTransport::connect(&[addr], &RdmaConfig::new(provider), POLICY).await.expect("connect");
    round_trips(&t, &server).await;
    t.shutdown().await;
}

/// A call from a flooding server, framed.
fn cb_call(xid: u32) -> Vec<u8> {
    let header = CallHeader::new(CB_PROGRAM, 1, 0, OpaqueAuth::NONE, OpaqueAuth::NONE);
    RpcMessage::call(xid, header).header_writer(0).into_vec()
}

#[tokio::test]
async fn a_server_that_calls_faster_than_it_reads_costs_the_tcp_client_a_bounded_queue() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let flood = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        // The client's call first, then 2000 calls of ours, then the reply; nothing read after that.
        let mut decoder = RecordDecoder::new(RecordLimits::default());
        let mut buf = [0u8; 4096];
        let call = loop {
            if let Some(record) = decoder.pop() {
                break record;
            }
            let n = socket.read(&mut buf).await.expect("read");
            decoder.push(&buf[..n]).expect("records");
        };
        let xid = RpcMessage::peek_xid(&call).expect("xid");
        let calls: Vec<u8> = (0..2000).flat_map(|i| frame_record(&cb_call(0xf100_0000 + i), 1 << 20)).collect();
        socket.write_all(&calls).await.expect("flood");
        let mut w = RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(4);
        w.put_u32(0);
        socket.write_all(&frame_record(&w.into_vec(), 1 << 20)).await.expect("reply");
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(socket);
    });
    let t = tcp_client(addr).await;
    // Replies of 64 KiB each: far more than the socket buffers take while the server reads nothing.
    let client = Arc::new(Answering { reply_len: 64 << 10, ..Answering::default() });
    t.set_callback_handler(client.clone());
    assert_eq!(ask_for_calls(&t, 7, 0).await, 0, "the client's own call completes");
    let stats = t.callback_stats();
    assert_eq!(stats.calls, 2000, "{stats:?}");
    assert!(stats.dropped > 0, "replies past the queue's room are dropped: {stats:?}");
    assert_eq!(stats.answered + stats.dropped, 2000, "{stats:?}");
    // What waits is bounded: the writer's queue, and what the socket took.
    assert!(stats.answered < 2000 - 1000, "{stats:?}");
    flood.abort();
    t.shutdown().await;
}

#[tokio::test]
async fn a_server_that_calls_past_the_clients_receives_loses_that_queue_pair_and_nothing_more() {
    // On its first transmission the call is answered by a flood of 300 backward calls, more than the
    // client has receives posted (its credits and BACKWARD_CREDITS); on the new queue pair, by a reply.
    let script = Arc::new(|call: &common::rdma_fake::RdmaCall| {
        if call.transmission > 1 {
            return vec![reply(0u32.to_xdr_bytes())];
        }
        (0..300u32)
            .map(|i| {
                let xid = 0xf200_0000 + i;
                let mut message = RdmaHeader::msg(xid, 8, ChunkLists::default()).to_xdr_bytes();
                message.extend(cb_call(xid));
                RdmaAction::Raw(message)
            })
            .collect()
    });
    let fake = RdmaFake::start(script, 64).await;
    let mut config = RdmaConfig::new(provider());
    config.credits = 16;
    let t = RdmaTransport::connect(&[fake.addr], &config, POLICY).await.expect("connect");
    t.set_callback_handler(Arc::new(Answering::default()));
    assert_eq!(ask_for_calls(&t, 9, 0).await, 0, "the call completes on a new queue pair");
    let stats = t.callback_stats();
    assert!(stats.calls <= u64::from(16 + BACKWARD_CREDITS), "no more calls than receives posted: {stats:?}");
    assert!(fake.connections() >= 2, "the flooded queue pair was replaced");
    t.shutdown().await;
}
