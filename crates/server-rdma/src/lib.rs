//! The RPC-over-RDMA version 1 front end of nfsbench's embedded NFSv3 server (RFC 8166, RFC 8267,
//! RFC 8797), a sibling of `server-tcp` over the contract of `server-core`: any [`RecordHandler`]
//! (normally [`nfs_server::Server`]) served over any [`rdma`] provider — `rdma-verbs` for the Linux
//! kernel client (`mount -o vers=3,proto=rdma,port=20049`), `rdma-soft` for nfsbench's own client
//! without an RDMA device.
//!
//! - [`RdmaServer::new`] takes a listener made by a provider, [`RdmaServer::run`] serves until a shutdown
//!   future completes and returns once every connection has ended.
//! - Set-up (`accept`): RFC 8797 private data both ways (1024 bytes each way when the peer sends
//!   none), `credits` receives posted before the peer can send, RDMA Read depth within the peer's
//!   responder resources (the server issues every RDMA Read and Write; the Linux client issues none).
//! - Connections are spread over [`RdmaServerConfig::threads`] network threads (`threads`), one event
//!   loop each, a connection on one of them for its whole life, so each queue pair's completions are
//!   reaped by one thread; their completion queues are spread over the device's completion vectors
//!   likewise ([`RdmaServerConfig::comp_vectors`]).
//! - Per connection one task (`connection`): headers are classified sans I/O (`inbound`: ERR_VERS,
//!   ERR_CHUNK, or close when not even an xid arrived), the call is laid out by `assemble` in a target
//!   registered once and kept for the next calls (`targets`: no remote access, used in place, up to
//!   [`RdmaServerConfig::read_target_bytes`] per connection; a call no free target fits gets a new one,
//!   counted as a pool miss), its Read chunks RDMA-Read straight into it, the handler runs inline
//!   or on the blocking pool (several calls in flight, replies out of order), and replies leave inline,
//!   through the Write chunks, or through the Reply chunk as `outbound` decides (the reply's payloads
//!   consume the call's Write chunks in order, RFC 8267 §4.3: several for an NFSv4 COMPOUND with
//!   several READs); RDMA Writes and the Send are posted back to back (`work_queue`). A Write gathers
//!   straight from the reply's memory — the RAM backend's pages — with
//!   [`rdma::QueuePair::post_write_gather`]: no reply buffer, no registration. What the front end still
//!   copies of a READ payload (a reply sent inline or through the Reply chunk) is reported to the
//!   handler ([`server_core::RecordHandler::payload_copied`]) for "bytes copied per byte served".
//! - Every reply grants credits from [`rpcrdma_proto::GrantPolicy`] (never 0). A peer that breaks the
//!   rules RDMA enforces (a bad handle, a Send past its credits) loses its connection only; one whose
//!   calls keep being refused is slowed down as over TCP ([`server_core::RefusalThrottle`]).
//! - The backward direction (RFC 8167, `backward`): with [`RdmaServer::with_back_channel`] every
//!   connection registers in the server's [`BackChannel`] under its [`nfs_server::ConnectionId`]; a
//!   backward call is sent as RDMA_MSG, inline, without chunks, within the client's inline size and the
//!   backward credits the client grants (from one, up to `backward_credits`; the rest wait, bounded).
//!   `backward_credits` receives are posted beyond the forward credits for the client's replies, which
//!   arrive as RDMA_MSG carrying an RPC REPLY: handed to [`RecordHandler::handle_reply`], never run as
//!   a call, never counted against the forward credits.
//! - [`RdmaTransportStats`] counts connections, calls, replies by kind, bytes moved by RDMA Read and
//!   Write, RDMA_ERROR replies by kind, and the queue pairs' memory registrations (registrations per
//!   I/O: 0 after each connection's first).

mod accept;
mod assemble;
mod backward;
mod buffers;
mod calls;
mod config;
mod connection;
mod inbound;
mod outbound;
mod stats;
mod targets;
mod threads;
mod work_queue;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use nfs_server::Server;
use rdma::{Listener, RdmaError};
use server_core::{BackChannel, CallMode, RecordHandler};

pub use config::{
    RdmaServerConfig, DEFAULT_BACKWARD_CREDITS, DEFAULT_MAX_READ_TARGET_BYTES, MAX_BACKWARD_CREDITS, MAX_CREDITS,
    MAX_INITIATOR_DEPTH, MAX_INLINE_SIZE, MAX_THREADS, MIN_INLINE_SIZE,
};
pub use stats::{RdmaTransportSnapshot, RdmaTransportStats, ReplyKind};

