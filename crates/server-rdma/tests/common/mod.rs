//! Test fixtures: the real NFS server (RAM export at `/export`) behind [`RdmaServer`] over the software
//! provider, and a hand-written RPC-over-RDMA requester ([`Requester`]) that builds its headers with
//! rpcrdma-proto and its calls with onc-rpc / nfs3-proto, so each test says exactly what goes on the wire.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

pub mod calling_back;
pub mod nfs;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use nfs_server::backend::mem::MemBackend;
use nfs_server::{ExportConfig, IpNet, Server, ServerConfig, Squash};
use rdma::{
    next_completions, Access, Completion, CompletionKind, MemoryRegion, Provider, QpConfig, QueuePair, RdmaError,
    RegBuf, WcError,
};
use rpcrdma_proto::{ConnectPrivate, DecodeLimits, RdmaHeader, Segment};
use server_rdma::{RdmaServer, RdmaServerConfig, RdmaTransportStats};
use tokio::sync::oneshot;
use xdr::XdrEncode;

/// Why [`Requester::recv`] got no message: the provider failed, or a work request completed in error.
#[derive(Debug, thiserror::Error)]
pub enum RecvError {
    #[error(transparent)]
    Rdma(#[from] RdmaError),
    #[error(transparent)]
    Completion(#[from] WcError),
}

/// How long any one step may take before the test fails.
pub const STEP: Duration = Duration::from_secs(20);

/// Logs to the test's output when `RUST_LOG` asks for it (e.g. `RUST_LOG=server_rdma=debug`).
pub fn logs() {
    let filter = tracing_subscriber::EnvFilter::from_default_env();
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_test_writer().try_init();
}

pub fn provider() -> Arc<dyn Provider> {
    logs();
    Arc::new(rdma_soft::SoftProvider::new().expect("the software RDMA provider"))
}

/// The NFS server over RDMA, running on the test's runtime until [`Running::stop`].
pub struct Running {
    pub addr: SocketAddr,
    pub server: Arc<Server>,
    pub stats: Arc<RdmaTransportStats>,
    pub provider: Arc<dyn Provider>,
    stop: Option<oneshot::Sender<()>>,
    done: Option<oneshot::Sender<Result<(), RdmaError>>>,
    /// What `run` returned.
    task: oneshot::Receiver<Result<(), RdmaError>>,
    /// The server thread's /proc path (`PID/task/TID`) when it has one of its own.
    thread: Option<std::path::PathBuf>,
}

impl Running {
    pub async fn start() -> Running {
        Self::start_with(RdmaServerConfig::default())
    }

    pub fn start_with(config: RdmaServerConfig) -> Running {
        Self::start_exporting(config, Vec::new(), "127.0.0.1:0")
    }

    /// The server listening at `listen` with the RAM export open only to `clients` (empty: everyone).
    pub fn start_exporting(config: RdmaServerConfig, clients: Vec<IpNet>, listen: &str) -> Running {
        let (rdma, mut running, stopped) = Self::build(config, clients, listen);
        let done = running.done.take().expect("fresh");
        tokio::spawn(async move {
            let _ = done.send(
                rdma.run(async {
                    let _ = stopped.await;
                })
                .await,
            );
        });
        running
    }

    /// The server on a thread and one-thread runtime of its own (as a listener's network thread), so
    /// that anything blocking that thread shows as a stall of its other connections, not of the test.
    pub fn start_isolated(config: RdmaServerConfig) -> Running {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let (rdma, mut running, stopped) = {
            let _inside = runtime.enter();
            Self::build(config, Vec::new(), "127.0.0.1:0")
        };
        let done = running.done.take().expect("fresh");
        let (tell, told) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new().name("rdma-server".into());
        thread
            .spawn(move || {
                let _ = tell.send(std::fs::read_link("/proc/thread-self").ok());
                let _ = done.send(runtime.block_on(rdma.run(async {
                    let _ = stopped.await;
                })));
            })
            .expect("server thread");
        running.thread = told.recv().ok().flatten();
        running
    }

    /// CPU time the server's own thread has used (for [`Running::start_isolated`], from /proc).
    pub fn thread_cpu(&self) -> Option<Duration> {
        let stat =
            std::fs::read_to_string(std::path::Path::new("/proc").join(self.thread.as_ref()?).join("stat")).ok()?;
        // Fields after the command's closing parenthesis: state is field 3, utime and stime 14 and 15.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        // USER_HZ is 100 on Linux.
        Some(Duration::from_millis(ticks * 10))
    }

    /// The server listening at `listen`, not yet running; must be called inside a runtime.
    pub fn build(
        config: RdmaServerConfig,
        clients: Vec<IpNet>,
        listen: &str,
    ) -> (RdmaServer, Running, oneshot::Receiver<()>) {
        let provider = provider();
        let listener = provider.listen(listen.parse().expect("address")).expect("listen");
        let export = ExportConfig {
            path: "/export".into(),
            backend: Arc::new(MemBackend::new(64 << 20)),
            read_only: false,
            clients,
            squash: Squash::None,
            anon_uid: 65534,
            anon_gid: 65534,
            secure: false,
        };
        let addr = listener.local_addr();
        let config_server = ServerConfig {
            exports: vec![export],
            max_io_size: 1 << 20,
            drc_entries: 1024,
            tcp_port: 0,
            rdma_port: Some(addr.port()),
        };
        let server = Arc::new(Server::new(config_server).expect("server config"));
        let rdma = RdmaServer::new(listener, Arc::clone(&server), config);
        let stats = rdma.stats();
        let (stop, stopped) = oneshot::channel::<()>();
        let (done, task) = oneshot::channel();
        (
            rdma,
            Running { addr, server, stats, provider, stop: Some(stop), done: Some(done), task, thread: None },
            stopped,
        )
    }

    pub fn root(&self) -> nfs3_proto::FileHandle3 {
        self.server.root_handle("/export").expect("root handle")
    }

    pub async fn connect(&self) -> Requester {
        Requester::connect(&*self.provider, self.addr, &ConnectPrivate::new(4096, 4096, false).encode()).await
    }

    /// Asks for shutdown and waits (bounded) for `run` to return without error.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(STEP, &mut self.task)
            .await
            .expect("server stops in time")
            .expect("server task ran to its end")
            .expect("server ran without error");
    }
}

/// A requester speaking RPC-over-RDMA by hand.
pub struct Requester {
    pub qp: Box<dyn QueuePair>,
    /// Failed work requests seen by [`Requester::broken`], as text.
    pub errors: Vec<String>,
    ready: VecDeque<Completion>,
    next_wr: u64,
}

/// Receives the requester posts: more than any server here grants.
pub const REQUESTER_RECVS: u32 = 256;

impl Requester {
    pub async fn connect(provider: &dyn Provider, addr: SocketAddr, private_data: &[u8]) -> Requester {
        Self::connect_offering(provider, addr, private_data, 16).await
    }

