//! One connection slot of a mount: the calls outstanding on it, the queue its writer drains, and its
//! counters. It outlives TCP connections: when one breaks, every outstanding call is queued again and
//! sent, same xid, on the next (RFC 5531 §9: a retransmission keeps its xid).
//!
//! Every operation takes the state lock once: a submission (insert + queue), a writer batch, a reader
//! batch of replies, a timer scan. A reader batch's calls from the server (callbacks) are answered
//! before it, outside the lock, and their replies queued for the writer.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use bytes::Bytes;
use tokio::sync::Notify;

use super::writer::Batch;
use crate::calls::{CallTable, Outstanding, Recovery};
use crate::error::ClientError;
use crate::lanes::Counters;
use crate::responsiveness::Responsiveness;
use crate::retransmit::RetransmitPolicy;
use crate::transport::{is_call, Callbacks, ReplySender, RpcCall, RpcReply};
use crate::types::ConnectionInfo;

#[derive(Debug)]
pub(crate) struct State {
    pub(crate) calls: CallTable<()>,
    local: Option<SocketAddr>,
    connected: bool,
    /// Replies received on the current TCP connection (a connection that dies without any counts as
    /// a failed attempt for the reconnection backoff).
    replies_here: u64,
    /// Replies to the server's calls, for the writer (at most [`super::MAX_CALLBACK_REPLIES`]).
    callback_replies: VecDeque<Vec<u8>>,
}

/// Settings and flags shared by the connections of one mount.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) policy: RetransmitPolicy,
    pub(crate) limits: onc_rpc::RecordLimits,
    pub(crate) responsiveness: Responsiveness,
    /// The emulated long-distance link the connections go through, if any.
    pub(crate) link: Option<Arc<wan::Link>>,
    /// The transport's callback service (the server's calls on our connections).
    pub(crate) callbacks: Arc<Callbacks>,
}

#[derive(Debug)]
pub(crate) struct Connection {
    pub(crate) index: usize,
    pub(crate) remote: SocketAddr,
    pub(crate) shared: Arc<Shared>,
    state: Mutex<State>,
    /// The queue went from empty to not empty (wakes the writer, or a lazy reconnection).
    pub(crate) wake: Notify,
    pub(crate) counters: Counters,
}

