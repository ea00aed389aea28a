//! RDMA-CM connection identifiers (librdmacm's `rdma_cm_id`, reliable-connected port space) and the
//! parameters offered when connecting or accepting.
#![allow(unsafe_code)]

use std::io;
use std::net::SocketAddr;
use std::ptr::{self, NonNull};
use std::sync::Arc;

use rdma::RdmaError;
use rdma_sys as sys;

use crate::addr::{socket_addr, RawSockAddr};
use crate::channel::EventChannel;

/// The largest private data RDMA-CM carries in a connection request on InfiniBand and RoCE (RC).
pub(crate) const MAX_PRIVATE_DATA: usize = 56;

/// What we offer when connecting or accepting (RDMA-CM's `rdma_conn_param`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConnParam {
    /// Sent as is: nothing is put in front, so the peer sees the RFC 8797 magic first.
    pub private_data: Vec<u8>,
    pub initiator_depth: u8,
    pub responder_resources: u8,
}

impl ConnParam {
    /// retry_count 7 (transport retries), rnr_retry_count 0: a Send that meets no posted receive fails
    /// at once, as RPC-over-RDMA's credits assume (RFC 8166 §3.3.1).
    fn to_sys(&self) -> sys::rdma_conn_param {
        sys::rdma_conn_param {
            private_data: self.private_data.as_ptr().cast(),
            private_data_len: u8::try_from(self.private_data.len()).unwrap_or(u8::MAX),
            responder_resources: self.responder_resources,
            initiator_depth: self.initiator_depth,
            flow_control: 1,
            retry_count: 7,
            rnr_retry_count: 0,
            ..Default::default()
        }
    }
}

/// Owns an `rdma_cm_id` of the RDMA_PS_TCP port space (reliable connected).
#[derive(Debug)]
pub(crate) struct CmId {
    raw: NonNull<sys::rdma_cm_id>,
    /// The channel its events arrive on: must outlive the id.
    channel: Arc<EventChannel>,
}

// SAFETY: librdmacm ids may be used from any thread; librdmacm locks its own state.
unsafe impl Send for CmId {}
// SAFETY: as above; the methods take &self and each is one librdmacm call.
unsafe impl Sync for CmId {}

impl Drop for CmId {
    fn drop(&mut self) {
        // SAFETY: the QP on this id (if any) was destroyed first (RawQp holds an Arc<CmId>), its events
        // were all acked, and the channel is still alive (we hold it).
        unsafe { sys::rdma_destroy_id(self.raw.as_ptr()) };
    }
}

fn check(op: &'static str, rc: libc::c_int) -> Result<(), RdmaError> {
    if rc == 0 {
        Ok(())
    } else {
        Err(RdmaError::io(op, io::Error::last_os_error()))
    }
}

impl CmId {
    /// Takes ownership of the id of a connection request read from `channel`.
    ///
    /// # Safety
    /// `raw` is a live id no one else owns, whose events arrive on `channel`.
    pub(crate) unsafe fn adopt(raw: NonNull<sys::rdma_cm_id>, channel: Arc<EventChannel>) -> CmId {
        CmId { raw, channel }
    }