    /// Connects offering the server `responder_resources` RDMA Reads in flight.
    pub async fn connect_offering(
        provider: &dyn Provider,
        addr: SocketAddr,
        private_data: &[u8],
        responder_resources: u8,
    ) -> Requester {
        // Like the Linux client: no RDMA Read or Write of our own (initiator depth 0).
        let config = Self::config(responder_resources);
        let qp = tokio::time::timeout(STEP, provider.connect(addr, config, private_data))
            .await
            .expect("connect in time")
            .expect("connect");
        Self::new(qp)
    }

    /// A requester on a queue pair connected by other means.
    pub fn new(qp: Box<dyn QueuePair>) -> Requester {
        qp.post_recvs(REQUESTER_RECVS).expect("post receives");
        Requester { qp, ready: VecDeque::new(), next_wr: 1, errors: Vec::new() }
    }

    /// The queue configuration every requester here connects with, offering `responder_resources`.
    pub fn config(responder_resources: u8) -> QpConfig {
        QpConfig {
            recv_size: 4096,
            max_recv: REQUESTER_RECVS,
            max_send: 1024,
            initiator_depth: 0,
            responder_resources,
            ..QpConfig::default()
        }
    }

    /// The server's RFC 8797 private data.
    pub fn server_private(&self) -> Option<ConnectPrivate> {
        ConnectPrivate::decode(&self.qp.info().peer_private_data)
    }

