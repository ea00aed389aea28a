//! The connection's send queue: RDMA Reads, RDMA Writes and Sends wait here until the queue pair has
//! room (`max_send` outstanding) and, for Reads, until fewer than the negotiated initiator depth are in
//! flight. Writes and Sends leave in the order they were queued, so a reply's Writes are posted before
//! its Send (RC ordering then places them first); Reads of other calls do not hold them up.
//!
//! Work request ids carry what the request is and whose it is ([`WrTag`]).
//!
//! A reply's RDMA Writes gather from the reply's own memory (the RAM backend's pages, the flattened
//! reply) with [`QueuePair::post_write_gather`]: nothing is registered or copied for them here.

use std::collections::VecDeque;

use rdma::{MemoryRegion, QueuePair, RdmaError, RemoteSegment, WrId};

use crate::outbound::Sources;

/// What a work request is for; the top byte of its [`WrId`]. Receives complete with id 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WrKind {
    Recv = 0,
    Read = 1,
    Write = 2,
    /// The Send of a reply; the id is the call's.
    Reply = 3,
    /// The Send of an RDMA_ERROR.
    Error = 4,
    /// The Send of a backward call (server to client, RFC 8167).
    Backward = 5,
}

/// A work request id: kind and call id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WrTag {
    pub kind: WrKind,
    pub call: u64,
}

const CALL_BITS: u32 = 56;
const CALL_MASK: u64 = (1 << CALL_BITS) - 1;

impl WrTag {
    pub fn new(kind: WrKind, call: u64) -> WrTag {
        WrTag { kind, call: call & CALL_MASK }
    }

    pub fn encode(self) -> WrId {
        ((self.kind as u64) << CALL_BITS) | self.call
    }

    /// `None` for an id we never posted.
    pub fn decode(id: WrId) -> Option<WrTag> {
        let kind = match id >> CALL_BITS {
            0 => WrKind::Recv,
            1 => WrKind::Read,
            2 => WrKind::Write,
            3 => WrKind::Reply,
            4 => WrKind::Error,
            5 => WrKind::Backward,
            _ => return None,
        };
        Some(WrTag { kind, call: id & CALL_MASK })
    }
}

/// One work request waiting for room.
#[derive(Debug)]
pub(crate) enum Work {
    Read {
        region: MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    },
    /// An RDMA Write of `sources`, in order (their lengths add up to `remote.length`).
    Write {
        sources: Sources,
        remote: RemoteSegment,
    },
    Send {
        message: Vec<u8>,
    },
}

/// Bytes a [`WorkQueue::pump`] posted, for the counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Posted {
    pub read_bytes: u64,
    pub written_bytes: u64,
}

#[derive(Debug)]
pub(crate) struct WorkQueue {
    capacity: u32,
    read_depth: u32,
    outstanding: u32,
    reads_outstanding: u32,
    reads: VecDeque<(WrTag, Work)>,
    others: VecDeque<(WrTag, Work)>,
}

impl WorkQueue {
    pub fn new(capacity: u32, read_depth: u32) -> WorkQueue {
        WorkQueue {
            capacity: capacity.max(1),
            read_depth,
            outstanding: 0,
            reads_outstanding: 0,
            reads: VecDeque::new(),
            others: VecDeque::new(),
        }
    }

    pub fn push(&mut self, tag: WrTag, work: Work) {
        match work {
            Work::Read { .. } => self.reads.push_back((tag, work)),
            _ => self.others.push_back((tag, work)),
        }
    }

    /// Nothing queued and nothing outstanding.
    pub fn is_idle(&self) -> bool {
        self.outstanding == 0 && self.reads.is_empty() && self.others.is_empty()
    }

    /// A posted request of `kind` completed (successfully or not).
    pub fn completed(&mut self, kind: WrKind) {
        if kind == WrKind::Recv {
            return;
        }
        self.outstanding = self.outstanding.saturating_sub(1);
        if kind == WrKind::Read {
            self.reads_outstanding = self.reads_outstanding.saturating_sub(1);
        }
    }

