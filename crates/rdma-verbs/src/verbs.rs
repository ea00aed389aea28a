//! libibverbs objects of one connection, each owning its handle and holding an `Arc` of what must
//! outlive it:
//! - [`Pd`] (protection domain) holds the [`CmId`], whose device context it was allocated on;
//! - an `ibv_mr` (see `mr`) holds the [`Pd`]: a region handed to the caller keeps the PD alive however
//!   long the caller keeps the region;
//! - [`Cq`] (completion queue and its completion channel, watched by tokio) holds the [`CmId`];
//! - [`RawQp`] (made by `rdma_create_qp` on the id) holds the [`Cq`], the [`Pd`] and the [`CmId`], so
//!   it is destroyed before any of them.
#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use rdma::RdmaError;
use rdma_sys as sys;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use crate::channel::set_nonblocking;
use crate::cm::CmId;

/// A protection domain on the device of a connection's id.
#[derive(Debug)]
pub(crate) struct Pd {
    pub(crate) raw: NonNull<sys::ibv_pd>,
    /// The device context belongs to librdmacm and stays open while the id lives.
    _id: Arc<CmId>,
}

// SAFETY: libibverbs objects may be used from any thread (the library and providers lock internally).
unsafe impl Send for Pd {}
// SAFETY: as above.
unsafe impl Sync for Pd {}

impl Drop for Pd {
    fn drop(&mut self) {
        // SAFETY: every MR and QP on the PD holds an Arc of it, so none is left.
        unsafe { sys::ibv_dealloc_pd(self.raw.as_ptr()) };
    }
}

impl Pd {
    pub(crate) fn alloc(id: &Arc<CmId>) -> Result<Arc<Pd>, RdmaError> {
        // SAFETY: the id's context is open while the id lives (we keep an Arc of it).
        let raw = unsafe { sys::ibv_alloc_pd(id.context()) };
        let raw = NonNull::new(raw).ok_or_else(|| RdmaError::io("ibv_alloc_pd", io::Error::last_os_error()))?;
        Ok(Arc::new(Pd { raw, _id: id.clone() }))
    }
}

#[derive(Debug)]
struct ChannelFd(RawFd);

impl AsRawFd for ChannelFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// Owns the CQ and its completion channel.
#[derive(Debug)]
struct RawCq {
    cq: NonNull<sys::ibv_cq>,
    channel: NonNull<sys::ibv_comp_channel>,
    _id: Arc<CmId>,
}

// SAFETY: see Pd.
unsafe impl Send for RawCq {}
// SAFETY: see Pd.
unsafe impl Sync for RawCq {}

impl Drop for RawCq {
    fn drop(&mut self) {
        // SAFETY: the QP using the CQ holds an Arc of the Cq, so it is gone; every CQ event was acked
        // when read; the reactor registration of the channel's descriptor was dropped first.
        unsafe {
            sys::ibv_destroy_cq(self.cq.as_ptr());
            sys::ibv_destroy_comp_channel(self.channel.as_ptr());
        }
    }
}

/// A completion queue whose completion channel is watched by tokio.
#[derive(Debug)]
pub(crate) struct Cq {
    /// Dropped before `raw`, which closes the descriptor.
    fd: AsyncFd<ChannelFd>,
    raw: RawCq,
    armed: AtomicBool,
}

impl Cq {
    /// A CQ of `entries` signalled on completion vector `vector` modulo the device's vectors.
    pub(crate) fn create(id: &Arc<CmId>, entries: u32, vector: u32) -> Result<Arc<Cq>, RdmaError> {
        let context = id.context();
        // SAFETY: reading a field of the id's live context.
        let vectors = unsafe { (*context).num_comp_vectors }.max(1);
        let vector = i32::try_from(vector).unwrap_or(i32::MAX) % vectors;
        let entries = i32::try_from(entries).map_err(|_| RdmaError::Invalid(format!("{entries} CQ entries")))?;
        // SAFETY: the id's context is open while the id lives (held by RawCq).
        let channel = NonNull::new(unsafe { sys::ibv_create_comp_channel(context) })
            .ok_or_else(|| RdmaError::io("ibv_create_comp_channel", io::Error::last_os_error()))?;
        // SAFETY: as above; the channel outlives the CQ (RawCq destroys the CQ first).
        let cq = unsafe { sys::ibv_create_cq(context, entries, ptr::null_mut(), channel.as_ptr(), vector) };
        let Some(cq) = NonNull::new(cq) else {
            let err = io::Error::last_os_error();
            // SAFETY: the channel was created above and nothing uses it.
            unsafe { sys::ibv_destroy_comp_channel(channel.as_ptr()) };
            return Err(RdmaError::io("ibv_create_cq", err));
        };
        let raw = RawCq { cq, channel, _id: id.clone() };
        // SAFETY: a live channel.
        let fd = unsafe { (*channel.as_ptr()).fd };
        set_nonblocking(fd).map_err(|e| RdmaError::io("fcntl(O_NONBLOCK) on the completion channel", e))?;
        // SAFETY: the descriptor stays open until `raw` is dropped, after this AsyncFd (field order).
        let fd = unsafe { AsyncFd::register_with_interest(ChannelFd(fd), Interest::READABLE) }
            .map_err(|e| RdmaError::io("registering the completion channel with tokio", e.into()))?;
        Ok(Arc::new(Cq { fd, raw, armed: AtomicBool::new(false) }))
    }

