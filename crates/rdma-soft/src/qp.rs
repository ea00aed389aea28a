//! The queue pair: posted receives, Sends through the message channel, the completion queue, and the
//! connection's end (every outstanding request flushed, then `Disconnected`), and the memory the peer
//! may reach: registrations, the pool, windows.
//!
//! Credits are exact: a Send is delivered only when the peer's published count of posted receives is
//! ahead of the Sends delivered so far; otherwise it fails with `ReceiverNotReady` and breaks the
//! connection, as RC does with `rnr_retry = 0`. One-sided operations live in [`crate::onesided`].

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use bytes::Bytes;
use rdma::{
    Access, Completion, CompletionKind, ConnectionInfo, MemoryRegion, QpConfig, RdmaError, RegBuf, RemoteSegment,
    WcError, Window, WrId,
};

use crate::channel::{Channel, ChannelError};
use crate::establish::PeerPool;
use crate::keytable::{LocalTable, RemoteTable, SlotRegistration, Sweep};

/// Messages taken from the channel per poll, so one busy peer cannot hold the poller forever.
const RECV_BATCH: usize = 256;

/// Which queue an entry of the completion queue frees a place in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queue {
    Recv,
    Send,
    Read,
}

/// Everything the handshake established.
#[derive(Debug)]
pub(crate) struct Established {
    pub channel: Box<dyn Channel>,
    pub local: Arc<LocalTable>,
    /// This side's pool, registered in `local`.
    pub pool: Option<MemoryRegion>,
    /// The peer's pool, mapped here.
    pub peer_pool: Option<PeerPool>,
    pub remote: RemoteTable,
    pub peer_pid: i32,
    pub info: ConnectionInfo,
    pub config: QpConfig,
    pub peer_recv_size: u32,
    /// Receives already posted (and published) during the handshake.
    pub posted: u64,
}

/// One soft RC queue pair.
#[derive(Debug)]
pub(crate) struct SoftQp {
    pub(crate) local: Arc<LocalTable>,
    pool: Option<MemoryRegion>,
    pub(crate) peer_pool: Option<PeerPool>,
    pub(crate) remote: RemoteTable,
    pub(crate) peer_pid: i32,
    pub(crate) info: ConnectionInfo,
    pub(crate) config: QpConfig,
    peer_recv_size: u32,
    state: Mutex<State>,
}

