//! One connection slot of an RPC-over-RDMA mount: the calls outstanding on it, the FIFO of calls
//! waiting for a credit, the credit state, and its counters. It outlives queue pairs: when one is lost,
//! every outstanding call waits again, keeps its xid, and is sent with fresh registrations on the next.
//!
//! Calls are posted from whichever task frees a credit (the submitter, or the driver on a reply), under
//! the state lock, so a Send never overtakes the credit rules. Replies are handled in `receive.rs`.

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rdma::{Provider, QueuePair};
use rpcrdma_proto::{CreditState, InlineThresholds};
use tokio::sync::Notify;

use super::pool::ChunkPool;
use super::transmit::{transmit, Regions, TransmitError};
use crate::calls::{CallTable, Outstanding, Recovery};
use crate::error::ClientError;
use crate::lanes::Counters;
use crate::responsiveness::Responsiveness;
use crate::retransmit::RetransmitPolicy;
use crate::transport::{Callbacks, ReplySender, RpcCall};
use crate::types::ConnectionInfo;

/// A call of this transport: what it registered for its current transmission is kept with it.
pub(crate) type Call = Outstanding<Regions>;

/// An established queue pair as the slot uses it.
#[derive(Debug)]
pub(crate) struct Link {
    pub(crate) qp: Arc<dyn QueuePair>,
    /// RFC 8797: our inline thresholds clamped to the peer's.
    pub(crate) limits: InlineThresholds,
    pub(crate) local: Option<SocketAddr>,
    /// The provider and device, as the queue pair names them.
    pub(crate) provider: String,
    /// The queue pair's pool cut into chunk pieces, when it has one.
    pub(crate) pool: Option<Arc<ChunkPool>>,
    /// The queue pair's registrations already added to the connection's counters.
    registrations_counted: u64,
    generation: u64,
}

impl Link {
    /// A link over `qp`, lending chunks of up to `piece_len` bytes from its pool.
    pub(crate) fn new(qp: Arc<dyn QueuePair>, limits: InlineThresholds, piece_len: usize) -> Link {
        let info = qp.info();
        let pool = qp.pool().map(|region| ChunkPool::new(region, piece_len));
        Link { qp, limits, local: info.local, provider: info.provider, pool, registrations_counted: 0, generation: 0 }
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation
    }
}

#[derive(Debug)]
pub(crate) struct State {
    /// Calls outstanding; those waiting are sent oldest first (RFC 8166 §3.3.1: a call waits while no
    /// credit is free).
    pub(crate) calls: CallTable<Regions>,
    pub(super) credits: CreditState,
    pub(crate) link: Option<Link>,
    /// Sends posted whose completion has not been seen: bounded by the send queue's depth.
    pub(super) sends: u32,
    /// Sends of replies to the server's calls likewise, at most [`super::BACKWARD_CREDITS`].
    pub(super) backward_sends: u32,
    generation: u64,
    /// The queue pair of this generation is to be dropped (a call timed out on it).
    pub(crate) drop_requested: Option<u64>,
    pub(super) replies_here: u64,
    provider: String,
}

/// Settings shared by the slots of one mount.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) policy: RetransmitPolicy,
    pub(crate) provider: Arc<dyn Provider>,
    /// Credits requested, receives posted per queue pair, and the send queue's depth.
    pub(crate) credits: u32,
    /// Our inline send and receive threshold.
    pub(crate) inline_size: u32,
    /// The largest chunk lent from a queue pair's pool.
    pub(crate) chunk_size: u32,
    pub(crate) responsiveness: Responsiveness,
    /// The transport's callback service (the server's calls on our queue pairs).
    pub(crate) callbacks: Arc<Callbacks>,
}

#[derive(Debug)]
pub(crate) struct Connection {
    pub(crate) index: usize,
    pub(crate) remote: SocketAddr,
    pub(crate) shared: Arc<Shared>,
    state: Mutex<State>,
    /// Calls arrived while no queue pair is up (wakes a lazy reconnection).
    pub(crate) wake: Notify,
    /// A queue pair is to be dropped (see [`State::drop_requested`]).
    pub(crate) kick: Notify,
    pub(crate) counters: Counters,
}