    /// Moves up to `wcs.len()` completions into `wcs`; returns how many.
    pub(crate) fn poll(&self, wcs: &mut [sys::ibv_wc]) -> Result<usize, RdmaError> {
        let room = i32::try_from(wcs.len()).unwrap_or(i32::MAX);
        // SAFETY: the CQ is live and `wcs` has room for `room` entries.
        let n = unsafe { sys::nfsbench_ibv_poll_cq(self.raw.cq.as_ptr(), room, wcs.as_mut_ptr()) };
        usize::try_from(n).map_err(|_| RdmaError::io("ibv_poll_cq", io::Error::other(format!("returned {n}"))))
    }

    /// Waits until completions may have arrived: the first call after a notification arms the CQ and
    /// is ready at once (completions that came before arming raise no event, so the caller polls
    /// again); later calls wait for the completion event.
    pub(crate) fn poll_wait(&self, cx: &mut Context<'_>) -> Poll<Result<(), RdmaError>> {
        if !self.armed.swap(true, Ordering::AcqRel) {
            // SAFETY: the CQ is live.
            let rc = unsafe { sys::nfsbench_ibv_req_notify_cq(self.raw.cq.as_ptr(), 0) };
            if rc != 0 {
                self.armed.store(false, Ordering::Release);
                return Poll::Ready(Err(RdmaError::io("ibv_req_notify_cq", io::Error::from_raw_os_error(rc.abs()))));
            }
            return Poll::Ready(Ok(()));
        }
        loop {
            let mut guard =
                ready!(self.fd.poll_read_ready(cx)).map_err(|e| RdmaError::io("polling the completion channel", e))?;
            let (mut cq, mut context) = (ptr::null_mut(), ptr::null_mut());
            // SAFETY: the channel is live and non-blocking; the event returned is acked at once.
            if unsafe { sys::ibv_get_cq_event(self.raw.channel.as_ptr(), &mut cq, &mut context) } == 0 {
                // SAFETY: `cq` is our CQ (the only one on this channel); one event to ack.
                unsafe { sys::ibv_ack_cq_events(cq, 1) };
                self.armed.store(false, Ordering::Release);
                return Poll::Ready(Ok(()));
            }
            let err = io::Error::last_os_error();
            if err.kind() != io::ErrorKind::WouldBlock {
                return Poll::Ready(Err(RdmaError::io("ibv_get_cq_event", err)));
            }
            guard.clear_ready();
        }
    }
}

/// A reliable-connected QP created with `rdma_create_qp` on the connection's id.
#[derive(Debug)]
pub(crate) struct RawQp {
    qp: NonNull<sys::ibv_qp>,
    id: Arc<CmId>,
    _cq: Arc<Cq>,
    _pd: Arc<Pd>,
}

// SAFETY: see Pd; posting to one QP from several threads is allowed by libibverbs.
unsafe impl Send for RawQp {}
// SAFETY: as above.
unsafe impl Sync for RawQp {}

impl Drop for RawQp {
    fn drop(&mut self) {
        // SAFETY: the id, CQ and PD are alive (held here); no work request runs after this, so the
        // memory of pending requests may be released afterwards.
        unsafe { sys::rdma_destroy_qp(self.id.as_ptr()) };
    }
}

fn posted(op: &'static str, rc: libc::c_int) -> Result<(), RdmaError> {
    match rc {
        0 => Ok(()),
        rc => Err(RdmaError::io(op, io::Error::from_raw_os_error(rc.abs()))),
    }
}

impl RawQp {
    /// An RC QP with `max_send`/`max_recv` work requests, of `send_sge` scatter/gather elements at
    /// most on the send queue (a gather RDMA Write) and of one on the receive queue.
    pub(crate) fn create(
        id: &Arc<CmId>,
        pd: &Arc<Pd>,
        cq: &Arc<Cq>,
        max_send: u32,
        max_recv: u32,
        send_sge: u32,
    ) -> Result<RawQp, RdmaError> {
        let mut attr = sys::ibv_qp_init_attr {
            send_cq: cq.raw.cq.as_ptr(),
            recv_cq: cq.raw.cq.as_ptr(),
            qp_type: sys::ibv_qp_type::IBV_QPT_RC,
            sq_sig_all: 0,
            ..Default::default()
        };
        attr.cap.max_send_wr = max_send;
        attr.cap.max_recv_wr = max_recv;
        attr.cap.max_send_sge = send_sge.max(1);
        attr.cap.max_recv_sge = 1;
        // SAFETY: id, PD and CQ are live and outlive the QP (held by RawQp).
        let rc = unsafe { sys::rdma_create_qp(id.as_ptr(), pd.raw.as_ptr(), &mut attr) };
        if rc != 0 {
            return Err(RdmaError::io("rdma_create_qp", io::Error::last_os_error()));
        }
        // SAFETY: rdma_create_qp succeeded, so the id's qp field is set.
        let qp = NonNull::new(unsafe { (*id.as_ptr()).qp })
            .ok_or_else(|| RdmaError::Invalid("rdma_create_qp left no QP on the id".into()))?;
        Ok(RawQp { qp, id: id.clone(), _cq: cq.clone(), _pd: pd.clone() })
    }

