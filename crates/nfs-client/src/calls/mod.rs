//! The calls of one connection slot, sans I/O, for every transport: each outstanding call by xid, the
//! FIFO of calls waiting to be sent, deadlines and the retransmission decision ([`RetransmitPolicy`]).
//! Time is passed in as [`Instant`]s; nothing here reads a clock, touches a socket or a queue pair.
//!
//! A call is *waiting* (to be sent: just submitted, timed out over TCP, or its connection was lost) or
//! *sent* on the current connection. The driver of a transport feeds the table: it takes waiting calls
//! when it can send ([`CallTable::pop_waiting`], asking its own slot or credit rule first), hands over
//! replies by xid ([`CallTable::take`]), calls [`CallTable::expire`] on its timer, and
//! [`CallTable::requeue_all`] when its connection is lost. A retransmission keeps its xid (RFC 5531 §9:
//! the server's duplicate request cache recognises it, and a reply to any transmission completes it).
//!
//! What a timed-out sent call does to the connection is the driver's [`Recovery`].

#[cfg(test)]
mod tests;

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::time::{Duration, Instant};

use crate::error::ClientError;
use crate::retransmit::{RetransmitPolicy, Verdict};
use crate::transport::{ReplySender, RpcCall};

/// How a transport recovers a sent call that timed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Recovery {
    /// Over TCP, as Linux: the call waits to be sent again on the same connection. A sent call holds
    /// nothing on the connection, so one nobody waits for any more is forgotten at once.
    Retransmit,
    /// Over RPC-over-RDMA, as Linux's xprtrdma (`xprt_rdma_timer`: "RDMA connections don't have a
    /// keep-alive"): nothing is sent twice on one queue pair, since the responder counts every call
    /// against its credits; the driver replaces the queue pair and every call is sent on the new one. A
    /// sent call holds a credit and registered memory until its reply or its queue pair ends, so only
    /// unsent calls nobody waits for are forgotten.
    Reconnect,
}

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

/// A call submitted and not yet answered, with what its transport keeps for it (`extra`: the
/// registered memory of an RDMA transmission; nothing over TCP).
#[derive(Debug)]
pub(crate) struct Outstanding<X> {
    pub(crate) call: RpcCall,
    pub(crate) reply: ReplySender,
    pub(crate) extra: X,
    /// Submission order, kept across connections.
    seq: u64,
    submitted: Instant,
    deadline: Instant,
    /// Timeouts in the current major-timeout cycle.
    retries: u32,
    /// Sent on the current connection (else waiting).
    sent: bool,
    transmissions: u32,
}

impl<X> Outstanding<X> {
    /// Marks the call sent on the current connection; true when this is a retransmission.
    pub(crate) fn mark_sent(&mut self) -> bool {
        self.sent = true;
        self.transmissions += 1;
        self.transmissions > 1
    }

    /// How long the call has waited for its reply at `now`.
    pub(crate) fn waited(&self, now: Instant) -> Duration {
        now.saturating_duration_since(self.submitted)
    }

    /// The error of the call given up on at `now` (soft mounts).
    pub(crate) fn timed_out(&self, now: Instant) -> ClientError {
        ClientError::TimedOut { proc: self.call.proc, after: self.waited(now) }
    }
}

/// What [`CallTable::expire`] found.
#[derive(Debug)]
pub(crate) struct Expired<X> {
    /// Major timeouts (soft and hard).
    pub(crate) major: u64,
    /// Soft mounts: the calls given up on, removed from the table; fail them with
    /// [`Outstanding::timed_out`].
    pub(crate) failed: Vec<Outstanding<X>>,
    /// [`Recovery::Retransmit`]: timed-out calls now wait to be sent again.
    pub(crate) requeued: bool,
    /// [`Recovery::Reconnect`]: a sent call timed out, so the connection is to be replaced.
    pub(crate) reconnect: bool,
}

/// Why [`CallTable::insert`] refused a call; the reply sender is handed back to fail it.
#[derive(Debug)]
pub(crate) struct Refused {
    pub(crate) reply: ReplySender,
    pub(crate) error: ClientError,
}

/// The outstanding calls of one connection slot.
#[derive(Debug)]
pub(crate) struct CallTable<X> {
    policy: RetransmitPolicy,
    recovery: Recovery,
    calls: HashMap<u32, Outstanding<X>, BuildHasherDefault<XidHasher>>,
    /// Xids of waiting calls, oldest first; may hold xids answered or re-sent since (skipped).
    waiting: VecDeque<u32>,
    next_seq: u64,
    closed: bool,
}

impl<X> CallTable<X> {
    pub(crate) fn new(policy: RetransmitPolicy, recovery: Recovery) -> Self {
        CallTable { policy, recovery, calls: HashMap::default(), waiting: VecDeque::new(), next_seq: 0, closed: false }
    }