/// Calls to fail once the lock is released.
pub(super) type Failed = Vec<(Call, ClientError)>;

impl Connection {
    pub(crate) fn new(index: usize, remote: SocketAddr, shared: Arc<Shared>) -> Self {
        // A timed-out call replaces the queue pair: nothing is sent twice on one (see `Recovery`).
        let state = State {
            calls: CallTable::new(shared.policy, Recovery::Reconnect),
            credits: CreditState::new(shared.credits),
            link: None,
            sends: 0,
            backward_sends: 0,
            generation: 0,
            drop_requested: None,
            replies_here: 0,
            provider: shared.provider.name(),
        };
        Connection {
            index,
            remote,
            shared,
            state: Mutex::new(state),
            wake: Notify::new(),
            kick: Notify::new(),
            counters: Counters::default(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a call and sends it if a credit is free.
    pub(crate) fn submit(&self, call: RpcCall, reply: ReplySender) {
        let now = Instant::now();
        let mut failed = Vec::new();
        let mut st = self.lock();
        if let Err(refused) = st.calls.insert(call, reply, Regions::default(), now) {
            drop(st);
            return refused.reply.send(Err(refused.error));
        }
        let disconnected = st.link.is_none();
        self.pump(&mut st, &mut failed);
        drop(st);
        self.counters.calls.fetch_add(1, Relaxed);
        if disconnected {
            self.wake.notify_one();
        }
        finish(failed);
    }

    /// Sends waiting calls, oldest first, while credits and send queue entries are free; then counts
    /// the registrations the queue pair made meanwhile.
    pub(super) fn pump(&self, st: &mut State, failed: &mut Failed) {
        self.send_waiting(st, failed);
        if let Some(link) = st.link.as_mut() {
            let total = link.qp.registrations();
            self.counters.registrations.fetch_add(total.saturating_sub(link.registrations_counted), Relaxed);
            link.registrations_counted = total;
        }
    }

    fn send_waiting(&self, st: &mut State, failed: &mut Failed) {
        let Some(link) = &st.link else { return };
        let (qp, limits, generation) = (Arc::clone(&link.qp), link.limits, link.generation);
        let pool = link.pool.clone();
        while st.calls.has_waiting() {
            // RFC 8166 §3.3.1: never more calls outstanding than the responder granted.
            if st.sends >= self.shared.credits || !st.credits.try_acquire() {
                break;
            }
            let Some(c) = st.calls.pop_waiting() else {
                st.credits.release_unsent();
                break;
            };
            let xid = c.call.xid;
            match transmit(&*qp, pool.as_ref(), self.remote, &c.call, st.credits.request(), limits) {
                Ok(regions) => {
                    self.counters.bytes_copied.fetch_add(regions.copied_in, Relaxed);
                    c.extra = regions;
                    if c.mark_sent() {
                        self.counters.retransmissions.fetch_add(1, Relaxed);
                    }
                    st.sends += 1;
                }
                Err(TransmitError::Connection(e)) => {
                    st.credits.release_unsent();
                    st.calls.wait_first(xid);
                    tracing::warn!(server = %self.remote, connection = self.index, "RDMA send failed: {e}; reconnecting");
                    st.drop_requested = Some(generation);
                    self.kick.notify_one();
                    break;
                }
                Err(TransmitError::Call(err)) => {
                    st.credits.release_unsent();
                    if let Some(c) = st.calls.remove(xid) {
                        failed.push((c, err));
                    }
                }
            }
        }
    }

    /// A queue pair with `credits` receives posted is up: waiting calls go out on it. Returns its
    /// generation, for [`take_drop`](Self::take_drop).
    pub(crate) fn attach(&self, mut link: Link) -> u64 {
        let mut failed = Vec::new();
        let generation = {
            let mut st = self.lock();
            st.generation += 1;
            link.generation = st.generation;
            // RFC 8166 §3.3.3: a new connection starts with one credit.
            st.credits.reset();
            st.sends = 0;
            st.backward_sends = 0;
            st.replies_here = 0;
            st.drop_requested = None;
            st.provider.clone_from(&link.provider);
            st.link = Some(link);
            self.pump(&mut st, &mut failed);
            st.generation
        };
        finish(failed);
        generation
    }

    /// True when the queue pair of `generation` is to be dropped.
    pub(crate) fn take_drop(&self, generation: u64) -> bool {
        let mut st = self.lock();
        let drop = st.drop_requested == Some(generation);
        if drop {
            st.drop_requested = None;
        }
        drop
    }

    /// The queue pair is gone: every outstanding call waits again, in submission order, and its
    /// memory is invalidated. Returns whether the queue pair had answered anything.
    pub(crate) fn detach(&self) -> bool {
        let mut stale = Vec::new();
        let answered = {
            let mut st = self.lock();
            st.link = None;
            st.sends = 0;
            st.backward_sends = 0;
            st.credits.reset();
            st.calls.requeue_all(|c| stale.push(std::mem::take(&mut c.extra)));
            st.replies_here > 0
        };
        for regions in stale {
            regions.invalidate();
        }
        answered
    }

    /// Calls are waiting for a queue pair.
    pub(crate) fn has_waiting(&self) -> bool {
        !self.lock().calls.is_empty()
    }

    /// Counts timeouts, fails soft calls past `retrans`, and asks for a new queue pair when a sent call
    /// timed out (`Recovery::Reconnect`). Calls still waiting for a credit (or a connection) time out
    /// the same way, which is what frees a caller stuck behind a server that never grants one.
    pub(crate) fn check_timeouts(&self, now: Instant) {
        let (expired, drop_link) = {
            let mut st = self.lock();
            let expired = st.calls.expire(now);
            let drop_link = expired.reconnect && st.link.is_some();
            if drop_link {
                st.drop_requested = st.link.as_ref().map(|l| l.generation());
            }
            (expired, drop_link)
        };
        if drop_link {
            self.kick.notify_one();
        }
        self.counters.major_timeouts(expired.major, &self.shared.responsiveness, self.shared.policy.hard, self.remote);
        if !expired.failed.is_empty() {
            self.counters.soft_timeouts.fetch_add(expired.failed.len() as u64, Relaxed);
            let failed = expired.failed.into_iter().map(|c| {
                let err = c.timed_out(now);
                (c, err)
            });
            finish(failed.collect());
        }
    }

    /// Refuses new calls and fails the outstanding ones with [`ClientError::Closed`].
    pub(crate) fn close(&self) {
        let failed: Failed = {
            let mut st = self.lock();
            st.link = None;
            st.calls
                .close()
                .into_iter()
                .map(|c| {
                    let err = ClientError::Closed { proc: c.call.proc };
                    (c, err)
                })
                .collect()
        };
        finish(failed);
    }

    pub(crate) fn info(&self) -> ConnectionInfo {
        let st = self.lock();
        ConnectionInfo {
            index: self.index,
            transport: format!("rdma ({})", st.provider),
            local: st.link.as_ref().and_then(|l| l.local),
            remote: self.remote,
            connected: st.link.is_some(),
            calls_sent: self.counters.calls.load(Relaxed),
            retransmissions: self.counters.retransmissions.load(Relaxed),
            reconnects: self.counters.reconnects.load(Relaxed),
            unknown_replies: self.counters.unknown_replies.load(Relaxed),
            in_flight: st.calls.len(),
        }
    }
}

/// Fails calls: memory invalidated first.
pub(crate) fn finish(failed: Failed) {
    for (c, err) in failed {
        c.extra.invalidate();
        c.reply.send(Err(err));
    }
}
