//! A handler that calls the client back: on a forward call it sends backward calls on the connection
//! the call came on, and matches the client's replies by xid, as an NFSv4.1 server's callback path
//! does; and [`Serving`], the RDMA front end in front of it over the software provider.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nfs_server::{BackChannelError, BackwardReply, ConnectionId, ConnectionInfo, Reply};
use onc_rpc::{CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use rdma::Provider;
use rpcrdma_proto::ConnectPrivate;
use server_core::{BackChannel, RecordHandler};
use server_rdma::{RdmaServer, RdmaServerConfig, RdmaTransportStats};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{provider, Requester, STEP};

/// The forward program: NULL (0), and CALL_BACK (1): as many backward calls as the first argument word
/// says, each with as many argument bytes as the second; results: calls queued, calls refused.
pub const PROGRAM: u32 = 0x2000_0002;
pub const PROC_CALL_BACK: u32 = 1;
/// The program the backward calls are made to.
pub const CB_PROGRAM: u32 = 0x4000_0001;

#[derive(Debug)]
pub struct CallingBack {
    pub channel: Arc<BackChannel>,
    next_xid: AtomicU32,
    outstanding: Mutex<HashSet<u32>>,
    /// Replies matched to a backward call: xid and the connection it came on.
    pub answered: Mutex<Vec<(u32, ConnectionId)>>,
    /// The connection each forward call came on, in order.
    pub callers: Mutex<Vec<ConnectionId>>,
    /// The connection of each forward call and the thread it ran on, in order.
    pub threads: Mutex<Vec<(ConnectionId, String)>>,
    pub refused: Mutex<Vec<BackChannelError>>,
}

impl CallingBack {
    pub fn new() -> Arc<Self> {
        Arc::new(CallingBack {
            channel: BackChannel::new(),
            next_xid: AtomicU32::new(0xcb00_0000),
            outstanding: Mutex::new(HashSet::new()),
            answered: Mutex::new(Vec::new()),
            callers: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
            refused: Mutex::new(Vec::new()),
        })
    }

    /// Waits ([`STEP`] at most) until `n` replies were matched; returns them.
    pub async fn answers(&self, n: usize) -> Vec<(u32, ConnectionId)> {
        let wait = async {
            loop {
                let answered = self.answered.lock().expect("lock").clone();
                if answered.len() >= n {
                    return answered;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        };
        tokio::time::timeout(STEP, wait).await.expect("the backward replies reach the handler")
    }
}

impl RecordHandler for CallingBack {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        let (msg, args) = RpcMessage::decode(record).ok()?;
        let call = msg.as_call()?;
        self.callers.lock().expect("lock").push(conn.id);
        let thread = std::thread::current().name().unwrap_or("unnamed").to_string();
        self.threads.lock().expect("lock").push((conn.id, thread));
        let mut w = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(8);
        if call.proc == PROC_CALL_BACK {
            let word =
                |i: usize| args.get(i * 4..i * 4 + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            let (mut queued, mut refused) = (0u32, 0u32);
            for _ in 0..word(0) {
                let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
                let header = CallHeader::new(CB_PROGRAM, 1, 0, OpaqueAuth::NONE, OpaqueAuth::NONE);
                let mut cb = RpcMessage::call(xid, header).header_writer(word(1) as usize);
                cb.put_raw(&vec![0xcb; word(1) as usize]);
                self.outstanding.lock().expect("lock").insert(xid);
                match self.channel.send_call(conn.id, cb.into_vec()) {
                    Ok(()) => queued += 1,
                    Err(err) => {
                        self.outstanding.lock().expect("lock").remove(&xid);
                        self.refused.lock().expect("lock").push(err);
                        refused += 1;
                    }
                }
            }
            w.put_u32(queued);
            w.put_u32(refused);
        }
        Some(Reply::from_inline(w.into_vec()))
    }

    fn may_block(&self) -> bool {
        false
    }

    fn handle_reply(&self, record: &[u8], conn: &ConnectionInfo) -> BackwardReply {
        let Some(xid) = RpcMessage::peek_xid(record) else { return BackwardReply::Unknown };
        if !self.outstanding.lock().expect("lock").remove(&xid) {
            return BackwardReply::Unknown;
        }
        self.answered.lock().expect("lock").push((xid, conn.id));
        BackwardReply::Matched
    }
}

/// A forward call of the program: NULL (`count` None) or CALL_BACK(count, size).
pub fn forward_call(xid: u32, call_back: Option<(u32, u32)>) -> Vec<u8> {
    let proc = if call_back.is_some() { PROC_CALL_BACK } else { 0 };
    let msg = RpcMessage::call(xid, CallHeader::new(PROGRAM, 1, proc, OpaqueAuth::NONE, OpaqueAuth::NONE));
    let mut w = msg.header_writer(8);
    if let Some((count, size)) = call_back {
        w.put_u32(count);
        w.put_u32(size);
    }
    w.into_vec()
}

/// The client's successful reply to backward call `xid` (no results).
pub fn answer(xid: u32) -> Vec<u8> {
    RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(0).into_vec()
}

/// True for an RPC message whose type is CALL (RFC 5531 §9).
pub fn is_call(rpc: &[u8]) -> bool {
    rpc.get(4..8) == Some(&[0, 0, 0, 0])
}

/// The RDMA front end serving [`CallingBack`] on the software provider, its connections registered in
/// the handler's channel.
pub struct Serving {
    pub addr: SocketAddr,
    pub stats: Arc<RdmaTransportStats>,
    pub provider: Arc<dyn Provider>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), rdma::RdmaError>>,
}

impl Serving {
    pub fn start(handler: &Arc<CallingBack>, config: RdmaServerConfig) -> Serving {
        let provider = provider();
        let listener = provider.listen("127.0.0.1:0".parse().expect("address")).expect("listen");
        let addr = listener.local_addr();
        let server =
            RdmaServer::new(listener, Arc::clone(handler), config).with_back_channel(Arc::clone(&handler.channel));
        let stats = server.stats();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(server.run(async {
            let _ = stopped.await;
        }));
        Serving { addr, stats, provider, stop: Some(stop), task }
    }

    pub async fn connect(&self) -> Requester {
        Requester::connect(&*self.provider, self.addr, &ConnectPrivate::new(4096, 4096, false).encode()).await
    }

    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let ran = tokio::time::timeout(STEP, &mut self.task).await.expect("server stops in time");
        ran.expect("server task").expect("server ran without error");
    }
}