#[derive(Debug)]
pub(crate) struct State {
    channel: Box<dyn Channel>,
    cq: VecDeque<(Completion, Queue)>,
    waker: Option<Waker>,
    /// Sends delivered to the peer: each used one of its posted receives.
    sent: u64,
    /// Receives posted here, in total (published to the peer).
    posted: u64,
    /// Receives filled or flushed here, in total.
    consumed: u64,
    /// Sends, Reads and Writes whose completions have not been polled yet.
    pub(crate) send_busy: u32,
    /// RDMA Reads whose completions have not been polled yet.
    pub(crate) read_busy: u32,
    pub(crate) down: bool,
    /// Wakes the poller when a quarantined slot's [`crate::keytable::HOLD_LIMIT`] runs out.
    hold_timer: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl SoftQp {
    pub(crate) fn new(e: Established) -> SoftQp {
        let state = State {
            channel: e.channel,
            cq: VecDeque::new(),
            waker: None,
            sent: 0,
            posted: e.posted,
            consumed: 0,
            send_busy: 0,
            read_busy: 0,
            down: false,
            hold_timer: None,
        };
        SoftQp {
            local: e.local,
            pool: e.pool,
            peer_pool: e.peer_pool,
            remote: e.remote,
            peer_pid: e.peer_pid,
            info: e.info,
            config: e.config,
            peer_recv_size: e.peer_recv_size,
            state: Mutex::new(state),
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues a completion and wakes the poller.
    pub(crate) fn complete(&self, state: &mut State, completion: Completion, queue: Queue) {
        state.cq.push_back((completion, queue));
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    /// Takes the connection down: the peer's accesses end, the channel closes (the peer reads its
    /// end), and every posted receive completes flushed.
    pub(crate) fn fail(&self, state: &mut State, why: &str) {
        if state.down {
            return;
        }
        tracing::debug!(peer = ?self.info.peer, why, "soft RDMA connection down");
        state.down = true;
        self.local.close();
        state.channel.close();
        for _ in state.consumed..state.posted {
            state.cq.push_back((Completion { wr_id: 0, result: Err(WcError::Flushed) }, Queue::Recv));
        }
        state.consumed = state.posted;
        if let Some(waker) = state.waker.take() {
            waker.wake();
        }
    }

    /// Reserves a place in the send queue (and the read depth for an RDMA Read).
    pub(crate) fn reserve(&self, state: &mut State, read: bool) -> Result<(), RdmaError> {
        if state.down {
            return Err(RdmaError::Disconnected);
        }
        if state.send_busy >= self.config.max_send {
            return Err(RdmaError::QueueFull { queue: "send", depth: self.config.max_send });
        }
        if read && u32::from(self.info.initiator_depth) <= state.read_busy {
            // Initiator depth negotiated at connect: min(ours, the peer's responder resources).
            return Err(RdmaError::QueueFull { queue: "RDMA Read", depth: self.info.initiator_depth.into() });
        }
        state.send_busy += 1;
        state.read_busy += u32::from(read);
        Ok(())
    }

    pub(crate) fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
        if self.lock().down {
            return Err(RdmaError::Disconnected);
        }
        if matches!(buf, RegBuf::Pool(_)) {
            return Err(RdmaError::Invalid("a pool is the provider's own memory: open windows into it".into()));
        }
        let writes = Access::LOCAL_WRITE | Access::REMOTE_WRITE;
        if !matches!(buf, RegBuf::Writable(_)) && access.bits() & writes.bits() != 0 {
            return Err(RdmaError::Invalid("a read-only buffer cannot be registered with write access".into()));
        }
        let start = match &buf {
            RegBuf::ReadOnly(b) => b.as_ptr() as usize,
            RegBuf::Writable(v) => v.as_ptr() as usize,
            RegBuf::Pool(p) => p.start_addr(),
        };
        let handle = self.local.register(start, buf.len(), access)?;
        let remote = access.contains(Access::REMOTE_READ) || access.contains(Access::REMOTE_WRITE);
        let registration = Box::new(SlotRegistration { table: self.local.clone(), handle, remote });
        Ok(MemoryRegion::new(buf, access, handle, handle, start as u64, registration))
    }

    /// A window: a key-table slot of its own over `len` bytes of `region` from `offset` (no system
    /// call, no registration), closed by deregistering the slot under the table's quarantine rules.
    pub(crate) fn open_window(
        &self,
        region: &MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<Window, RdmaError> {
        if self.lock().down {
            return Err(RdmaError::Disconnected);
        }
        if region.is_invalidated() || !self.local.is_live(region.local_key(), region.start_addr()) {
            return Err(RdmaError::Invalid("a window opens only into a region registered on this connection".into()));
        }
        if offset.checked_add(len).is_none_or(|end| end > region.len()) {
            let size = region.len();
            return Err(RdmaError::Invalid(format!(
                "a window of {len} bytes at {offset} leaves the region ({size} bytes)"
            )));
        }
        let remote = Access::REMOTE_READ.bits() | Access::REMOTE_WRITE.bits();
        if access.bits() & remote == 0 || access.bits() & !(remote | Access::LOCAL_WRITE.bits()) != 0 {
            return Err(RdmaError::Invalid(format!("a window gives remote read or write, not {access:?}")));
        }
        if access.contains(Access::REMOTE_WRITE) && !region.is_writable() {
            return Err(RdmaError::Invalid("a window with remote write needs a writable region".into()));
        }
        let start = region.start_addr() + offset;
        let handle = self.local.window(start, len, access)?;
        let registration = Box::new(SlotRegistration { table: self.local.clone(), handle, remote: true });
        Ok(Window::new(region.clone(), offset, len, access, handle, start as u64, registration))
    }

    pub(crate) fn post_recvs(&self, count: u32) -> Result<(), RdmaError> {
        let mut state = self.lock();
        if state.down {
            return Err(RdmaError::Disconnected);
        }
        let outstanding = state.posted - state.consumed;
        if outstanding + u64::from(count) > u64::from(self.config.max_recv) {
            return Err(RdmaError::QueueFull { queue: "receive", depth: self.config.max_recv });
        }
        state.posted += u64::from(count);
        self.local.publish_posted(state.posted);
        Ok(())
    }

    pub(crate) fn post_send(&self, wr_id: WrId, message: &[&[u8]]) -> Result<(), RdmaError> {
        let mut guard = self.lock();
        let state = &mut *guard;
        self.reserve(state, false)?;
        let len: usize = message.iter().map(|part| part.len()).sum();
        let limit = self.peer_recv_size as usize;
        if len > limit {
            self.complete(state, Completion { wr_id, result: Err(WcError::Length { len, limit }) }, Queue::Send);
            self.fail(state, "message longer than the peer's receive buffers");
            return Ok(());
        }
        // RFC 8166 §3.3.1: a Send needs a receive posted at the peer (RC with rnr_retry = 0 fails it).
        if self.remote.posted() <= state.sent {
            self.complete(state, Completion { wr_id, result: Err(WcError::ReceiverNotReady) }, Queue::Send);
            self.fail(state, "send without a receive posted at the peer");
            return Ok(());
        }
        match state.channel.send(message) {
            Ok(()) => {
                state.sent += 1;
                self.complete(state, Completion { wr_id, result: Ok(CompletionKind::Send) }, Queue::Send);
            }
            Err(e) => {
                self.complete(state, Completion { wr_id, result: Err(WcError::Flushed) }, Queue::Send);
                self.fail(state, &e.to_string());
            }
        }
        Ok(())
    }

    pub(crate) fn poll_completions(
        &self,
        cx: &mut Context<'_>,
        out: &mut Vec<Completion>,
    ) -> Poll<Result<(), RdmaError>> {
        let mut guard = self.lock();
        let state = &mut *guard;
        if !state.down {
            self.watch_quarantine(cx, state);
        }
        if !state.down {
            let State { channel, cq, posted, consumed, .. } = &mut *state;
            let mut overrun = false;
            let polled = channel.poll_recv(cx, RECV_BATCH, &mut |bytes| {
                if *consumed == *posted {
                    overrun = true;
                    return;
                }
                *consumed += 1;
                cq.push_back((Completion { wr_id: 0, result: Ok(CompletionKind::Recv(bytes)) }, Queue::Recv));
            });
            if overrun {
                self.fail(state, "the peer sent more messages than receives were posted");
            } else if let Poll::Ready(Err(e)) = polled {
                if !matches!(e, ChannelError::Closed) {
                    tracing::warn!(peer = ?self.info.peer, "soft RDMA channel: {e}");
                }
                self.fail(state, &e.to_string());
            }
        }
        if !state.cq.is_empty() {
            for (completion, queue) in state.cq.drain(..) {
                match queue {
                    Queue::Recv => {}
                    Queue::Send => state.send_busy -= 1,
                    Queue::Read => {
                        state.send_busy -= 1;
                        state.read_busy -= 1;
                    }
                }
                out.push(completion);
            }
            return Poll::Ready(Ok(()));
        }
        if state.down {
            return Poll::Ready(Err(RdmaError::Disconnected));
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Ends quarantines the peer's counters allow and breaks the connection of a peer that holds a
    /// deregistered slot past [`crate::keytable::HOLD_LIMIT`]; otherwise arms the timer for the next limit. Never waits.
    fn watch_quarantine(&self, cx: &mut Context<'_>, state: &mut State) {
        self.local.set_poller(cx.waker());
        loop {
            match self.local.sweep(Instant::now) {
                Sweep::Clear => {
                    state.hold_timer = None;
                    return;
                }
                Sweep::Overdue { slot, held } => {
                    // The peer keeps a copy "in flight" far beyond any honest one: it loses its connection.
                    tracing::warn!(peer = ?self.info.peer, pid = self.peer_pid, slot, ?held,
                        "soft RDMA peer holds a deregistered region past the limit: disconnecting");
                    state.hold_timer = None;
                    self.fail(state, "the peer held a deregistered region past the limit");
                    return;
                }
                Sweep::Until(at) => {
                    let at = tokio::time::Instant::from_std(at);
                    let timer = match &mut state.hold_timer {
                        Some(timer) if timer.deadline() == at => timer,
                        slot => slot.insert(Box::pin(tokio::time::sleep_until(at))),
                    };
                    if timer.as_mut().poll(cx).is_pending() {
                        return;
                    }
                    state.hold_timer = None;
                }
            }
        }
    }

    pub(crate) fn disconnect(&self) {
        let mut state = self.lock();
        self.fail(&mut state, "disconnect requested");
    }
}

impl Drop for SoftQp {
    fn drop(&mut self) {
        self.disconnect();
    }
}

impl rdma::QueuePair for SoftQp {
    fn info(&self) -> ConnectionInfo {
        self.info.clone()
    }

    fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
        SoftQp::register(self, buf, access)
    }

    fn pool(&self) -> Option<MemoryRegion> {
        self.pool.clone()
    }

    fn open_window(
        &self,
        region: &MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<Window, RdmaError> {
        SoftQp::open_window(self, region, offset, len, access)
    }

    fn post_write_gather(&self, wr_id: WrId, sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
        self.write_gather(wr_id, sources, remote)
    }

    fn registrations(&self) -> u64 {
        self.local.registrations()
    }

    fn post_recvs(&self, count: u32) -> Result<(), RdmaError> {
        SoftQp::post_recvs(self, count)
    }

    fn post_send(&self, wr_id: WrId, message: &[&[u8]]) -> Result<(), RdmaError> {
        SoftQp::post_send(self, wr_id, message)
    }

    fn post_read(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        self.one_sided(wr_id, local, offset, remote, crate::onesided::Op::Read)
    }

    fn post_write(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        self.one_sided(wr_id, local, offset, remote, crate::onesided::Op::Write)
    }

    fn poll_completions(&self, cx: &mut Context<'_>, out: &mut Vec<Completion>) -> Poll<Result<(), RdmaError>> {
        SoftQp::poll_completions(self, cx, out)
    }

    fn disconnect(&self) {
        SoftQp::disconnect(self)
    }

    fn peer_one_sided(&self) -> Option<rdma::PeerOneSided> {
        Some(self.remote.one_sided())
    }
}
