//! One RPC-over-RDMA connection: a single task owns the queue pair and reacts to its completions, to
//! calls finishing on other threads, and to shutdown.
//!
//! Receives are reposted as they are consumed, so `credits` stay posted and every reply can grant them
//! (RFC 8166 §3.3.1), and `backward_credits` more for the client's replies to our backward calls
//! (RFC 8167, [`crate::backward`]), which arrive among its calls and are told apart by `inbound`. A call runs through [`crate::calls`]: its Read chunks are pulled, the handler runs
//! (inline, on a task, or on the blocking pool), and the reply's Writes and Send are queued back to back.
//! Any failed work request, a peer past its credits, or a message without an xid breaks this connection
//! only: it is disconnected, its outstanding requests flush, and the task ends when the provider reports
//! the connection down. Registrations are released when their requests complete or the task ends.
//!
//! Memory: calls' Read chunks land in targets registered once and kept ([`crate::targets`]) and replies
//! are RDMA-Written from their own memory, so once a connection has the targets its concurrency needs
//! the data path registers nothing. The queue pair's registrations are added to the server's counters
//! as they happen.
//!
//! A connection whose calls keep being refused (refusals of the RPC layer or of the service, RDMA_ERROR
//! answers, messages dropped, replies to no backward call) waits before its next turn, as over TCP
//! ([`RefusalThrottle`]): its completions stay unpolled meanwhile, so the replies that would grant it
//! more credits wait too and its sends stall in credit flow control.

use std::future::poll_fn;

use foldhash::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use nfs_server::{ConnectionInfo, Reply};
use rdma::{Completion, CompletionKind, MemoryRegion, QueuePair, RdmaError, WcError};
use rpcrdma_proto::{ChunkPolicy, DecodeLimits, GrantPolicy, WriteChunk, WriteChunkList};
use server_core::{CallMode, RecordHandler, RefusalThrottle};
use tokio::sync::watch;
use tokio::task::{JoinError, JoinSet};
use tokio::time::{sleep_until, Instant};

use crate::backward::Backward;
use crate::buffers::BufferPool;
use crate::config::RdmaServerConfig;
use crate::stats::RdmaTransportStats;
use crate::targets::{KeptBudget, ReadTargets};
use crate::work_queue::{WorkQueue, WrTag};

/// How long a disconnected queue pair may take to flush before the task ends regardless.
const FLUSH_TIMEOUT: Duration = Duration::from_secs(10);

/// A call between its receive and its reply.
#[derive(Debug)]
pub(crate) struct Call {
    pub xid: u32,
    /// Credits the call asked for (RFC 8166 §3.3.1).
    pub requested: u32,
    pub writes: WriteChunkList,
    pub reply_chunk: Option<WriteChunk>,
    /// While its Read chunks are being pulled.
    pub reading: Option<Reading>,
}

/// A call whose Read chunks are being pulled.
#[derive(Debug)]
pub(crate) struct Reading {
    /// Where the call is laid out and its Reads land ([`crate::targets`]).
    pub target: MemoryRegion,
    /// Bytes of the call.
    pub len: usize,
    /// RDMA Reads still outstanding.
    pub left: usize,
}

/// A call record as the handler gets it.
#[derive(Debug)]
pub(crate) enum Record {
    /// The message that arrived (a call without Read chunks).
    Message(Bytes),
    /// The first bytes of a kept target, its Reads complete.
    Target(MemoryRegion, usize),
}

impl Record {
    /// The call's bytes; `None` for a target something else still holds (never once its Reads have
    /// completed: each posted operation holds the region only until it completes).
    pub(crate) fn bytes(&mut self) -> Option<&[u8]> {
        match self {
            Record::Message(message) => Some(message),
            Record::Target(target, len) => target.local_bytes_mut().and_then(|bytes| bytes.get(..*len)),
        }
    }
}

