//! A scripted RPC-over-RDMA responder over the software provider. It does what a server does with
//! RFC 8166 chunks: decodes each call's transport header (rpcrdma-proto), checks it (`validate_call`),
//! RDMA-Reads its Read chunks and puts the call back together, then asks the test's script what to do:
//! answer (READ data RDMA-Written into the call's Write chunk, a reply too large for the inline
//! threshold RDMA-Written into its Reply chunk), answer RDMA_ERROR, send raw bytes, disconnect, or
//! nothing. FSINFO is answered without the script. It counts the calls in flight per connection.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use onc_rpc::RpcMessage;
use rdma::{
    next_completions, Access, CompletionKind, MemoryRegion, Provider, QpConfig, QueuePair, RdmaError, RegBuf,
    RemoteSegment, WcError,
};
use rpcrdma_proto::{validate_call, ChunkPolicy, DecodeLimits, InlineThresholds, RdmaErrorBody, RdmaHeader, Segment};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

mod answer;

/// Why the fake could not move data or put a call together.
#[derive(Debug, thiserror::Error)]
pub enum FakeError {
    #[error(transparent)]
    Rdma(#[from] RdmaError),
    /// An RDMA Read or Write completed in error.
    #[error(transparent)]
    Completion(#[from] WcError),
    /// The queue pair went away before the operation completed.
    #[error("disconnected")]
    Disconnected,
    /// A call's transport header or chunks do not allow what was asked.
    #[error("{0}")]
    Malformed(&'static str),
}

/// A call as the script sees it.
#[derive(Debug, Clone)]
pub struct RdmaCall {
    pub xid: u32,
    pub proc: u32,
    /// The arguments after the RPC header, Read chunk data back in place.
    pub args: Vec<u8>,
    /// The transport header it came with.
    pub header: RdmaHeader,
    /// Connections accepted before this call's, this one included.
    pub connection: usize,
    /// Times this xid has been received, this one included.
    pub transmission: usize,
}

pub enum RdmaAction {
    /// NFS results after an RPC SUCCESS header; `placed` is READ data for the Write chunk (sent
    /// inline after the results when the call offered none).
    Reply {
        results: Vec<u8>,
        placed: Option<Vec<u8>>,
        delay: Duration,
    },
    Error(RdmaErrorBody),
    /// A message sent as it is.
    Raw(Vec<u8>),
    Disconnect,
}

pub type RdmaScript = Arc<dyn Fn(&RdmaCall) -> Vec<RdmaAction> + Send + Sync>;

use answer::{answer, builtin, send};
#[allow(unused_imports)]
pub use answer::{body, raw_reply};

pub fn reply(results: Vec<u8>) -> RdmaAction {
    RdmaAction::Reply { results, placed: None, delay: Duration::ZERO }
}

struct Shared {
    script: RdmaScript,
    grant: AtomicU32,
    inline: u32,
    /// Send RFC 8797 private data at accept (without it the client must assume 1024 bytes each way).
    private: bool,
    calls: Mutex<Vec<RdmaCall>>,
    seen: Mutex<HashMap<u32, usize>>,
    max_in_flight: AtomicUsize,
    qps: Mutex<Vec<Arc<Conn>>>,
}

pub struct RdmaFake {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

impl Drop for RdmaFake {
    fn drop(&mut self) {
        self.accept.abort();
        for conn in self.shared.qps.lock().expect("lock").iter() {
            conn.qp.disconnect();
        }
    }
}

/// One accepted queue pair: RDMA Read/Write completions are routed to their waiters.
pub(super) struct Conn {
    pub(super) qp: Arc<dyn QueuePair>,
    index: usize,
    waiters: Mutex<HashMap<u64, oneshot::Sender<Result<(), FakeError>>>>,
    next_wr: AtomicU64,
    /// Calls received and not answered on this queue pair.
    in_flight: AtomicUsize,
    /// The client's receive threshold as RFC 8797 gives it.
    pub(super) limits: InlineThresholds,
}

impl Conn {
    pub(super) async fn one_sided(
        &self,
        write: bool,
        local: &MemoryRegion,
        at: usize,
        remote: RemoteSegment,
    ) -> Result<(), FakeError> {
        let wr = self.next_wr.fetch_add(1, SeqCst);
        let (tx, rx) = oneshot::channel();
        self.waiters.lock().expect("lock").insert(wr, tx);
        let posted =
            if write { self.qp.post_write(wr, local, at, remote) } else { self.qp.post_read(wr, local, at, remote) };
        posted?;
        rx.await.map_err(|_| FakeError::Disconnected)?
    }
}

pub(super) fn remote(s: &Segment, length: u32) -> RemoteSegment {
    RemoteSegment { handle: s.handle, offset: s.offset, length }
}

impl RdmaFake {
    /// Listens on a free port with `grant` credits per reply and our inline size in private data.
    pub async fn start(script: RdmaScript, grant: u32) -> RdmaFake {
        Self::start_with(script, grant, true).await
    }

    /// [`start`](Self::start), with or without private data at accept.
    pub async fn start_with(script: RdmaScript, grant: u32, private: bool) -> RdmaFake {
        let provider = rdma_soft::SoftProvider::new().expect("soft provider");
        let mut listener = provider.listen("127.0.0.1:0".parse().expect("addr")).expect("listen");
        let addr = listener.local_addr();
        let shared = Arc::new(Shared {
            script,
            grant: AtomicU32::new(grant),
            inline: 4096,
            private,
            calls: Mutex::new(Vec::new()),
            seen: Mutex::new(HashMap::new()),
            max_in_flight: AtomicUsize::new(0),
            qps: Mutex::new(Vec::new()),
        });
        let s = Arc::clone(&shared);
        let accept = tokio::spawn(async move {
            let mut index = 0;
            while let Ok(incoming) = listener.accept().await {
                index += 1;
                let peer = incoming.private_data().to_vec();
                let ours = InlineThresholds { send: s.inline, recv: s.inline };
                let config = QpConfig { recv_size: s.inline, max_recv: 64, max_send: 256, ..QpConfig::default() };
                let private = if s.private { ours.to_private(false).encode().to_vec() } else { Vec::new() };
                // More receives than granted: a client over its credits is counted, not just broken.
                let Ok(qp) = incoming.accept_with_recvs(config, &private, 64).await else { continue };
                let ours = if s.private { ours } else { InlineThresholds::DEFAULT };
                let limits = rpcrdma_proto::effective_thresholds(ours, Some(&peer));
                let conn = Arc::new(Conn {
                    qp: Arc::from(qp),
                    index,
                    waiters: Mutex::default(),
                    next_wr: AtomicU64::new(1),
                    in_flight: AtomicUsize::new(0),
                    limits,
                });
                s.qps.lock().expect("lock").push(Arc::clone(&conn));
                tokio::spawn(serve(Arc::clone(&s), conn));
            }
        });
        RdmaFake { addr, shared, accept }
    }

    pub fn calls(&self) -> Vec<RdmaCall> {
        self.shared.calls.lock().expect("lock").clone()
    }

    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight.load(SeqCst)
    }

    pub fn connections(&self) -> usize {
        self.shared.qps.lock().expect("lock").len()
    }

    /// An RDMA Write of `len` bytes to `segment` on the latest connection, as a late or rogue server
    /// would do it after the call ended.
    pub async fn late_write(&self, segment: Segment, len: u32) -> Result<(), FakeError> {
        let conn =
            self.shared.qps.lock().expect("lock").last().cloned().ok_or(FakeError::Malformed("no connection"))?;
        let local = conn.qp.register(RegBuf::Writable(vec![0xEE; len as usize]), Access::LOCAL_WRITE)?;
        conn.one_sided(true, &local, 0, remote(&segment, len)).await
    }
}

async fn serve(shared: Arc<Shared>, conn: Arc<Conn>) {
    let mut batch = Vec::new();
    while next_completions(&*conn.qp, &mut batch).await.is_ok() {
        for completion in batch.drain(..) {
            match completion.result {
                Ok(CompletionKind::Recv(message)) => {
                    let _ = conn.qp.post_recvs(1);
                    tokio::spawn(handle(Arc::clone(&shared), Arc::clone(&conn), message));
                }
                Ok(CompletionKind::Read | CompletionKind::Write) | Err(_) => {
                    let waiter = conn.waiters.lock().expect("lock").remove(&completion.wr_id);
                    if let Some(tx) = waiter {
                        let _ = tx.send(completion.result.map(drop).map_err(FakeError::Completion));
                    }
                }
                Ok(CompletionKind::Send) => {}
            }
        }
    }
    for (_, tx) in conn.waiters.lock().expect("lock").drain() {
        let _ = tx.send(Err(FakeError::Disconnected));
    }
}

/// The call put back together: RDMA_NOMSG from its position-zero chunk, RDMA_MSG with each Read
/// chunk's data (and XDR padding) inserted at its position.
async fn assemble(conn: &Conn, header: &RdmaHeader, inline: &[u8]) -> Result<Vec<u8>, FakeError> {
    let chunks = header.chunks().ok_or(FakeError::Malformed("not a call"))?;
    let mut whole = Vec::new();
    let mut from = 0usize;
    for chunk in &chunks.reads {
        let len = chunk.byte_len() as usize;
        let local = conn.qp.register(RegBuf::Writable(vec![0; len]), Access::LOCAL_WRITE)?;
        let mut at = 0;
        for s in &chunk.segments {
            conn.one_sided(false, &local, at, remote(s, s.length)).await?;
            at += s.length as usize;
        }
        let data = local.into_buffer().map_err(|_| FakeError::Malformed("region held"))?.into_bytes();
        if chunk.position == 0 {
            return Ok(data.to_vec());
        }
        let position = chunk.position as usize - (whole.len() - from);
        whole.extend_from_slice(inline.get(from..position).ok_or(FakeError::Malformed("position past the message"))?);
        whole.extend_from_slice(&data);
        whole.extend_from_slice(&[0; 4][..xdr::padding(len)]);
        from = position;
    }
    whole.extend_from_slice(inline.get(from..).unwrap_or_default());
    Ok(whole)
}

async fn handle(shared: Arc<Shared>, conn: Arc<Conn>, message: Bytes) {
    let Ok((header, inline)) = RdmaHeader::decode(&message, &DecodeLimits::default()) else { return };
    let grant = shared.grant.load(SeqCst);
    if validate_call(&header, inline.len(), &ChunkPolicy::default()).is_err() {
        return send(&conn, &RdmaHeader::error(header.xid, grant, RdmaErrorBody::Chunk), &[]);
    }
    let now = conn.in_flight.fetch_add(1, SeqCst) + 1;
    shared.max_in_flight.fetch_max(now, SeqCst);
    let Ok(whole) = assemble(&conn, &header, inline).await else { return };
    let Ok((msg, args)) = RpcMessage::decode(&whole) else { return };
    let Some(call_header) = msg.as_call() else { return };
    let transmission = {
        let mut seen = shared.seen.lock().expect("lock");
        let n = seen.entry(msg.xid).or_default();
        *n += 1;
        *n
    };
    let call = RdmaCall {
        xid: msg.xid,
        proc: call_header.proc,
        args: args.to_vec(),
        header: header.clone(),
        connection: conn.index,
        transmission,
    };
    let actions = match builtin(&call) {
        Some(results) => vec![reply(results)],
        None => {
            shared.calls.lock().expect("lock").push(call.clone());
            (shared.script)(&call)
        }
    };
    let chunks = header.chunks().cloned().unwrap_or_default();
    for action in actions {
        match action {
            RdmaAction::Reply { results, placed, delay } => {
                tokio::time::sleep(delay).await;
                conn.in_flight.fetch_sub(1, SeqCst);
                let _ = answer(&conn, call.xid, grant, &chunks, results, placed).await;
            }
            RdmaAction::Error(body) => {
                conn.in_flight.fetch_sub(1, SeqCst);
                send(&conn, &RdmaHeader::error(call.xid, grant, body), &[]);
            }
            RdmaAction::Raw(bytes) => {
                let _ = conn.qp.post_send(0, &[&bytes]);
            }
            RdmaAction::Disconnect => {
                conn.in_flight.fetch_sub(1, SeqCst);
                conn.qp.disconnect();
            }
        }
    }
}
