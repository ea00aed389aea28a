//! [`VerbsQueuePair`]: `rdma::QueuePair` over one RC queue pair.
//!
//! Every posted request is entered in a table keyed by its (internal) work-request id together with
//! what it uses: a pool slot, or a clone of the caller's [`MemoryRegion`]. The entry leaves the table
//! only when the request's completion is polled (or when the QP is destroyed), so registered memory
//! lives and stays registered while the device may touch it. Fields are declared in destruction order:
//! QP, CQ and its channel, the table and pools (their MRs), PD, RDMA-CM id.
#![allow(unsafe_code)]

use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use rdma::{Access, Completion, ConnectionInfo, MemoryRegion, QpConfig, RdmaError, RegBuf, RemoteSegment, WrId};
use rdma_sys as sys;
use sys::rdma_cm_event_type as ev;

use crate::channel::CmEvent;
use crate::cm::CmId;
use crate::completion::{peer_recv_size, send_buffer_size, Pending};
use crate::mr::register;
use crate::pool::SlotPool;
use crate::state::State;
use crate::verbs::{Cq, Pd, RawQp};

/// Completions taken from the CQ per `ibv_poll_cq` call.
const POLL_BATCH: usize = 32;

/// One RC connection over libibverbs.
#[derive(Debug)]
pub struct VerbsQueuePair {
    qp: RawQp,
    cq: Arc<Cq>,
    state: Mutex<State>,
    pd: Arc<Pd>,
    id: Arc<CmId>,
    config: QpConfig,
}

impl VerbsQueuePair {
    /// PD, CQ, QP and receive pool on `id` (address and route resolved, or a connection request's id).
    pub(crate) fn create(id: Arc<CmId>, config: QpConfig, info: ConnectionInfo) -> Result<Self, RdmaError> {
        let entries = config.max_send.saturating_add(config.max_recv);
        let pd = Pd::alloc(&id)?;
        let cq = Cq::create(&id, entries)?;
        let qp = RawQp::create(&id, &pd, &cq, config.max_send, config.max_recv)?;
        let recv_pool = SlotPool::new(&pd, config.max_recv, config.recv_size, Access::LOCAL_WRITE)?;
        let state = State::new(recv_pool, info, config.recv_size as usize);
        Ok(VerbsQueuePair { qp, cq, state: Mutex::new(state), pd, id, config })
    }

    /// Records what the connection set-up learnt and sizes the send buffers for the peer.
    pub(crate) fn established(&self, info: ConnectionInfo) -> Result<(), RdmaError> {
        let size = send_buffer_size(self.config.recv_size, &info.peer_private_data);
        let send_pool = SlotPool::new(&self.pd, self.config.max_send, size, Access::NONE)?;
        let mut st = self.lock();
        st.limits.peer_recv_size = peer_recv_size(self.config.recv_size, &info.peer_private_data) as usize;
        st.send_pool = Some(send_pool);
        st.info = info;
        Ok(())
    }

    pub(crate) fn id(&self) -> &Arc<CmId> {
        &self.id
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks the connection down and tells the peer (once); outstanding requests then flush.
    fn go_down(&self, st: &mut State) {
        if st.mark_down() {
            if let Err(e) = self.id.disconnect() {
                tracing::debug!("rdma_disconnect: {e}");
            }
        }
    }

    fn on_cm_event(&self, event: CmEvent) {
        let mut st = self.lock();
        match event.kind {
            ev::RDMA_CM_EVENT_DISCONNECTED => self.go_down(&mut st),
            ev::RDMA_CM_EVENT_DEVICE_REMOVAL => {
                tracing::warn!("RDMA device removed under {:?}", st.info.local);
                self.go_down(&mut st);
                // The device completes nothing any more: everything outstanding ends here.
                st.flush_all();
            }
            _ => tracing::debug!("RDMA-CM {} (status {}) on an established connection", event.name(), event.status),
        }
    }

    fn poll_cm(&self, cx: &mut Context<'_>) {
        loop {
            match self.id.channel().poll_event(cx) {
                Poll::Ready(Ok(event)) => self.on_cm_event(event),
                Poll::Ready(Err(e)) => {
                    tracing::warn!("RDMA-CM channel failed: {e}");
                    let mut st = self.lock();
                    self.go_down(&mut st);
                    return;
                }
                Poll::Pending => return,
            }
        }
    }

    /// Moves every completion the CQ holds into `out`; returns how many were added.
    fn drain(&self, out: &mut Vec<Completion>) -> Result<usize, RdmaError> {
        let mut st = self.lock();
        let mut added = st.synthetic.len();
        out.append(&mut st.synthetic);
        let mut wcs = [sys::ibv_wc::default(); POLL_BATCH];
        loop {
            let n = self.cq.poll(&mut wcs)?;
            for wc in &wcs[..n] {
                if let Some(completion) = st.complete(wc) {
                    out.push(completion);
                    added += 1;
                }
            }
            if n < POLL_BATCH {
                break;
            }
        }
        if st.down && !st.disconnect_sent {
            // A request failed: the QP is in the error state; tell the peer.
            self.go_down(&mut st);
        }
        Ok(added)
    }

    /// Checks that a request may be added to the send queue.
    fn send_queue_room(&self, st: &State) -> Result<(), RdmaError> {
        if st.down {
            return Err(RdmaError::Disconnected);
        }
        if st.send_queue >= self.config.max_send {
            return Err(RdmaError::QueueFull { queue: "send", depth: self.config.max_send });
        }
        Ok(())
    }

    fn post_rdma(
        &self,
        write: bool,
        wr_id: WrId,
        local: &MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        let op = if write { "RDMA Write" } else { "RDMA Read" };
        let end = offset.checked_add(remote.length as usize).filter(|&end| end <= local.len());
        if end.is_none() {
            return Err(RdmaError::Invalid(format!(
                "{op} of {} bytes at offset {offset} leaves the {}-byte local region",
                remote.length,
                local.len()
            )));
        }
        if local.is_invalidated() {
            return Err(RdmaError::Invalid(format!("{op} with an invalidated local region")));
        }
        let writable = local.is_writable() && local.access().contains(Access::LOCAL_WRITE);
        if !write && !writable {
            return Err(RdmaError::Invalid("RDMA Read into a region not registered writable (LOCAL_WRITE)".into()));
        }
        let mut st = self.lock();
        self.send_queue_room(&st)?;
        let internal = st.next_wr_id();
        let region = local.clone();
        let addr = (local.start_addr() + offset) as u64;
        let pending =
            if write { Pending::Write { wr_id, _region: region } } else { Pending::Read { wr_id, _region: region } };
        st.pending.insert(internal, pending);
        // SAFETY: the range lies in `local` (checked), registered on this QP's PD with its L_key; the
        // table entry holds a clone of the region until the completion, so the memory stays alive and
        // registered; for a Read the region is Writable with LOCAL_WRITE and only the device writes it.
        let posted = unsafe {
            self.qp.post_rdma(write, internal, addr, remote.length, local.local_key(), remote.offset, remote.handle)
        };
        match posted {
            Ok(()) => {
                st.send_queue += 1;
                Ok(())
            }
            Err(e) => {
                st.pending.remove(&internal);
                Err(e)
            }
        }
    }
}

impl Drop for VerbsQueuePair {
    fn drop(&mut self) {
        let st = self.state.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        if !st.disconnect_sent {
            st.disconnect_sent = true;
            // The peer learns now rather than at its next failed request.
            let _ = self.id.disconnect();
        }
    }
}

impl rdma::QueuePair for VerbsQueuePair {
    fn info(&self) -> ConnectionInfo {
        self.lock().info.clone()
    }

    fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
        register(&self.pd, buf, access)
    }

    fn post_recvs(&self, count: u32) -> Result<(), RdmaError> {
        let mut st = self.lock();
        if st.down {
            return Err(RdmaError::Disconnected);
        }
        if st.recvs_posted.checked_add(count).is_none_or(|n| n > self.config.max_recv) {
            return Err(RdmaError::QueueFull { queue: "receive", depth: self.config.max_recv });
        }
        for _ in 0..count {
            let slot =
                st.recv_pool.take().ok_or(RdmaError::QueueFull { queue: "receive", depth: self.config.max_recv })?;
            let internal = st.next_wr_id();
            let (addr, lkey, len) = (st.recv_pool.addr(slot), st.recv_pool.lkey(), self.config.recv_size);
            st.pending.insert(internal, Pending::Recv { slot });
            // SAFETY: the slot was taken from the registered receive pool (LOCAL_WRITE, this PD) and
            // nobody touches it until its completion gives it back.
            if let Err(e) = unsafe { self.qp.post_recv(internal, addr, len, lkey) } {
                st.pending.remove(&internal);
                st.recv_pool.give(slot);
                return Err(e);
            }
            st.recvs_posted += 1;
        }
        Ok(())
    }

    fn post_send(&self, wr_id: WrId, message: &[&[u8]]) -> Result<(), RdmaError> {
        let len: usize = message.iter().map(|part| part.len()).sum();
        let mut guard = self.lock();
        let st = &mut *guard;
        self.send_queue_room(st)?;
        let Some(pool) = st.send_pool.as_mut() else {
            return Err(RdmaError::Invalid("Send before the connection was established".into()));
        };
        if len > pool.slot_size() {
            return Err(RdmaError::Invalid(format!(
                "message of {len} bytes longer than the {}-byte send buffers (the inline size)",
                pool.slot_size()
            )));
        }
        let slot = pool.take().ok_or(RdmaError::QueueFull { queue: "send", depth: self.config.max_send })?;
        // SAFETY: the slot was just taken and is not posted.
        unsafe { pool.fill(slot, message) };
        let (addr, lkey) = (pool.addr(slot), pool.lkey());
        let internal = st.next_wr_id();
        st.pending.insert(internal, Pending::Send { wr_id, slot, len });
        // SAFETY: the slot lies in the registered send pool (this PD) and stays untouched until the
        // completion gives it back; `len` fits in it (checked).
        match unsafe { self.qp.post_send(internal, addr, len as u32, lkey) } {
            Ok(()) => {
                st.send_queue += 1;
                Ok(())
            }
            Err(e) => {
                st.pending.remove(&internal);
                if let Some(pool) = st.send_pool.as_mut() {
                    pool.give(slot);
                }
                Err(e)
            }
        }
    }

    fn post_read(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        local_offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        self.post_rdma(false, wr_id, local, local_offset, remote)
    }

    fn post_write(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        local_offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        self.post_rdma(true, wr_id, local, local_offset, remote)
    }

    fn poll_completions(&self, cx: &mut Context<'_>, out: &mut Vec<Completion>) -> Poll<Result<(), RdmaError>> {
        self.poll_cm(cx);
        loop {
            match self.drain(out) {
                Ok(0) => {}
                Ok(_) => return Poll::Ready(Ok(())),
                Err(e) => return Poll::Ready(Err(e)),
            }
            {
                let mut st = self.lock();
                if st.down && st.pending.is_empty() {
                    return Poll::Ready(Err(RdmaError::Disconnected));
                }
                if !st.waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                    st.waker = Some(cx.waker().clone());
                }
            }
            match self.cq.poll_wait(cx) {
                Poll::Ready(Ok(())) => continue,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }

    fn disconnect(&self) {
        let mut st = self.lock();
        self.go_down(&mut st);
    }
}
