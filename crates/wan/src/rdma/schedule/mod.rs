//! The timeline of one emulated queue pair, sans I/O: work requests waiting for their time to be
//! posted on the inner queue pair, completions held until the caller may see them, in order.
//!
//! Send queue: every request gets an entry in posting order; its completion is released only after
//! every earlier one (work requests complete in the order they were posted). Receive queue: the
//! peer's messages, each handed to the inbound direction at the time the peer sends it in emulated
//! time (after the data of an RDMA Read it did on our memory has arrived), released at arrival.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;
use std::task::Waker;
use std::time::Instant;

use ::rdma::{Completion, CompletionKind, MemoryRegion, RdmaError, RemoteSegment, WcError, WrId};
use bytes::Bytes;

use crate::link::{Flow, Link};

mod inbound;

use inbound::HeldRecv;

/// A work request waiting to be posted on the inner queue pair.
#[derive(Debug)]
pub(super) enum Op {
    /// The message, copied when the caller posted it.
    Send(Vec<u8>),
    Write {
        local: MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    },
    Read {
        local: MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    },
    /// A gather write: the caller's sources, held until the inner posts them.
    WriteGather {
        sources: Vec<Bytes>,
        remote: RemoteSegment,
    },
}

impl Op {
    fn kind(&self) -> Kind {
        match self {
            Op::Send(_) => Kind::Send,
            Op::Write { .. } | Op::WriteGather { .. } => Kind::Write,
            Op::Read { .. } => Kind::Read,
        }
    }
}

/// Which queue a completion belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Send,
    Write,
    Read,
    Recv,
}

#[derive(Debug)]
enum Action {
    /// Post send-queue entry `id`: its message, data or request reaches the peer now.
    Post { id: u64, op: Op },
    /// The peer's RDMA Read request for held receive `recv` reaches us: our data starts out.
    PeerRead { recv: u64, bytes: u64 },
}

#[derive(Debug)]
struct Timed {
    at: Instant,
    seq: u64,
    action: Action,
}

impl PartialEq for Timed {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl Eq for Timed {}
impl PartialOrd for Timed {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Timed {
    // Earliest first in BinaryHeap's max-heap; ties in posting order.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

#[derive(Debug)]
struct SqEntry {
    wr_id: WrId,
    kind: Kind,
    bytes: u64,
    /// When the inner request was posted: its emulated arrival at the peer.
    posted_at: Option<Instant>,
    /// The completion and the time the caller may see it.
    done: Option<(Instant, Completion)>,
}

/// The queue pair's timeline; behind the wrapper's mutex.
#[derive(Debug)]
pub(super) struct State {
    link: Arc<Link>,
    flow_out: Flow,
    flow_in: Flow,
    timers: BinaryHeap<Timed>,
    seq: u64,
    /// Send-queue entries in posting order; `sq[0]` has internal id `sq_first` (ids start at 1, so the
    /// inner's receive completions, tagged 0, never match one).
    sq: VecDeque<SqEntry>,
    sq_first: u64,
    recvs: VecDeque<HeldRecv>,
    recv_first: u64,
    /// `recvs[..handed]` have their arrival time.
    handed: usize,
    last_recv: Option<Instant>,
    ready: VecDeque<(Completion, Kind)>,
    /// Send-queue requests and RDMA Reads the caller has not polled the completion of.
    sq_busy: u32,
    reads_busy: u32,
    max_send: u32,
    read_depth: u8,
    /// The peer's one-sided byte counters already charged.
    peer_seen: ::rdma::PeerOneSided,
    /// RDMA Reads the peer may have in flight towards us (our responder resources): when each free slot
    /// frees in emulated time; a slot in use is in neither list until its Read's data is in.
    peer_read_slots: Vec<Instant>,
    /// The peer's Reads waiting for a slot: (held message, bytes, when the peer would issue it).
    peer_reads_waiting: VecDeque<(u64, u64, Instant)>,
    inner_down: bool,
    closing: bool,
    pub(super) caller: Option<Waker>,
    pub(super) task: Option<Waker>,
}

impl State {
    pub(super) fn new(link: Arc<Link>, max_send: u32, read_depth: u8, peer_read_depth: u8) -> State {
        State {
            link,
            flow_out: Flow::default(),
            flow_in: Flow::default(),
            timers: BinaryHeap::new(),
            seq: 0,
            sq: VecDeque::new(),
            sq_first: 1,
            recvs: VecDeque::new(),
            recv_first: 0,
            handed: 0,
            last_recv: None,
            ready: VecDeque::new(),
            sq_busy: 0,
            reads_busy: 0,
            max_send,
            read_depth,
            peer_seen: ::rdma::PeerOneSided::default(),
            peer_read_slots: vec![Instant::now(); usize::from(peer_read_depth.max(1))],
            peer_reads_waiting: VecDeque::new(),
            inner_down: false,
            closing: false,
            caller: None,
            task: None,
        }
    }