    pub(crate) fn create(channel: &Arc<EventChannel>) -> Result<CmId, RdmaError> {
        let mut raw = ptr::null_mut();
        // SAFETY: the channel is live; `raw` receives an id we own from now on.
        let rc = unsafe {
            sys::rdma_create_id(channel.as_ptr(), &mut raw, ptr::null_mut(), sys::rdma_port_space::RDMA_PS_TCP)
        };
        check("rdma_create_id", rc)?;
        let raw = NonNull::new(raw).ok_or_else(|| RdmaError::Invalid("rdma_create_id returned no id".into()))?;
        Ok(CmId { raw, channel: channel.clone() })
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::rdma_cm_id {
        self.raw.as_ptr()
    }

    pub(crate) fn key(&self) -> usize {
        self.raw.as_ptr() as usize
    }

    pub(crate) fn channel(&self) -> &Arc<EventChannel> {
        &self.channel
    }

    /// Moves the id (and its queued events) to `to`; the old channel is released afterwards.
    pub(crate) fn migrate(&mut self, to: Arc<EventChannel>) -> Result<(), RdmaError> {
        // SAFETY: both channels are live; every event of this id was acked when read.
        check("rdma_migrate_id", unsafe { sys::rdma_migrate_id(self.as_ptr(), to.as_ptr()) })?;
        self.channel = to;
        Ok(())
    }

    pub(crate) fn resolve_addr(&self, addr: SocketAddr, timeout_ms: i32) -> Result<(), RdmaError> {
        let mut dst = RawSockAddr::new(addr);
        // SAFETY: `dst` lives across the call (librdmacm copies it); a null source lets it choose.
        let rc = unsafe { sys::rdma_resolve_addr(self.as_ptr(), ptr::null_mut(), dst.as_mut_ptr(), timeout_ms) };
        check("rdma_resolve_addr", rc)
    }

    pub(crate) fn resolve_route(&self, timeout_ms: i32) -> Result<(), RdmaError> {
        // SAFETY: a live id whose address was resolved.
        check("rdma_resolve_route", unsafe { sys::rdma_resolve_route(self.as_ptr(), timeout_ms) })
    }

    pub(crate) fn bind(&self, addr: SocketAddr) -> Result<(), RdmaError> {
        let mut local = RawSockAddr::new(addr);
        // SAFETY: `local` lives across the call (librdmacm copies it).
        check("rdma_bind_addr", unsafe { sys::rdma_bind_addr(self.as_ptr(), local.as_mut_ptr()) })
    }

    pub(crate) fn listen(&self, backlog: i32) -> Result<(), RdmaError> {
        // SAFETY: a live, bound id.
        check("rdma_listen", unsafe { sys::rdma_listen(self.as_ptr(), backlog) })
    }

    pub(crate) fn connect(&self, param: &ConnParam) -> Result<(), RdmaError> {
        let mut raw = param.to_sys();
        // SAFETY: `raw` points into `param`, which outlives the call (the private data is copied).
        check("rdma_connect", unsafe { sys::rdma_connect(self.as_ptr(), &mut raw) })
    }

    pub(crate) fn accept(&self, param: &ConnParam) -> Result<(), RdmaError> {
        let mut raw = param.to_sys();
        // SAFETY: as for connect.
        check("rdma_accept", unsafe { sys::rdma_accept(self.as_ptr(), &mut raw) })
    }

    pub(crate) fn reject(&self) {
        // SAFETY: a live id from a connection request; no private data.
        unsafe { sys::rdma_reject(self.as_ptr(), ptr::null(), 0) };
    }

    /// rdma_disconnect: the local QP moves to the error state (outstanding requests are flushed) and
    /// the peer is told.
    pub(crate) fn disconnect(&self) -> Result<(), RdmaError> {
        // SAFETY: a live id.
        check("rdma_disconnect", unsafe { sys::rdma_disconnect(self.as_ptr()) })
    }

    /// The device context the id is bound to (null before address resolution or binding to a device).
    pub(crate) fn context(&self) -> *mut sys::ibv_context {
        // SAFETY: reading a field of a live id.
        unsafe { (*self.as_ptr()).verbs }
    }

    pub(crate) fn local_addr(&self) -> Option<SocketAddr> {
        // SAFETY: the address lives inside the id, which outlives the call.
        unsafe { socket_addr(sys::nfsbench_rdma_get_local_addr(self.as_ptr())) }
    }

    pub(crate) fn peer_addr(&self) -> Option<SocketAddr> {
        // SAFETY: as for local_addr.
        unsafe { socket_addr(sys::nfsbench_rdma_get_peer_addr(self.as_ptr())) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_parameters_fail_fast_on_missing_receives_and_carry_private_data_verbatim() {
        let param = ConnParam {
            private_data: vec![0xf6, 0xab, 0x0e, 0x18, 1, 0, 3, 3],
            initiator_depth: 0,
            responder_resources: 16,
        };
        let raw = param.to_sys();
        assert_eq!((raw.rnr_retry_count, raw.retry_count), (0, 7));
        assert_eq!((raw.initiator_depth, raw.responder_resources), (0, 16));
        assert_eq!(raw.private_data_len, 8);
        assert_eq!(raw.private_data, param.private_data.as_ptr().cast());
    }
}