    pub fn register(&self, buf: RegBuf, access: Access) -> MemoryRegion {
        self.qp.register(buf, access).expect("register")
    }

    /// Posts one Send of raw bytes.
    pub fn send_raw(&mut self, message: &[u8]) -> Result<(), RdmaError> {
        self.next_wr += 1;
        self.qp.post_send(self.next_wr, &[message])
    }

    /// Posts `header` followed by `rpc`.
    pub fn send(&mut self, header: &RdmaHeader, rpc: &[u8]) {
        let mut message = header.to_xdr_bytes();
        message.extend_from_slice(rpc);
        self.send_raw(&message).expect("post send");
    }

    async fn next_completion(&mut self) -> Result<Completion, RdmaError> {
        loop {
            if let Some(c) = self.ready.pop_front() {
                return Ok(c);
            }
            let mut out = Vec::new();
            tokio::time::timeout(STEP, next_completions(&*self.qp, &mut out)).await.expect("a completion in time")?;
            self.ready.extend(out);
        }
    }

    /// The next message received (its receive reposted), or why the connection failed.
    pub async fn recv(&mut self) -> Result<Bytes, RecvError> {
        loop {
            let completion = self.next_completion().await?;
            match completion.result {
                Ok(CompletionKind::Recv(bytes)) => {
                    self.qp.post_recvs(1)?;
                    return Ok(bytes);
                }
                Ok(_) => continue,
                Err(err) => return Err(err.into()),
            }
        }
    }

    /// The next reply's header and the bytes after it.
    pub async fn reply(&mut self) -> (RdmaHeader, Vec<u8>) {
        let message = self.recv().await.expect("a reply");
        let (header, rest) = RdmaHeader::decode(&message, &DecodeLimits::default()).expect("reply header decodes");
        assert!((1..=64).contains(&header.credits), "credits granted: {}", header.credits);
        (header, rest.to_vec())
    }

    /// Sends a call and waits for its reply.
    pub async fn call(&mut self, header: &RdmaHeader, rpc: &[u8]) -> (RdmaHeader, Vec<u8>) {
        self.send(header, rpc);
        let (reply, rest) = self.reply().await;
        assert_eq!(reply.xid, header.xid, "the reply answers the call");
        (reply, rest)
    }

    /// True once the connection is reported down (within [`STEP`]); messages meanwhile are dropped,
    /// failed work requests are kept in [`Requester::errors`].
    pub async fn broken(&mut self) -> bool {
        let wait = async {
            loop {
                match self.next_completion().await {
                    Err(_) => return,
                    Ok(Completion { result: Err(err), .. }) => self.errors.push(err.to_string()),
                    Ok(_) => {}
                }
            }
        };
        tokio::time::timeout(STEP, wait).await.is_ok()
    }
}

/// `region`'s bytes `offset..offset + len` as one segment, for a chunk.
pub fn segment(region: &MemoryRegion, offset: usize, len: usize) -> Segment {
    let s = region.segment(offset, len as u32).expect("segment inside the region");
    Segment { handle: s.handle, length: s.length, offset: s.offset }
}

/// `region` cut into segments of at most `piece` bytes.
pub fn segments(region: &MemoryRegion, len: usize, piece: usize) -> rpcrdma_proto::SegmentList {
    (0..len).step_by(piece).map(|at| segment(region, at, piece.min(len - at))).collect()
}

/// Test data: a pattern that differs at every offset of a page.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed).wrapping_add((i >> 8) as u8)).collect()
}

/// The bytes of a writable region once nothing else holds it.
pub fn contents(region: MemoryRegion) -> Vec<u8> {
    region.into_buffer().expect("nothing else holds the region").into_bytes().to_vec()
}