/// An RPC-over-RDMA front end for a [`RecordHandler`] (normally the NFS [`Server`]).
#[derive(Debug)]
pub struct RdmaServer<H: RecordHandler = Server> {
    listener: Box<dyn Listener>,
    handler: Arc<H>,
    config: RdmaServerConfig,
    stats: Arc<RdmaTransportStats>,
    back_channel: Option<Arc<BackChannel>>,
}

impl<H: RecordHandler> RdmaServer<H> {
    /// Serves `handler` on `listener` (from [`rdma::Provider::listen`]); `config` is brought into its
    /// valid ranges ([`RdmaServerConfig::sanitized`]).
    pub fn new(listener: Box<dyn Listener>, handler: Arc<H>, config: RdmaServerConfig) -> Self {
        RdmaServer { listener, handler, config: config.sanitized(), stats: Arc::default(), back_channel: None }
    }

    /// Registers every connection in `channel` while it is open, so that the service can send calls to
    /// the client on it (RFC 8167); without one, connections carry no backward calls (replies that
    /// arrive are still handed to [`RecordHandler::handle_reply`]).
    pub fn with_back_channel(mut self, channel: Arc<BackChannel>) -> Self {
        self.back_channel = Some(channel);
        self
    }

    /// The address the listener is bound to (port resolved).
    pub fn local_addr(&self) -> SocketAddr {
        self.listener.local_addr()
    }

    /// The configuration in force.
    pub fn config(&self) -> &RdmaServerConfig {
        &self.config
    }

    /// The transport counters, live while the server runs.
    pub fn stats(&self) -> Arc<RdmaTransportStats> {
        Arc::clone(&self.stats)
    }

    /// Accepts and serves connections until `shutdown` completes; then stops accepting, lets each
    /// connection finish its calls (within `shutdown_grace`), disconnects them, and returns once every
    /// connection has ended. An error is the listener's own failure (connections were drained first).
    /// Must run inside a Tokio runtime with time enabled.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> Result<(), RdmaError> {
        let mode = CallMode::resolve(self.config.execution, self.handler.may_block());
        let local = self.listener.local_addr();
        let (credits, inline) = (self.config.credits, self.config.inline_size);
        let threads = threads::NetworkThreads::start(self.config.threads, self.config.comp_vectors())
            .map_err(|e| RdmaError::io("starting the RDMA network threads", e))?;
        tracing::debug!(?mode, %local, credits, inline, threads = threads.count(), "serving RPC-over-RDMA");
        // Large call buffers are reused: up to one per credit, at most 32 (32 MiB with 1 MiB WRITEs).
        let pool = buffers::BufferPool::new(self.config.credits.min(32) as usize, self.config.max_call_bytes());
        let shared = Arc::new(accept::Shared {
            handler: self.handler,
            mode,
            config: self.config,
            stats: self.stats,
            local,
            pool: Arc::new(pool),
            // Kept RDMA Read targets of all connections together: four connections' worth.
            kept: Arc::new(targets::KeptBudget::new(self.config.max_read_target_bytes.saturating_mul(4))),
            back_channel: self.back_channel,
            threads,
        });
        accept::accept_loop(self.listener, shared, shutdown).await
    }
}

/// For the fuzzer: what the server makes of one received message with the default configuration —
/// classification (RDMA_ERROR to answer, drop, close, or a call) and, for a call, the layout of its Read
/// chunks and the assembly of a buffer of that size (bounded by the chunk policy), as a one-line summary.
/// Must never panic.
#[doc(hidden)]
pub fn receive_for_fuzzing(message: &[u8]) -> String {
    let config = RdmaServerConfig::default();
    let limits = rpcrdma_proto::DecodeLimits::default();
    match inbound::classify(message, &limits, &config.chunk_policy()) {
        inbound::Inbound::Call { header, inline } => {
            let Some(chunks) = header.chunks() else { return "call without chunk lists".into() };
            match assemble::plan(&chunks.reads, inline.len()) {
                Ok(layout) => {
                    let mut buf = vec![0xa5; layout.len];
                    layout.fill(&mut buf, inline);
                    format!("call of {} bytes, {} RDMA Reads", layout.len, layout.reads.len())
                }
                Err(err) => format!("ERR_CHUNK: {}", err.0),
            }
        }
        inbound::Inbound::BackwardReply { reply, .. } => format!("backward reply of {} bytes", reply.len()),
        inbound::Inbound::Answer { why, .. } => format!("RDMA_ERROR: {why}"),
        inbound::Inbound::Ignore { why } => format!("dropped: {why}"),
        inbound::Inbound::Close { why } => format!("closed: {why}"),
    }
}
