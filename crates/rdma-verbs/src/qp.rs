//! [`VerbsQueuePair`]: `rdma::QueuePair` over one RC queue pair.
//!
//! Every posted request is entered in a table keyed by its (internal) work-request id together with
//! what it uses: a pool slot, or a clone of the caller's [`MemoryRegion`]. The entry leaves the table
//! only when the request's completion is polled (or when the QP is destroyed), so registered memory
//! lives and stays registered while the device may touch it. Fields are declared in destruction order:
//! QP, CQ and its channel, the table and pools (their MRs), the caller's pool, PD, RDMA-CM id.
//!
//! The data path without registrations: the pool ([`rdma::QueuePair::pool`], page-aligned memory
//! registered once at creation, see `memory`), windows into it (memory windows, see `window`), and
//! gather RDMA Writes whose elements use the pool's key where a source lies in the pool and a
//! registration of the source (counted, released at the completion) elsewhere. Every registration
//! is counted ([`rdma::QueuePair::registrations`]).
#![allow(unsafe_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use rdma::{
    Access, Completion, ConnectionInfo, MemoryRegion, QpConfig, RdmaError, RegBuf, RemoteSegment, Window, WrId,
};
use rdma_sys as sys;
use sys::rdma_cm_event_type as ev;

use crate::channel::CmEvent;
use crate::cm::CmId;
use crate::completion::{peer_recv_size, send_buffer_size, Pending};
use crate::device::DeviceLimits;
use crate::memory::PageMem;
use crate::mr::{register, register_pool, Mr};
use crate::pool::SlotPool;
use crate::state::State;
use crate::verbs::{Cq, Pd, RawQp};

/// Completions taken from the CQ per `ibv_poll_cq` call.
const POLL_BATCH: usize = 32;
/// Scatter/gather elements a gather RDMA Write puts in one work request, at most.
const GATHER_SGES: u32 = 16;

/// One RC connection over libibverbs.
#[derive(Debug)]
pub struct VerbsQueuePair {
    pub(crate) qp: Arc<RawQp>,
    cq: Arc<Cq>,
    pub(crate) state: Arc<Mutex<State>>,
    /// The caller's pool and its MR (windows are bound to it).
    pub(crate) pool: Option<(MemoryRegion, Arc<Mr>)>,
    pub(crate) pd: Arc<Pd>,
    id: Arc<CmId>,
    pub(crate) config: QpConfig,
    /// Scatter/gather elements per gather work request.
    pub(crate) send_sge: u32,
    /// Windows the send queue has room for beyond `config.max_send` (0: windows are registrations).
    pub(crate) window_room: u32,
    pub(crate) registrations: AtomicU64,
}

impl VerbsQueuePair {
    /// PD, CQ, QP, receive pool and the caller's pool on `id` (address and route resolved, or a
    /// connection request's id). Windows are memory windows when the device has type-2B ones; the
    /// send queue then holds room for a binding or an invalidation per caller request besides.
    pub(crate) fn create(
        id: Arc<CmId>,
        config: QpConfig,
        limits: &DeviceLimits,
        info: ConnectionInfo,
    ) -> Result<Self, RdmaError> {
        let window_room = if limits.memory_windows && config.pool_bytes > 0 {
            config.max_send.min(limits.max_qp_wr.saturating_sub(config.max_send))
        } else {
            0
        };
        let send_sge = limits.max_sge.clamp(1, GATHER_SGES);
        let entries = config.max_send.saturating_add(config.max_recv).saturating_add(window_room).min(limits.max_cqe);
        let pd = Pd::alloc(&id)?;
        let cq = Cq::create(&id, entries, config.comp_vector)?;
        let qp = Arc::new(RawQp::create(&id, &pd, &cq, config.max_send + window_room, config.max_recv, send_sge)?);
        let recv_pool = SlotPool::new(&pd, config.max_recv, config.recv_size, Access::LOCAL_WRITE)?;
        let state = State::new(recv_pool, info, config.recv_size as usize);
        let pool = match config.pool_bytes {
            0 => None,
            bytes => Some(register_pool(&pd, RegBuf::Pool(PageMem::new(bytes)?))?),
        };
        if config.pool_bytes > 0 && window_room == 0 {
            tracing::info!("this RDMA device has no type-2B memory windows: each window is a memory registration");
        }
        let registrations = AtomicU64::new(u64::from(pool.is_some()));
        let state = Arc::new(Mutex::new(state));
        Ok(VerbsQueuePair { qp, cq, state, pool, pd, id, config, send_sge, window_room, registrations })
    }

    /// Records what the connection set-up learnt and sizes the send buffers for the peer.
    pub(crate) fn established(&self, info: ConnectionInfo) -> Result<(), RdmaError> {
        let mut info = info;
        if self.config.pool_bytes > 0 && self.window_room == 0 {
            info.provider.push_str(" (no memory windows: a registration per window)");
        }
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

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Marks the connection down and tells the peer (once); outstanding requests then flush.
    pub(crate) fn go_down(&self, st: &mut State) {
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
    pub(crate) fn send_queue_room(&self, st: &State) -> Result<(), RdmaError> {
        self.send_queue_room_for(st, 1)
    }

    /// Checks that `n` requests may be added to the send queue.
    pub(crate) fn send_queue_room_for(&self, st: &State, n: u32) -> Result<(), RdmaError> {
        if st.down {
            return Err(RdmaError::Disconnected);
        }
        if st.send_queue.saturating_add(n) > self.config.max_send {
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
        let mut st = self.lock();
        // Windows still open close without posting: the QP serves nobody any more.
        st.down = true;
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
        let region = register(&self.pd, buf, access)?;
        self.registrations.fetch_add(1, Ordering::Relaxed);
        Ok(region)
    }

    fn pool(&self) -> Option<MemoryRegion> {
        self.pool.as_ref().map(|(region, _)| region.clone())
    }

    fn open_window(
        &self,
        region: &MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<Window, RdmaError> {
        VerbsQueuePair::open_window(self, region, offset, len, access)
    }

    fn post_write_gather(&self, wr_id: WrId, sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
        self.write_gather(wr_id, sources, remote)
    }

    fn registrations(&self) -> u64 {
        self.registrations.load(Ordering::Relaxed)
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