    fn schedule(&mut self, at: Instant, action: Action) {
        self.seq += 1;
        self.timers.push(Timed { at, seq: self.seq, action });
    }

    /// Queues a work request the caller posted at `now`, checking what the inner would refuse at once.
    pub(super) fn post(&mut self, now: Instant, wr_id: WrId, op: Op) -> Result<(), RdmaError> {
        if self.inner_down || self.closing {
            return Err(RdmaError::Disconnected);
        }
        if self.sq_busy >= self.max_send {
            return Err(RdmaError::QueueFull { queue: "send", depth: self.max_send });
        }
        let kind = op.kind();
        if kind == Kind::Read && self.reads_busy >= u32::from(self.read_depth) {
            return Err(RdmaError::QueueFull { queue: "RDMA Read", depth: self.read_depth.into() });
        }
        let bytes = match &op {
            Op::Send(message) => message.len() as u64,
            Op::Write { remote, .. } | Op::Read { remote, .. } | Op::WriteGather { remote, .. } => {
                u64::from(remote.length)
            }
        };
        // A Send's or Write's bytes go out; a Read sends only its request. The flow keeps RC's order:
        // nothing posted later overtakes them (so a Write lands before the Send that announces it).
        let on_wire = if kind == Kind::Read { 0 } else { bytes };
        let at = self.flow_out.arrival(&self.link.outbound, now, on_wire);
        let id = self.sq_first + self.sq.len() as u64;
        self.sq.push_back(SqEntry { wr_id, kind, bytes, posted_at: None, done: None });
        self.sq_busy += 1;
        self.reads_busy += u32::from(kind == Kind::Read);
        self.schedule(at, Action::Post { id, op });
        Ok(())
    }

    fn sq_entry(&mut self, id: u64) -> Option<&mut SqEntry> {
        let index = id.checked_sub(self.sq_first)?;
        self.sq.get_mut(usize::try_from(index).ok()?)
    }

    fn finish_sq(&mut self, id: u64, at: Instant, result: Result<CompletionKind, WcError>) {
        if let Some(entry) = self.sq_entry(id) {
            entry.done = Some((at, Completion { wr_id: entry.wr_id, result }));
        }
    }

    /// The posts that are due (with their internal ids) and the peer's Read requests that arrived.
    /// After the inner went down or a disconnect, posts complete flushed instead.
    pub(super) fn take_due(&mut self, now: Instant) -> Vec<(u64, Op)> {
        let mut due = Vec::new();
        while self.timers.peek().is_some_and(|t| t.at <= now) {
            let Some(Timed { at, action, .. }) = self.timers.pop() else { break };
            match action {
                Action::Post { id, .. } if self.inner_down || self.closing => {
                    self.finish_sq(id, now, Err(WcError::Flushed));
                }
                Action::Post { id, op } => {
                    if let Some(entry) = self.sq_entry(id) {
                        entry.posted_at = Some(at);
                    }
                    due.push((id, op));
                }
                Action::PeerRead { recv, bytes } => self.peer_read_arrives(at, recv, bytes),
            }
        }
        due
    }

    /// A post the inner refused: the error becomes the request's completion.
    pub(super) fn post_failed(&mut self, id: u64, error: RdmaError, now: Instant) {
        let status = match error {
            RdmaError::Disconnected => WcError::Flushed,
            other => WcError::Other(other.to_string()),
        };
        self.finish_sq(id, now, Err(status));
    }