impl Connection {
    pub(crate) fn new(index: usize, remote: SocketAddr, shared: Arc<Shared>) -> Self {
        // A timed-out call is sent again on the same connection, as Linux does over TCP.
        let calls = CallTable::new(shared.policy, Recovery::Retransmit);
        Connection {
            index,
            remote,
            shared,
            state: Mutex::new(State {
                calls,
                local: None,
                connected: false,
                replies_here: 0,
                callback_replies: VecDeque::new(),
            }),
            wake: Notify::new(),
            counters: Counters::default(),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers and queues a call.
    pub(crate) fn submit(&self, call: RpcCall, reply: ReplySender) {
        let now = Instant::now();
        let mut st = self.lock();
        let was_empty = !st.calls.has_waiting();
        if let Err(refused) = st.calls.insert(call, reply, (), now) {
            drop(st);
            return refused.reply.send(Err(refused.error));
        }
        drop(st);
        self.counters.calls.fetch_add(1, Relaxed);
        if was_empty {
            self.wake.notify_one();
        }
    }

    /// Moves the queued calls, and the replies to the server's calls, into the writer's batch.
    pub(crate) fn take_queued(&self, batch: &mut Batch) {
        let mut retransmitted = 0;
        {
            let mut st = self.lock();
            while let Some(reply) = st.callback_replies.pop_front() {
                batch.push_record(&reply);
            }
            while let Some(c) = st.calls.pop_waiting() {
                retransmitted += u64::from(c.mark_sent());
                batch.push(&c.call);
            }
        }
        if retransmitted > 0 {
            self.counters.retransmissions.fetch_add(retransmitted, Relaxed);
        }
    }

    pub(crate) fn has_queued(&self) -> bool {
        self.lock().calls.has_waiting()
    }

    /// Answers the server's calls among `records` (RFC 5531 §9: their message type is CALL; they are
    /// never matched to a call of ours) and leaves the replies. A call that finds the writer's queue
    /// full is not served at all: its server calls faster than it reads.
    fn answer_callbacks(&self, records: &mut Vec<Bytes>) {
        if !records.iter().any(|r| is_call(r)) {
            return;
        }
        let callbacks = &self.shared.callbacks;
        let mut queued = false;
        records.retain(|record| {
            if !is_call(record) {
                return true;
            }
            if self.lock().callback_replies.len() >= super::MAX_CALLBACK_REPLIES {
                callbacks.not_served();
                return false;
            }
            // A reply larger than a record we accept is not one a server takes either.
            match callbacks.serve(record, self.index) {
                Some(reply) if reply.len() <= self.shared.limits.max_record => {
                    self.lock().callback_replies.push_back(reply);
                    queued = true;
                }
                Some(_) => callbacks.reply_dropped(),
                None => {}
            }
            false
        });
        if queued {
            self.wake.notify_one();
        }
    }

    /// Answers the server's calls among `records`, then completes the calls the others answer; `done`
    /// is scratch space. Returns the calls still outstanding.
    pub(crate) fn complete(&self, records: &mut Vec<Bytes>, done: &mut Vec<(ReplySender, Bytes)>) -> usize {
        self.answer_callbacks(records);
        let mut unknown = 0;
        let outstanding = {
            let mut st = self.lock();
            st.replies_here += records.len() as u64;
            for record in records.drain(..) {
                let call = onc_rpc::RpcMessage::peek_xid(&record).and_then(|xid| st.calls.take(xid, false));
                match call {
                    Some(c) => done.push((c.reply, record)),
                    None => unknown += 1,
                }
            }
            st.calls.len()
        };
        if unknown > 0 {
            self.counters.unknown_replies.fetch_add(unknown, Relaxed);
            tracing::debug!(server = %self.remote, unknown, "dropped replies matching no outstanding call");
        }
        if let Some(notice) = self.shared.responsiveness.replied() {
            tracing::info!(server = %self.remote, "{notice}");
        }
        for (reply, record) in done.drain(..) {
            reply.send(Ok(RpcReply { record, payload: None }));
        }
        outstanding
    }

    /// Queues again (for a retransmission) or fails every call past its deadline.
    pub(crate) fn check_timeouts(&self, now: Instant) {
        let expired = self.lock().calls.expire(now);
        if expired.requeued {
            self.wake.notify_one();
        }
        self.counters.major_timeouts(expired.major, &self.shared.responsiveness, self.shared.policy.hard, self.remote);
        if !expired.failed.is_empty() {
            self.counters.soft_timeouts.fetch_add(expired.failed.len() as u64, Relaxed);
            for c in expired.failed {
                let error = c.timed_out(now);
                c.reply.send(Err(error));
            }
        }
    }

    pub(crate) fn connected(&self, local: Option<SocketAddr>) {
        let mut st = self.lock();
        st.connected = true;
        st.local = local;
        st.replies_here = 0;
    }

    /// The TCP connection is gone: queue every outstanding call again, oldest first. Returns whether
    /// the connection had answered anything.
    pub(crate) fn disconnected(&self) -> bool {
        let mut st = self.lock();
        st.connected = false;
        st.local = None;
        st.calls.requeue_all(|_| {});
        // Replies to the server's calls belong to the connection they came on.
        st.callback_replies.clear();
        st.replies_here > 0
    }

    /// Refuses new calls and fails the outstanding ones with [`ClientError::Closed`].
    pub(crate) fn close(&self) {
        let calls: Vec<Outstanding<()>> = {
            let mut st = self.lock();
            st.connected = false;
            st.calls.close()
        };
        for c in calls {
            c.reply.send(Err(ClientError::Closed { proc: c.call.proc }));
        }
    }

    pub(crate) fn info(&self) -> ConnectionInfo {
        let (local, connected, in_flight) = {
            let st = self.lock();
            (st.local, st.connected, st.calls.len())
        };
        ConnectionInfo {
            index: self.index,
            transport: "tcp".to_string(),
            local,
            remote: self.remote,
            connected,
            calls_sent: self.counters.calls.load(Relaxed),
            retransmissions: self.counters.retransmissions.load(Relaxed),
            reconnects: self.counters.reconnects.load(Relaxed),
            unknown_replies: self.counters.unknown_replies.load(Relaxed),
            in_flight,
        }
    }
}