/// A call that finished off the connection's task: its id, its reply, and its record (a target to
/// keep for the next calls).
pub(crate) type Executed = (u64, Option<Reply>, Record);

/// Per-connection settings fixed at accept time.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub info: ConnectionInfo,
    pub mode: CallMode,
    pub config: RdmaServerConfig,
    /// The client's inline receive size: the largest Send we may post.
    pub send_limit: usize,
    /// RDMA Reads we may have in flight (negotiated initiator depth).
    pub read_depth: u32,
    /// The runtime whose blocking pool runs calls that may block (not the connection's network thread).
    pub blocking: tokio::runtime::Handle,
}

pub(crate) struct Connection<H: RecordHandler> {
    pub(crate) qp: Box<dyn QueuePair>,
    pub(crate) setup: Setup,
    pub(crate) handler: Arc<H>,
    pub(crate) stats: Arc<RdmaTransportStats>,
    pub(crate) pool: Arc<BufferPool>,
    /// Free targets for calls' RDMA Reads, registered once each.
    pub(crate) targets: ReadTargets,
    /// The queue pair's registrations already added to the server's counters.
    registrations_seen: u64,
    pub(crate) limits: DecodeLimits,
    pub(crate) policy: ChunkPolicy,
    pub(crate) grant: GrantPolicy,
    /// Receives posted and not yet consumed.
    pub(crate) posted: u32,
    /// Calls under way by their sequence number (ours, not the peer's: a fast hash is safe).
    pub(crate) calls: HashMap<u64, Call>,
    pub(crate) next_call: u64,
    pub(crate) queue: WorkQueue,
    pub(crate) pending: JoinSet<Executed>,
    /// Calls to the client (RFC 8167): the ones handed over, the client's grant, the replies owed.
    pub(crate) backward: Backward,
    /// Set once the connection is being torn down (why, for the log), with the time to give up.
    pub(crate) ending: Option<(String, Instant)>,
    /// Refused calls, and the pause they earn.
    pub(crate) refusals: RefusalThrottle,
    /// An error broke the connection (logged and counted once).
    broken: bool,
    closing: bool,
}

enum Event {
    Completions(Result<Vec<Completion>, RdmaError>),
    Executed(Result<Executed, JoinError>),
    /// The service handed over a backward call, and the client's grant has room for it.
    Backward(Vec<u8>),
    Shutdown,
    GraceOver,
    GiveUp,
}

impl<H: RecordHandler> Connection<H> {
    /// A connection whose queue pair was accepted with `posted` receives, carrying backward calls as
    /// `backward` says.
    pub(crate) fn new(
        qp: Box<dyn QueuePair>,
        setup: Setup,
        posted: u32,
        backward: Backward,
        (handler, stats, pool, kept): (Arc<H>, Arc<RdmaTransportStats>, Arc<BufferPool>, Arc<KeptBudget>),
    ) -> Self {
        let config = setup.config;
        let max_send = config.qp_config(0).max_send;
        Connection {
            targets: ReadTargets::new(config.read_target_bytes(), kept),
            registrations_seen: 0,
            qp,
            queue: WorkQueue::new(max_send, setup.read_depth),
            setup,
            handler,
            stats,
            pool,
            limits: DecodeLimits::default(),
            policy: config.chunk_policy(),
            grant: GrantPolicy::Fixed(config.credits),
            posted,
            calls: HashMap::default(),
            next_call: 1,
            pending: JoinSet::new(),
            backward,
            ending: None,
            refusals: RefusalThrottle::new(std::time::Instant::now()),
            broken: false,
            closing: false,
        }
    }