    /// Registers `call` at `now`, waiting to be sent, its deadline `timeo` away. Refused after
    /// [`close`](Self::close), and while another call with its xid is outstanding.
    pub(crate) fn insert(&mut self, call: RpcCall, reply: ReplySender, extra: X, now: Instant) -> Result<(), Refused> {
        if self.closed {
            let error = ClientError::Closed { proc: call.proc };
            return Err(Refused { reply, error });
        }
        let xid = call.xid;
        if self.calls.contains_key(&xid) {
            let detail = format!("xid {xid:#x} is still outstanding after 2^32 calls");
            return Err(Refused { reply, error: ClientError::InvalidArgument { proc: call.proc, detail } });
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let deadline = now + self.policy.timeout(0);
        let c = Outstanding {
            call,
            reply,
            extra,
            seq,
            submitted: now,
            deadline,
            retries: 0,
            sent: false,
            transmissions: 0,
        };
        self.calls.insert(xid, c);
        self.waiting.push_back(xid);
        Ok(())
    }

    /// True when a call waits to be sent.
    pub(crate) fn has_waiting(&mut self) -> bool {
        self.drop_stale_waiting();
        !self.waiting.is_empty()
    }

    /// The oldest waiting call, out of the queue (still outstanding, not yet marked sent: the driver
    /// calls [`Outstanding::mark_sent`] once it is, or [`wait_first`](Self::wait_first) if it could
    /// not send it).
    pub(crate) fn pop_waiting(&mut self) -> Option<&mut Outstanding<X>> {
        self.drop_stale_waiting();
        let xid = self.waiting.pop_front()?;
        self.calls.get_mut(&xid)
    }

    /// Puts a call taken with [`pop_waiting`](Self::pop_waiting) and not sent back at the head.
    pub(crate) fn wait_first(&mut self, xid: u32) {
        self.waiting.push_front(xid);
    }

    fn drop_stale_waiting(&mut self) {
        while let Some(xid) = self.waiting.front() {
            if self.calls.get(xid).is_some_and(|c| !c.sent) {
                return;
            }
            self.waiting.pop_front();
        }
    }

    /// The call `xid` answers, out of the table: any outstanding one, or with `sent_only` only one sent
    /// on the current connection.
    pub(crate) fn take(&mut self, xid: u32, sent_only: bool) -> Option<Outstanding<X>> {
        match self.calls.get(&xid) {
            Some(c) if c.sent || !sent_only => self.calls.remove(&xid),
            _ => None,
        }
    }

    /// Removes a call (it cannot be sent at all).
    pub(crate) fn remove(&mut self, xid: u32) -> Option<Outstanding<X>> {
        self.calls.remove(&xid)
    }

    /// Applies the policy to every call past its deadline at `now`, after forgetting calls nobody waits
    /// for (see [`Recovery`]). The calls given up on are returned, out of the table.
    pub(crate) fn expire(&mut self, now: Instant) -> Expired<X> {
        let keep_sent = self.recovery == Recovery::Reconnect;
        self.calls.retain(|_, c| (keep_sent && c.sent) || !c.reply.is_closed());
        let mut expired = Expired { major: 0, failed: Vec::new(), requeued: false, reconnect: false };
        let mut give_up = Vec::new();
        for (&xid, c) in self.calls.iter_mut().filter(|(_, c)| c.deadline <= now) {
            // Even a sent call given up on had its connection time out.
            expired.reconnect |= self.recovery == Recovery::Reconnect && c.sent;
            let verdict = self.policy.on_timeout(&mut c.retries);
            if verdict != Verdict::Retry {
                expired.major += 1;
            }
            if verdict == Verdict::GiveUp {
                give_up.push(xid);
                continue;
            }
            c.deadline = now + self.policy.timeout(c.retries);
            if self.recovery == Recovery::Retransmit && c.sent {
                c.sent = false;
                self.waiting.push_back(xid);
                expired.requeued = true;
            }
        }
        expired.failed.extend(give_up.into_iter().filter_map(|xid| self.calls.remove(&xid)));
        expired
    }

    /// The connection is gone: every sent call waits again (`unsent` gets each, to release what its
    /// transmission held), and all wait in submission order.
    pub(crate) fn requeue_all(&mut self, mut unsent: impl FnMut(&mut Outstanding<X>)) {
        for c in self.calls.values_mut().filter(|c| c.sent) {
            c.sent = false;
            unsent(c);
        }
        let mut order: Vec<(u64, u32)> = self.calls.iter().map(|(&xid, c)| (c.seq, xid)).collect();
        order.sort_unstable();
        self.waiting = order.into_iter().map(|(_, xid)| xid).collect();
    }

    /// Refuses later calls and returns the outstanding ones, to fail with [`ClientError::Closed`].
    pub(crate) fn close(&mut self) -> Vec<Outstanding<X>> {
        self.closed = true;
        self.waiting.clear();
        self.calls.drain().map(|(_, c)| c).collect()
    }

    /// Calls outstanding.
    pub(crate) fn len(&self) -> usize {
        self.calls.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }
}