    /// A signaled Send of `len` bytes at `addr`.
    ///
    /// # Safety
    /// `addr..addr+len` lies in memory registered with `lkey` on this QP's PD, which must stay
    /// registered and unmodified until the request's completion has been polled.
    pub(crate) unsafe fn post_send(&self, wr_id: u64, addr: u64, len: u32, lkey: u32) -> Result<(), RdmaError> {
        // SAFETY: upheld by the caller.
        posted("ibv_post_send", unsafe { sys::nfsbench_ibv_post_send(self.qp.as_ptr(), wr_id, addr, len, lkey) })
    }

    /// A signaled RDMA Write (`write`) or RDMA Read between local memory and the peer's.
    ///
    /// # Safety
    /// As for `post_send`; for a Read, the local memory must also be writable and not read or written
    /// by anyone else until the completion.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn post_rdma(
        &self,
        write: bool,
        wr_id: u64,
        addr: u64,
        len: u32,
        lkey: u32,
        remote_addr: u64,
        rkey: u32,
    ) -> Result<(), RdmaError> {
        let op = if write { "ibv_post_send(RDMA_WRITE)" } else { "ibv_post_send(RDMA_READ)" };
        // SAFETY: upheld by the caller.
        let rc = unsafe {
            sys::nfsbench_ibv_post_rdma(self.qp.as_ptr(), i32::from(write), wr_id, addr, len, lkey, remote_addr, rkey)
        };
        posted(op, rc)
    }

    /// A signaled RDMA Write of `sges`, in order, to `remote_addr`/`rkey`.
    ///
    /// # Safety
    /// Each element lies in memory registered with its lkey on this QP's PD, which stays registered
    /// and unmodified until the request's completion has been polled; at most the QP's `send_sge`.
    pub(crate) unsafe fn post_write_sgl(
        &self,
        wr_id: u64,
        sges: &mut [sys::ibv_sge],
        remote_addr: u64,
        rkey: u32,
    ) -> Result<(), RdmaError> {
        let count = libc::c_int::try_from(sges.len()).map_err(|_| RdmaError::Invalid("too many elements".into()))?;
        // SAFETY: upheld by the caller; the element array is read during the call only.
        let rc = unsafe {
            sys::nfsbench_ibv_post_write_sgl(self.qp.as_ptr(), wr_id, sges.as_mut_ptr(), count, remote_addr, rkey)
        };
        posted("ibv_post_send(RDMA_WRITE, gather)", rc)
    }

    /// A signaled IBV_WR_BIND_MW of `mw` under `rkey` to `len` bytes at `addr` of `mr`, with `access`
    /// (ibv_access_flags).
    ///
    /// # Safety
    /// `mr` is live, registered on this QP's PD with IBV_ACCESS_MW_BIND and covers the range, and stays
    /// so while the window is bound; `mw` is a type-2 window of this PD, kept until the completion.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn post_bind_mw(
        &self,
        wr_id: u64,
        mw: *mut sys::ibv_mw,
        rkey: u32,
        mr: *mut sys::ibv_mr,
        addr: u64,
        len: u64,
        access: u32,
    ) -> Result<(), RdmaError> {
        // SAFETY: upheld by the caller.
        let rc = unsafe { sys::nfsbench_ibv_post_bind_mw(self.qp.as_ptr(), wr_id, mw, rkey, mr, addr, len, access) };
        posted("ibv_post_send(BIND_MW)", rc)
    }

    /// A signaled IBV_WR_LOCAL_INV of `rkey`.
    ///
    /// # Safety
    /// `rkey` names a memory window bound on this QP, kept until the completion.
    pub(crate) unsafe fn post_local_inv(&self, wr_id: u64, rkey: u32) -> Result<(), RdmaError> {
        // SAFETY: upheld by the caller.
        posted("ibv_post_send(LOCAL_INV)", unsafe { sys::nfsbench_ibv_post_local_inv(self.qp.as_ptr(), wr_id, rkey) })
    }

    /// One receive of `len` bytes at `addr`.
    ///
    /// # Safety
    /// `addr..addr+len` is writable memory registered with `lkey` (local write) on this QP's PD, which
    /// no one reads or writes until the completion has been polled.
    pub(crate) unsafe fn post_recv(&self, wr_id: u64, addr: u64, len: u32, lkey: u32) -> Result<(), RdmaError> {
        // SAFETY: upheld by the caller.
        posted("ibv_post_recv", unsafe { sys::nfsbench_ibv_post_recv(self.qp.as_ptr(), wr_id, addr, len, lkey) })
    }
}
