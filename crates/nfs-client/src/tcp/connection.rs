//! One connection slot of a mount: the calls outstanding on it, the queue its writer drains, and its
//! counters. It outlives TCP connections: when one breaks, every outstanding call is queued again and
//! sent, same xid, on the next (RFC 5531 §9: a retransmission keeps its xid).
//!
//! Every operation takes the state lock once: a submission (insert + queue), a writer batch, a reader
//! batch of replies, a timer scan.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::Notify;

use super::retransmit::RetransmitPolicy;
use super::writer::Batch;
use crate::error::ClientError;
use crate::lanes::Counters;
use crate::transport::{ReplySender, RpcCall, RpcReply};
use crate::types::ConnectionInfo;

/// Hashes xids, which are consecutive numbers: a multiply spreads them over the table.
#[derive(Default)]
pub(crate) struct XidHasher(u64);

impl Hasher for XidHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8 | u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Calls = HashMap<u32, Outstanding, BuildHasherDefault<XidHasher>>;

/// A call sent (or to be sent) and not yet answered.
#[derive(Debug)]
pub(crate) struct Outstanding {
    pub(crate) call: RpcCall,
    pub(crate) reply: ReplySender,
    pub(crate) submitted: Instant,
    pub(crate) deadline: Instant,
    /// Timeouts in the current major-timeout cycle.
    pub(crate) retries: u32,
    /// In the writer's queue (not sent since it was last queued).
    pub(crate) queued: bool,
    pub(crate) transmissions: u32,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) calls: Calls,
    pub(crate) queue: Vec<u32>,
    local: Option<SocketAddr>,
    connected: bool,
    closed: bool,
    /// Replies received on the current TCP connection (a connection that dies without any counts as
    /// a failed attempt for the reconnection backoff).
    replies_here: u64,
}

/// Settings and flags shared by the connections of one mount.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) policy: RetransmitPolicy,
    pub(crate) limits: onc_rpc::RecordLimits,
    /// "server not responding" was logged and no reply came since.
    pub(crate) not_responding: AtomicBool,
    /// The emulated long-distance link the connections go through, if any.
    pub(crate) link: Option<Arc<wan::Link>>,
}

#[derive(Debug)]
pub(crate) struct Connection {
    pub(crate) index: usize,
    pub(crate) remote: SocketAddr,
    pub(crate) shared: std::sync::Arc<Shared>,
    state: Mutex<State>,
    /// The queue went from empty to not empty (wakes the writer, or a lazy reconnection).
    pub(crate) wake: Notify,
    pub(crate) counters: Counters,
}

impl Connection {
    pub(crate) fn new(index: usize, remote: SocketAddr, shared: std::sync::Arc<Shared>) -> Self {
        Connection {
            index,
            remote,
            shared,
            state: Mutex::default(),
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
        let deadline = now + self.shared.policy.timeout(0);
        let mut st = self.lock();
        if st.closed {
            drop(st);
            return reply.send(Err(ClientError::Closed { proc: call.proc }));
        }
        let xid = call.xid;
        if st.calls.contains_key(&xid) {
            drop(st);
            let detail = format!("xid {xid:#x} is still outstanding after 2^32 calls");
            return reply.send(Err(ClientError::InvalidArgument { proc: call.proc, detail }));
        }
        let was_empty = st.queue.is_empty();
        st.queue.push(xid);
        let call = Outstanding { call, reply, submitted: now, deadline, retries: 0, queued: true, transmissions: 0 };
        st.calls.insert(xid, call);
        drop(st);
        self.counters.calls.fetch_add(1, Relaxed);
        if was_empty {
            self.wake.notify_one();
        }
    }

    /// Moves the queued calls into the writer's batch (`xids` is scratch space).
    pub(crate) fn take_queued(&self, xids: &mut Vec<u32>, batch: &mut Batch) {
        let mut retransmitted = 0;
        {
            let mut st = self.lock();
            let st = &mut *st;
            std::mem::swap(&mut st.queue, xids);
            for xid in xids.drain(..) {
                let Some(c) = st.calls.get_mut(&xid) else { continue };
                if !c.queued {
                    continue;
                }
                c.queued = false;
                retransmitted += u64::from(c.transmissions > 0);
                c.transmissions += 1;
                batch.push(&c.call);
            }
        }
        if retransmitted > 0 {
            self.counters.retransmissions.fetch_add(retransmitted, Relaxed);
        }
    }

    pub(crate) fn has_queued(&self) -> bool {
        !self.lock().queue.is_empty()
    }

    /// Completes the calls the `records` answer; `done` is scratch space.
    pub(crate) fn complete(&self, records: &mut Vec<Bytes>, done: &mut Vec<(ReplySender, Bytes)>) {
        let mut unknown = 0;
        {
            let mut st = self.lock();
            st.replies_here += records.len() as u64;
            for record in records.drain(..) {
                let call = onc_rpc::RpcMessage::peek_xid(&record).and_then(|xid| st.calls.remove(&xid));
                match call {
                    Some(c) => done.push((c.reply, record)),
                    None => unknown += 1,
                }
            }
        }
        if unknown > 0 {
            self.counters.unknown_replies.fetch_add(unknown, Relaxed);
            tracing::debug!(server = %self.remote, unknown, "dropped replies matching no outstanding call");
        }
        if self.shared.not_responding.load(Relaxed) && self.shared.not_responding.swap(false, Relaxed) {
            tracing::info!(server = %self.remote, "nfs: server OK");
        }
        for (reply, record) in done.drain(..) {
            reply.send(Ok(RpcReply { record, payload: None }));
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
        let st = &mut *st;
        st.connected = false;
        st.local = None;
        let mut again: Vec<(Instant, u32)> = Vec::new();
        for (xid, c) in st.calls.iter_mut().filter(|(_, c)| !c.queued) {
            c.queued = true;
            again.push((c.submitted, *xid));
        }
        again.sort_unstable();
        st.queue.extend(again.into_iter().map(|(_, xid)| xid));
        st.replies_here > 0
    }

    /// Refuses new calls and fails the outstanding ones with [`ClientError::Closed`].
    pub(crate) fn close(&self) {
        let calls: Vec<Outstanding> = {
            let mut st = self.lock();
            st.closed = true;
            st.connected = false;
            st.queue.clear();
            st.calls.drain().map(|(_, c)| c).collect()
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

/// How long a call has waited since it was submitted.
pub(crate) fn waited(c: &Outstanding, now: Instant) -> Duration {
    now.saturating_duration_since(c.submitted)
}
