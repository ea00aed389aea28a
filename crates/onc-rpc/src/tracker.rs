//! Client-side bookkeeping of outstanding calls, sans I/O: xid allocation, the slot limit, matching
//! replies to calls, and deadlines for retransmission. Time is supplied by the caller as [`Instant`]s;
//! nothing here reads a clock, sleeps or knows what program is being called.
//!
//! Retransmission follows RFC 5531 §9: a retransmitted call keeps its xid, so the server's duplicate
//! request cache can recognise it and a reply to either transmission completes the call.

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

/// Outstanding calls, each with an xid, a caller-defined token (e.g. a waker or a request id) and a
/// deadline. At most `max_outstanding` calls are outstanding at once (the TCP slot table, or the
/// credits an RPC-over-RDMA server granted).
#[derive(Debug, Clone)]
pub struct CallTracker<T> {
    next_xid: u32,
    max_outstanding: usize,
    calls: HashMap<u32, Outstanding<T>>,
    /// The same calls ordered by deadline, for cheap timeout scans.
    deadlines: BTreeSet<(Instant, u32)>,
}

#[derive(Debug, Clone)]
struct Outstanding<T> {
    token: T,
    deadline: Instant,
    retransmits: u32,
}

/// [`CallTracker::start`] found every slot taken; the token is handed back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoFreeSlot<T> {
    pub token: T,
}

/// What an incoming reply's xid matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyMatch<T> {
    /// The reply completes this call, which is no longer tracked.
    Matched { xid: u32, token: T, retransmits: u32 },
    /// No outstanding call has this xid: a late reply to a call given up on, the second reply to a
    /// retransmitted call, or a confused peer. Usually logged and dropped.
    Unknown { xid: u32 },
}

/// A call whose deadline has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimedOut {
    pub xid: u32,
    pub deadline: Instant,
    /// Retransmissions so far (0 after the first transmission).
    pub retransmits: u32,
}

impl<T> CallTracker<T> {
    /// A tracker whose first xid is `first_xid` (pick it at random per client instance, so xids do not
    /// repeat across restarts and the server's duplicate request cache is not fooled).
    pub fn new(first_xid: u32, max_outstanding: usize) -> Self {
        CallTracker { next_xid: first_xid, max_outstanding, calls: HashMap::new(), deadlines: BTreeSet::new() }
    }

    /// Calls currently outstanding.
    pub fn outstanding(&self) -> usize {
        self.calls.len()
    }

    pub fn max_outstanding(&self) -> usize {
        self.max_outstanding
    }

    /// Changes the slot limit (e.g. a new RPC-over-RDMA credit grant). Lowering it below the number of
    /// outstanding calls keeps them; new calls wait until enough complete.
    pub fn set_max_outstanding(&mut self, max_outstanding: usize) {
        self.max_outstanding = max_outstanding;
    }

    /// Calls that may be started now.
    pub fn free_slots(&self) -> usize {
        self.max_outstanding.saturating_sub(self.calls.len())
    }

    pub fn has_free_slot(&self) -> bool {
        self.free_slots() > 0
    }

    /// Registers a new call and returns its xid, or gives the token back when every slot is taken.
    pub fn start(&mut self, token: T, deadline: Instant) -> Result<u32, NoFreeSlot<T>> {
        if !self.has_free_slot() {
            return Err(NoFreeSlot { token });
        }
        let xid = self.allocate_xid();
        self.calls.insert(xid, Outstanding { token, deadline, retransmits: 0 });
        self.deadlines.insert((deadline, xid));
        Ok(xid)
    }

    /// The next xid not in use. Among `outstanding + 1` consecutive values at least one is free, so the
    /// search is bounded even after the 32-bit counter wraps onto a very old call.
    fn allocate_xid(&mut self) -> u32 {
        let mut xid = self.next_xid;
        for _ in 0..=self.calls.len() {
            xid = self.next_xid;
            self.next_xid = self.next_xid.wrapping_add(1);
            if !self.calls.contains_key(&xid) {
                break;
            }
        }
        xid
    }

    #[cfg(test)]
    pub(crate) fn set_next_xid(&mut self, xid: u32) {
        self.next_xid = xid;
    }

    /// Matches a reply's xid to its call and stops tracking the call.
    pub fn on_reply(&mut self, xid: u32) -> ReplyMatch<T> {
        match self.calls.remove(&xid) {
            Some(call) => {
                self.deadlines.remove(&(call.deadline, xid));
                ReplyMatch::Matched { xid, token: call.token, retransmits: call.retransmits }
            }
            None => ReplyMatch::Unknown { xid },
        }
    }

    /// The token of an outstanding call.
    pub fn get(&self, xid: u32) -> Option<&T> {
        self.calls.get(&xid).map(|c| &c.token)
    }

    pub fn get_mut(&mut self, xid: u32) -> Option<&mut T> {
        self.calls.get_mut(&xid).map(|c| &mut c.token)
    }

    /// The earliest deadline of any outstanding call: when the driver should next call
    /// [`timed_out`](Self::timed_out).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.first().map(|(deadline, _)| *deadline)
    }

    /// Calls whose deadline is at or before `now`, earliest first. They stay outstanding: for each, the
    /// caller either retransmits it (same xid) and calls [`retransmitted`](Self::retransmitted), or gives
    /// up with [`cancel`](Self::cancel). A call left alone is reported again next time.
    pub fn timed_out(&self, now: Instant) -> Vec<TimedOut> {
        self.deadlines
            .iter()
            .take_while(|(deadline, _)| *deadline <= now)
            .filter_map(|&(deadline, xid)| {
                self.calls.get(&xid).map(|c| TimedOut { xid, deadline, retransmits: c.retransmits })
            })
            .collect()
    }

    /// Records that call `xid` was sent again and sets its new deadline. Returns its retransmission
    /// count, or `None` if the call is not outstanding (a reply may have just completed it).
    pub fn retransmitted(&mut self, xid: u32, new_deadline: Instant) -> Option<u32> {
        let call = self.calls.get_mut(&xid)?;
        self.deadlines.remove(&(call.deadline, xid));
        call.deadline = new_deadline;
        call.retransmits = call.retransmits.saturating_add(1);
        self.deadlines.insert((new_deadline, xid));
        Some(call.retransmits)
    }

    /// Stops tracking a call (given up on, or cancelled by its caller); a later reply is then `Unknown`.
    pub fn cancel(&mut self, xid: u32) -> Option<T> {
        let call = self.calls.remove(&xid)?;
        self.deadlines.remove(&(call.deadline, xid));
        Some(call.token)
    }

    /// Removes every outstanding call (e.g. the connection is gone and the caller fails or requeues them),
    /// earliest deadline first.
    pub fn drain(&mut self) -> Vec<(u32, T)> {
        let order: Vec<u32> = self.deadlines.iter().map(|&(_, xid)| xid).collect();
        self.deadlines.clear();
        let mut out = Vec::with_capacity(order.len());
        for xid in order {
            if let Some(call) = self.calls.remove(&xid) {
                out.push((xid, call.token));
            }
        }
        out
    }
}