    /// Completions from the inner queue pair, polled at `now`; `counters` is the peer's one-sided byte
    /// count read just after polling them.
    pub(super) fn on_inner(
        &mut self,
        now: Instant,
        batch: &mut Vec<Completion>,
        counters: Option<::rdma::PeerOneSided>,
    ) {
        let one_way = self.link.outbound.one_way();
        for completion in batch.drain(..) {
            let recv = matches!(completion.result, Ok(CompletionKind::Recv(_)))
                || (completion.wr_id == 0 && completion.result.is_err());
            if recv {
                self.on_inner_recv(now, completion, counters);
                continue;
            }
            let id = completion.wr_id;
            let Some(&mut SqEntry { kind, bytes, posted_at, .. }) = self.sq_entry(id) else { continue };
            let at = match (&completion.result, kind) {
                // The responder streams the data back from the request's arrival, serialised on the
                // inbound direction (a NIC overlaps its DMA with the wire; the inner's copy does not
                // count), and the completion never comes before the inner's.
                (Ok(_), Kind::Read) => self.link.inbound.transmit(posted_at.unwrap_or(now).min(now), bytes).max(now),
                // RC completes a Send or Write when its acknowledgement is back: one more one-way.
                (Ok(_), _) => posted_at.map_or(now, |posted| now.max(posted + one_way)),
                (Err(_), _) => now,
            };
            self.finish_sq(id, at, completion.result);
        }
    }

    /// The inner queue pair reported `Disconnected`: every request not yet posted completes flushed;
    /// messages already received are still delivered at their arrival.
    pub(super) fn on_inner_down(&mut self, now: Instant) {
        self.inner_down = true;
        self.flush_posts(now);
    }

    fn flush_posts(&mut self, now: Instant) {
        let timers = std::mem::take(&mut self.timers);
        for timed in timers.into_vec() {
            match timed.action {
                Action::Post { id, .. } => self.finish_sq(id, now, Err(WcError::Flushed)),
                action @ Action::PeerRead { .. } => self.timers.push(Timed { action, ..timed }),
            }
        }
    }

    /// The caller disconnects: what is not posted or not yet arrived completes flushed at once.
    pub(super) fn disconnect(&mut self, now: Instant) {
        self.closing = true;
        self.flush_posts(now);
        self.flush_recvs(now);
    }

    /// Hands the peer's messages whose time has come to the inbound direction and moves every
    /// completion that is due, in queue order, to the caller's queue. Returns the caller's waker when
    /// something became ready.
    pub(super) fn release(&mut self, now: Instant) -> Option<Waker> {
        let before = self.ready.len();
        self.release_recvs(now);
        while self.sq.front().is_some_and(|e| e.done.as_ref().is_some_and(|(at, _)| *at <= now || self.closing)) {
            if let Some(SqEntry { done: Some((_, completion)), kind, .. }) = self.sq.pop_front() {
                self.ready.push_back((completion, kind));
            }
            self.sq_first += 1;
        }
        if self.ready.len() > before || self.finished() {
            self.caller.take()
        } else {
            None
        }
    }

    /// The next time something is due: a post, a held completion, a message to hand over.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        let timer = self.timers.peek().map(|t| t.at);
        let start = self.recvs.get(self.handed).and_then(HeldRecv::start);
        let recv = self.recvs.front().and_then(HeldRecv::release);
        let sq = self.sq.front().and_then(|e| e.done.as_ref().map(|(at, _)| *at));
        [timer, start, recv, sq].into_iter().flatten().min()
    }

    /// The inner is down and every completion has been handed to the caller's queue.
    pub(super) fn finished(&self) -> bool {
        self.inner_down && self.sq.is_empty() && self.recvs.is_empty()
    }

    /// Moves ready completions to `out`; `None` when there are none.
    pub(super) fn take_ready(&mut self, out: &mut Vec<Completion>) -> Option<()> {
        if self.ready.is_empty() {
            return None;
        }
        for (completion, kind) in self.ready.drain(..) {
            match kind {
                Kind::Recv => {}
                Kind::Read => {
                    self.sq_busy -= 1;
                    self.reads_busy -= 1;
                }
                Kind::Send | Kind::Write => self.sq_busy -= 1,
            }
            out.push(completion);
        }
        Some(())
    }
}
