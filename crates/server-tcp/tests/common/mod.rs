//! Test fixtures: an in-test RPC program, a server on a loopback port, and a small record-marking client;
//! `calling_back`, a handler that sends backward calls.
#![allow(dead_code)]

pub mod calling_back;

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nfs_server::{ConnectionInfo, Reply};
use onc_rpc::{
    frame_record, AcceptStat, CallHeader, OpaqueAuth, RecordDecoder, RecordLimits, ReplyBody, RpcMessage,
    MAX_FRAGMENT_LEN,
};
use server_core::{BackChannel, ConnectionLimits, RecordHandler};
use server_tcp::{TcpServer, TransportSnapshot, TransportStats};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The in-test program's number and procedures.
pub const TEST_PROGRAM: u32 = 0x2000_0001;
pub const PROC_NULL: u32 = 0;
/// Sleeps the first argument word in milliseconds, then echoes the arguments.
pub const PROC_SLEEP_ECHO: u32 = 1;
/// Replies with a payload of as many bytes as the first argument word says (like an NFS READ).
pub const PROC_READ: u32 = 2;

/// An RPC program for transport tests: NULL, SLEEP_ECHO and READ; records that do not decode as a call
/// get no reply (the transport must carry on).
#[derive(Debug, Default)]
pub struct TestProgram {
    pub blocking: bool,
    pub handled: AtomicUsize,
}

impl TestProgram {
    pub fn new(blocking: bool) -> Arc<Self> {
        Arc::new(TestProgram { blocking, handled: AtomicUsize::new(0) })
    }
}

fn first_word(args: &[u8]) -> u32 {
    args.first_chunk::<4>().map_or(0, |w| u32::from_be_bytes(*w))
}

impl RecordHandler for TestProgram {
    fn handle(&self, record: &[u8], _conn: &ConnectionInfo) -> Option<Reply> {
        self.handled.fetch_add(1, Ordering::Relaxed);
        let (msg, args) = RpcMessage::decode(record).ok()?;
        let call = msg.as_call()?;
        let reply = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE));
        let mut w = reply.header_writer(args.len());
        match call.proc {
            PROC_NULL => Some(Reply::from_inline(w.into_vec())),
            PROC_SLEEP_ECHO => {
                std::thread::sleep(Duration::from_millis(u64::from(first_word(args))));
                w.put_raw(args);
                Some(Reply::from_inline(w.into_vec()))
            }
            PROC_READ => {
                let len = first_word(args) as usize;
                w.put_u32(len as u32);
                let inline = w.into_vec();
                let at = inline.len();
                let mut inline = inline;
                inline.extend_from_slice(&[0, 0, 0, 1]); // a word after the payload ("eof")
                Some(Reply::with_payload(inline, at, vec![0xab; len]))
            }
            _ => {
                let w = RpcMessage::reply(msg.xid, ReplyBody::accepted(AcceptStat::ProcUnavail)).header_writer(0);
                Some(Reply::from_inline(w.into_vec()))
            }
        }
    }

    fn may_block(&self) -> bool {
        self.blocking
    }

    /// NULL and READ replies are bounded by their calls: a header, and READ's length word, payload and
    /// trailing word.
    fn reply_bound(&self, record: &[u8]) -> Option<usize> {
        let (msg, args) = RpcMessage::decode(record).ok()?;
        match msg.as_call()?.proc {
            PROC_NULL => Some(64),
            PROC_READ => Some(64 + first_word(args) as usize),
            _ => None,
        }
    }
}

/// An encoded call (no record mark) of the test program.
pub fn call(xid: u32, proc: u32, args: &[u8]) -> Vec<u8> {
    let msg = RpcMessage::call(xid, CallHeader::new(TEST_PROGRAM, 1, proc, OpaqueAuth::NONE, OpaqueAuth::NONE));
    let mut w = msg.header_writer(args.len());
    w.put_raw(args);
    w.into_vec()
}

/// A call framed as one record-marked fragment.
pub fn framed_call(xid: u32, proc: u32, args: &[u8]) -> Vec<u8> {
    frame_record(&call(xid, proc, args), MAX_FRAGMENT_LEN as usize)
}

/// A server on an ephemeral loopback port, run on the test's runtime.
pub struct Running {
    pub addr: SocketAddr,
    pub stats: Arc<TransportStats>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<io::Result<()>>,
}

impl Running {
    pub async fn start<H: RecordHandler>(handler: Arc<H>, limits: ConnectionLimits) -> Running {
        Self::start_in(handler, limits, None).await
    }

    /// The server with its connections registered in `channel` (the handler's, for backward calls).
    pub async fn start_in<H: RecordHandler>(
        handler: Arc<H>,
        limits: ConnectionLimits,
        channel: Option<Arc<BackChannel>>,
    ) -> Running {
        let loopback: SocketAddr = "127.0.0.1:0".parse().expect("address");
        let mut server = TcpServer::bind(&[loopback], handler, limits).expect("bind");
        if let Some(channel) = channel {
            server = server.with_back_channel(channel);
        }
        let addr = server.local_addrs()[0];
        let stats = server.stats();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async {
            let _ = stopped.await;
        }));
        Running { addr, stats, stop: Some(stop), task }
    }

    /// Asks for shutdown and waits (bounded) for `run` to return.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = &mut self.task;
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("server stops within 10 s")
            .expect("server task")
            .expect("server run");
    }
}

/// Waits (10 s at most) until `cond` holds on the server's counters; panics naming `what` otherwise.
pub async fn eventually(stats: &TransportStats, what: &str, cond: impl Fn(&TransportSnapshot) -> bool) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let snap = stats.snapshot();
        if cond(&snap) {
            return;
        }
        assert!(std::time::Instant::now() < deadline, "{what} within 10 s: {snap}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A client that sends framed bytes and reads whole replies.
pub struct Client {
    pub stream: TcpStream,
    decoder: RecordDecoder,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        Client { stream, decoder: RecordDecoder::new(RecordLimits::default()) }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("send");
    }

    /// The next reply record, or `None` when the server closed the connection (within 10 s).
    pub async fn reply(&mut self) -> Option<Vec<u8>> {
        let mut buf = [0u8; 8192];
        loop {
            if let Some(record) = self.decoder.pop() {
                return Some(record);
            }
            let read = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut buf))
                .await
                .expect("a reply or a close within 10 s");
            match read {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.decoder.push(&buf[..n]).expect("server sends well-formed records"),
            }
        }
    }

    /// The next reply's xid and results; panics unless it is an accepted success.
    pub async fn success(&mut self) -> (u32, Vec<u8>) {
        let record = self.reply().await.expect("a reply");
        let (msg, results) = RpcMessage::decode(&record).expect("reply decodes");
        assert_eq!(msg.as_reply(), Some(&ReplyBody::success(OpaqueAuth::NONE)), "accepted success");
        (msg.xid, results.to_vec())
    }

    /// True when the server closed the connection (EOF or reset) within 10 s, discarding any replies.
    pub async fn closed_by_server(&mut self) -> bool {
        let mut buf = [0u8; 8192];
        loop {
            match tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut buf)).await {
                Err(_) => return false,
                Ok(Ok(0)) | Ok(Err(_)) => return true,
                Ok(Ok(_)) => continue,
            }
        }
    }
}