    /// Serves until the peer leaves, an error, or shutdown; then releases everything.
    pub(crate) async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let peer = self.setup.info.peer;
        let end = self.serve(&mut shutdown).await;
        self.count_registrations();
        let calls = self.calls.len() + self.pending.len();
        match (end, &self.ending) {
            (Ok(()), Some((why, _))) => tracing::info!(%peer, why = %why, calls, "RDMA connection closed"),
            (Ok(()), None) => tracing::debug!(%peer, "RDMA connection closed by the peer"),
            (Err(err), _) => {
                if !self.broken {
                    self.stats.broken.fetch_add(1, Relaxed);
                }
                tracing::warn!(%peer, error = %err, calls, "RDMA connection failed");
            }
        }
    }

    async fn serve(&mut self, shutdown: &mut watch::Receiver<bool>) -> Result<(), RdmaError> {
        self.closing = *shutdown.borrow();
        let mut grace_over = Instant::now() + self.setup.config.shutdown_grace;
        // One wait for shutdown across iterations: a turn often handles a single call, and registering
        // a waiter anew each turn would cost more than the call.
        let shutdown = shutdown.changed();
        tokio::pin!(shutdown);
        loop {
            // As the TCP front end: completions that are always ready must not keep the other
            // connections and the listener of a one-thread runtime from their turn.
            tokio::task::coop::consume_budget().await;
            self.throttle_refusals().await;
            if self.closing && self.ending.is_none() && self.drained() {
                self.end_orderly("shutdown");
            }
            let give_up = self.ending.as_ref().map(|(_, at)| *at);
            let takes_backward = self.accepting() && self.backward.can_send();
            let event = {
                let qp = &*self.qp;
                let waiting = !self.pending.is_empty();
                let pending = &mut self.pending;
                let backward = &mut self.backward;
                tokio::select! {
                    polled = poll_fn(|cx| {
                        let mut out = Vec::new();
                        qp.poll_completions(cx, &mut out).map(|r| r.map(|()| out))
                    }) => Event::Completions(polled),
                    Some(done) = pending.join_next(), if waiting => Event::Executed(done),
                    record = backward.next(), if takes_backward => Event::Backward(record),
                    _ = &mut shutdown, if !self.closing => Event::Shutdown,
                    () = sleep_until(grace_over), if self.closing && self.ending.is_none() => Event::GraceOver,
                    () = sleep_until(give_up.unwrap_or(grace_over)), if give_up.is_some() => Event::GiveUp,
                }
            };
            match event {
                Event::Completions(Ok(batch)) => self.on_completions(batch),
                // The connection is down and every outstanding request has completed.
                Event::Completions(Err(RdmaError::Disconnected)) => return Ok(()),
                Event::Completions(Err(err)) => return Err(err),
                Event::Executed(Ok((id, reply, record))) => {
                    self.recycle(record);
                    self.finish(id, reply);
                }
                Event::Executed(Err(err)) => {
                    tracing::error!(peer = %self.setup.info.peer, error = %err, "RPC call task lost");
                }
                Event::Backward(record) => self.send_backward(record),
                Event::Shutdown => {
                    self.closing = true;
                    grace_over = Instant::now() + self.setup.config.shutdown_grace;
                }
                Event::GraceOver => self.end_orderly("shutdown grace period over"),
                Event::GiveUp => return Ok(()),
            }
            self.pump();
        }
    }

    /// A peer whose calls keep being refused waits before its next turn ([`RefusalThrottle`]: past
    /// 1,000 in a second, one turn per 50 ms).
    async fn throttle_refusals(&mut self) {
        let Some(pause) = self.refusals.pause(std::time::Instant::now) else { return };
        self.stats.refusal_throttles.fetch_add(1, Relaxed);
        tracing::info!(peer = %self.setup.info.peer, "throttling an RDMA connection whose calls are refused");
        tokio::time::sleep(pause).await;
    }

    /// No call in progress and nothing posted or queued but receives.
    fn drained(&self) -> bool {
        self.calls.is_empty() && self.pending.is_empty() && self.queue.is_idle()
    }

    /// True while calls are taken: not shutting down, not torn down.
    pub(crate) fn accepting(&self) -> bool {
        !self.closing && self.ending.is_none()
    }

    fn on_completions(&mut self, batch: Vec<Completion>) {
        // RFC 8166 §3.3.1: a credit is a posted receive; repost the consumed ones before any reply of
        // this batch grants credits.
        let consumed = batch.iter().filter(|c| matches!(c.result, Ok(CompletionKind::Recv(_)))).count() as u32;
        self.posted = self.posted.saturating_sub(consumed);
        if consumed > 0 && self.ending.is_none() {
            match self.qp.post_recvs(consumed) {
                Ok(()) => self.posted += consumed,
                Err(err) => self.failed("reposting receives", err),
            }
        }
        for completion in batch {
            let Some(tag) = WrTag::decode(completion.wr_id) else {
                self.fail(format!("completion for unknown work request {:#x}", completion.wr_id));
                continue;
            };
            self.queue.completed(tag.kind);
            match completion.result {
                Ok(CompletionKind::Recv(message)) => self.on_receive(message),
                Ok(CompletionKind::Read) => self.on_read(tag.call),
                Ok(CompletionKind::Send | CompletionKind::Write) => {}
                // The connection is already down; Disconnected follows once everything has flushed.
                Err(WcError::Flushed) => {}
                Err(err) => self.fail(format!("{:?} of call {} failed: {err}", tag.kind, tag.call)),
            }
        }
    }

    fn on_receive(&mut self, message: Bytes) {
        if !self.accepting() {
            tracing::debug!(peer = %self.setup.info.peer, len = message.len(), "message ignored: connection closing");
            return;
        }
        self.on_message(message);
    }

    /// Adds the queue pair's registrations since the last look to the server's counters.
    fn count_registrations(&mut self) {
        let now = self.qp.registrations();
        let new = now.saturating_sub(self.registrations_seen);
        if new > 0 {
            self.stats.registrations.fetch_add(new, Relaxed);
            self.registrations_seen = now;
        }
    }

    /// Posts queued work the queue pair has room for.
    pub(crate) fn pump(&mut self) {
        self.count_registrations();
        if self.ending.is_some() {
            return;
        }
        // Counted as each request is posted: a client may see the reply that follows a Write before
        // the whole batch is posted.
        let stats = &self.stats;
        let pumped = self.queue.pump(&*self.qp, |posted| {
            stats.bytes_rdma_read.fetch_add(posted.read_bytes, Relaxed);
            stats.bytes_rdma_written.fetch_add(posted.written_bytes, Relaxed);
        });
        if let Err(err) = pumped {
            self.failed("posting a work request", err);
        }
    }

    /// Breaks the connection for `why`: disconnects; outstanding requests then flush. The first error
    /// is logged and counted even when the connection was already going down (a provider may refuse
    /// posts as disconnected before the failed request's completion arrives).
    pub(crate) fn fail(&mut self, why: String) {
        if self.broken {
            return;
        }
        tracing::warn!(peer = %self.setup.info.peer, why = %why, "breaking RDMA connection");
        self.stats.broken.fetch_add(1, Relaxed);
        self.broken = true;
        let give_up = self.ending.as_ref().map_or_else(|| Instant::now() + FLUSH_TIMEOUT, |(_, at)| *at);
        if self.ending.is_none() {
            self.qp.disconnect();
        }
        self.ending = Some((why, give_up));
    }

    /// A provider call failed: the peer is gone (a normal end), or the connection breaks.
    pub(crate) fn failed(&mut self, op: &str, err: RdmaError) {
        match err {
            RdmaError::Disconnected => self.end_orderly(&format!("{op}: the connection is down")),
            err => self.fail(format!("{op} failed: {err}")),
        }
    }

    fn end_orderly(&mut self, why: &str) {
        if self.ending.is_some() {
            return;
        }
        tracing::debug!(peer = %self.setup.info.peer, why, "disconnecting");
        self.ending = Some((why.to_string(), Instant::now() + FLUSH_TIMEOUT));
        self.qp.disconnect();
    }
}