    /// Posts what there is room for: Writes and Sends first (they finish calls), then Reads.
    /// `on_posted` hears of each request's bytes as soon as it is posted, before the next one (a Send
    /// that follows a Write may be answered before this returns).
    pub fn pump(&mut self, qp: &dyn QueuePair, mut on_posted: impl FnMut(Posted)) -> Result<Posted, RdmaError> {
        let mut posted = Posted::default();
        while self.outstanding < self.capacity {
            let Some((tag, work)) = self.others.pop_front() else { break };
            if let Some(work) = self.post(qp, tag, work, &mut posted, &mut on_posted)? {
                self.others.push_front((tag, work));
                return Ok(posted);
            }
        }
        while self.outstanding < self.capacity && self.reads_outstanding < self.read_depth {
            let Some((tag, work)) = self.reads.pop_front() else { break };
            if let Some(work) = self.post(qp, tag, work, &mut posted, &mut on_posted)? {
                self.reads.push_front((tag, work));
                return Ok(posted);
            }
            self.reads_outstanding += 1;
        }
        Ok(posted)
    }

    /// Posts one request; gives it back when the provider's queue is full but others are outstanding
    /// (their completions make room).
    fn post(
        &mut self,
        qp: &dyn QueuePair,
        tag: WrTag,
        work: Work,
        posted: &mut Posted,
        on_posted: &mut impl FnMut(Posted),
    ) -> Result<Option<Work>, RdmaError> {
        let id = tag.encode();
        let result = match &work {
            Work::Read { region, offset, remote } => qp.post_read(id, region, *offset, *remote),
            Work::Write { sources, remote } => qp.post_write_gather(id, sources, *remote),
            Work::Send { message } => qp.post_send(id, &[message]),
        };
        match result {
            Ok(()) => {
                self.outstanding += 1;
                let this = match work {
                    Work::Read { remote, .. } => Posted { read_bytes: u64::from(remote.length), ..Posted::default() },
                    Work::Write { remote, .. } => {
                        Posted { written_bytes: u64::from(remote.length), ..Posted::default() }
                    }
                    Work::Send { .. } => Posted::default(),
                };
                posted.read_bytes += this.read_bytes;
                posted.written_bytes += this.written_bytes;
                on_posted(this);
                Ok(None)
            }
            Err(RdmaError::QueueFull { .. }) if self.outstanding > 0 => {
                self.capacity = self.outstanding;
                Ok(Some(work))
            }
            Err(err) => Err(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Mutex;
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use rdma::{Access, Completion, ConnectionInfo, RegBuf, Registration, Window};

    use super::*;

    /// A queue pair that records what is posted and refuses once `room` requests are outstanding.
    #[derive(Debug, Default)]
    struct Recorder {
        posted: Mutex<Vec<(WrKind, u32)>>,
        room: usize,
        registered: AtomicU64,
    }

    #[derive(Debug)]
    struct Nothing;
    impl Registration for Nothing {
        fn deregister(&self) {}
    }

    impl Recorder {
        fn record(&self, id: WrId, len: u32) -> Result<(), RdmaError> {
            let mut posted = self.posted.lock().expect("lock");
            if posted.len() >= self.room {
                return Err(RdmaError::QueueFull { queue: "send", depth: self.room as u32 });
            }
            posted.push((WrTag::decode(id).expect("our id").kind, len));
            Ok(())
        }

        fn kinds(&self) -> Vec<WrKind> {
            self.posted.lock().expect("lock").iter().map(|p| p.0).collect()
        }
    }

    impl QueuePair for Recorder {
        fn info(&self) -> ConnectionInfo {
            ConnectionInfo {
                provider: "recorder".into(),
                local: None,
                peer: None,
                peer_private_data: Vec::new(),
                initiator_depth: 2,
            }
        }
        fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
            self.registered.fetch_add(1, Ordering::Relaxed);
            Ok(MemoryRegion::new(buf, access, 1, 1, 0, Box::new(Nothing)))
        }
        fn pool(&self) -> Option<MemoryRegion> {
            None
        }
        fn open_window(
            &self,
            region: &MemoryRegion,
            at: usize,
            len: usize,
            access: Access,
        ) -> Result<Window, RdmaError> {
            if at.checked_add(len).is_none_or(|end| end > region.len()) {
                return Err(RdmaError::Invalid("window past the region".into()));
            }
            Ok(Window::new(region.clone(), at, len, access, 2, region.addr() + at as u64, Box::new(Nothing)))
        }
        fn post_write_gather(&self, id: WrId, _: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
            self.record(id, remote.length)
        }
        fn registrations(&self) -> u64 {
            self.registered.load(Ordering::Relaxed)
        }
        fn post_recvs(&self, _: u32) -> Result<(), RdmaError> {
            Ok(())
        }
        fn post_send(&self, id: WrId, message: &[&[u8]]) -> Result<(), RdmaError> {
            self.record(id, message.iter().map(|m| m.len() as u32).sum())
        }
        fn post_read(&self, id: WrId, _: &MemoryRegion, _: usize, remote: RemoteSegment) -> Result<(), RdmaError> {
            self.record(id, remote.length)
        }
        fn post_write(&self, id: WrId, _: &MemoryRegion, _: usize, remote: RemoteSegment) -> Result<(), RdmaError> {
            self.record(id, remote.length)
        }
        fn poll_completions(&self, _: &mut Context<'_>, _: &mut Vec<Completion>) -> Poll<Result<(), RdmaError>> {
            Poll::Pending
        }
        fn disconnect(&self) {}
    }

    fn region(qp: &Recorder) -> MemoryRegion {
        qp.register(RegBuf::Writable(vec![0; 64]), Access::LOCAL_WRITE).expect("register")
    }

    fn remote(length: u32) -> RemoteSegment {
        RemoteSegment { handle: 9, offset: 0, length }
    }

    #[test]
    fn reads_wait_for_the_initiator_depth_while_writes_and_sends_go_in_order() {
        let qp = Recorder { room: 100, ..Default::default() };
        let mut queue = WorkQueue::new(16, 2);
        for _ in 0..3 {
            queue.push(WrTag::new(WrKind::Read, 1), Work::Read { region: region(&qp), offset: 0, remote: remote(8) });
        }
        queue.push(
            WrTag::new(WrKind::Write, 2),
            Work::Write { sources: smallvec::smallvec![Bytes::from_static(&[1; 16])], remote: remote(16) },
        );
        queue.push(WrTag::new(WrKind::Reply, 2), Work::Send { message: vec![0; 28] });
        let posted = queue.pump(&qp, |_| {}).expect("pump");
        assert_eq!(posted, Posted { read_bytes: 16, written_bytes: 16 });
        assert_eq!(qp.kinds(), vec![WrKind::Write, WrKind::Reply, WrKind::Read, WrKind::Read]);
        queue.completed(WrKind::Read);
        queue.pump(&qp, |_| {}).expect("pump");
        assert_eq!(qp.kinds().len(), 5, "the third Read goes once one has completed");
    }

    #[test]
    fn a_full_provider_queue_keeps_the_request_for_later_in_order() {
        let qp = Recorder { room: 1, ..Default::default() };
        let mut queue = WorkQueue::new(8, 1);
        queue.push(
            WrTag::new(WrKind::Write, 2),
            Work::Write { sources: smallvec::smallvec![Bytes::from_static(&[1; 16])], remote: remote(16) },
        );
        queue.push(WrTag::new(WrKind::Reply, 2), Work::Send { message: vec![0; 28] });
        queue.pump(&qp, |_| {}).expect("the second waits");
        assert_eq!(qp.kinds(), vec![WrKind::Write]);
        assert!(!queue.is_idle());
        let stuck = Recorder { room: 0, ..Default::default() };
        let mut empty = WorkQueue::new(8, 1);
        empty.push(WrTag::new(WrKind::Error, 0), Work::Send { message: vec![0; 20] });
        assert!(empty.pump(&stuck, |_| {}).is_err(), "full with nothing outstanding can never drain");
    }

    #[test]
    fn work_request_ids_round_trip_kind_and_call() {
        for kind in [WrKind::Recv, WrKind::Read, WrKind::Write, WrKind::Reply, WrKind::Error, WrKind::Backward] {
            let tag = WrTag::new(kind, 0x1234_5678_9abc);
            assert_eq!(WrTag::decode(tag.encode()), Some(tag));
        }
        assert_eq!(WrTag::decode(0), Some(WrTag { kind: WrKind::Recv, call: 0 }));
        assert_eq!(WrTag::decode(u64::MAX), None);
    }

    #[test]
    fn completions_free_room_by_kind() {
        let mut queue = WorkQueue::new(4, 2);
        queue.outstanding = 3;
        queue.reads_outstanding = 2;
        queue.completed(WrKind::Read);
        queue.completed(WrKind::Reply);
        queue.completed(WrKind::Recv);
        assert_eq!((queue.outstanding, queue.reads_outstanding), (1, 1));
        queue.completed(WrKind::Write);
        queue.completed(WrKind::Write);
        assert!(queue.is_idle(), "never below zero");
    }
}
