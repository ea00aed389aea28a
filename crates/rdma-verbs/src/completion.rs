//! What a work completion means: the requests in flight (kept until their completion, with whatever
//! must live that long) and the mapping of `ibv_wc_status` onto [`WcError`]. No I/O here.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use bytes::Bytes;
use rdma::{MemoryRegion, WcError, WrId};
use rdma_sys::ibv_wc_status::{self as status, Type as Status};
use rpcrdma_proto::ConnectPrivate;

use crate::window::Mw;

/// One posted work request, until its completion is polled.
#[derive(Debug)]
pub(crate) enum Pending {
    /// A receive into a slot of the receive pool.
    Recv { slot: u32 },
    /// A Send from a slot of the send pool.
    Send { wr_id: WrId, slot: u32, len: usize },
    /// An RDMA Read into `region`, which is held (so registered and alive) until the completion.
    Read { wr_id: WrId, _region: MemoryRegion },
    /// An RDMA Write from `region`, held likewise.
    Write { wr_id: WrId, _region: MemoryRegion },
    /// The last work request of a gather RDMA Write: the caller's sources and the registrations made
    /// for them, held until its completion (which comes after those of the earlier parts).
    Gather { wr_id: WrId, _sources: Vec<Bytes>, _regions: Vec<MemoryRegion> },
    /// An earlier work request of a gather RDMA Write (more sources than scatter/gather elements):
    /// silent on success; its failure is the caller's, and then `last`'s completion is swallowed.
    GatherPart { wr_id: WrId, last: u64 },
    /// The binding of a memory window, held until it completes.
    Bind { _mw: Arc<Mw> },
    /// The invalidation of a memory window: idle once it completes, and the window is free again.
    Invalidate { mw: Arc<Mw>, idle: Arc<AtomicBool> },
}

/// Which queue a pending request occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Queue {
    Recv,
    /// The caller's Sends, RDMA Reads and Writes.
    Send,
    /// Window bindings and invalidations (room of their own on the send queue).
    Window,
}

impl Pending {
    /// The caller's tag (receives report 0: they are posted in bulk).
    pub(crate) fn wr_id(&self) -> WrId {
        match self {
            Pending::Recv { .. } | Pending::Bind { .. } | Pending::Invalidate { .. } => 0,
            Pending::Send { wr_id, .. }
            | Pending::Read { wr_id, .. }
            | Pending::Write { wr_id, .. }
            | Pending::Gather { wr_id, .. }
            | Pending::GatherPart { wr_id, .. } => *wr_id,
        }
    }

    /// The queue the request takes a place in.
    pub(crate) fn queue(&self) -> Queue {
        match self {
            Pending::Recv { .. } => Queue::Recv,
            Pending::Bind { .. } | Pending::Invalidate { .. } => Queue::Window,
            _ => Queue::Send,
        }
    }
}

/// The message sizes a connection's errors are explained with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Our receive buffers.
    pub recv_size: usize,
    /// The peer's receive buffers as far as we know them (see [`peer_recv_size`]).
    pub peer_recv_size: usize,
}

/// The peer's receive size: what its RFC 8797 private data advertises (RFC 8797 §4), else our own
/// (RPC-over-RDMA peers without the message use one inline size both ways, RFC 8166 §3.3.2).
pub(crate) fn peer_recv_size(recv_size: u32, peer_private_data: &[u8]) -> u32 {
    ConnectPrivate::decode(peer_private_data).map_or(recv_size, |p| p.recv_size())
}

/// Bytes of each Send buffer: large enough for anything the peer can receive and for anything we could
/// receive ourselves, so that a caller clamping its sends to the peer's receive size never meets
/// [`rdma::RdmaError::Invalid`].
pub(crate) fn send_buffer_size(recv_size: u32, peer_private_data: &[u8]) -> u32 {
    peer_recv_size(recv_size, peer_private_data).max(recv_size)
}

/// The error a failed completion of `pending` reports. `name` is libibverbs' name for the status.
pub(crate) fn wc_error(code: Status, vendor_err: u32, pending: &Pending, limits: Limits, name: &str) -> WcError {
    match code {
        status::IBV_WC_WR_FLUSH_ERR => WcError::Flushed,
        status::IBV_WC_RNR_RETRY_EXC_ERR => WcError::ReceiverNotReady,
        status::IBV_WC_REM_ACCESS_ERR => {
            let what = match pending {
                Pending::Read { .. } => "RDMA Read",
                Pending::Write { .. } | Pending::Gather { .. } | Pending::GatherPart { .. } => "RDMA Write",
                _ => "request",
            };
            WcError::RemoteAccess(format!("{what} refused by the peer ({name}, vendor error {vendor_err:#x})"))
        }
        // The peer's receive buffer was too small for our Send (RFC 8166 §3.3.2: inline threshold).
        // Hardware reports REM_INV_REQ_ERR; rxe reports REM_OP_ERR.
        status::IBV_WC_REM_INV_REQ_ERR | status::IBV_WC_REM_OP_ERR => match pending {
            Pending::Send { len, .. } if *len > limits.peer_recv_size => {
                WcError::Length { len: *len, limit: limits.peer_recv_size }
            }
            _ => WcError::Other(format!("{name} (vendor error {vendor_err:#x})")),
        },
        // A message longer than our receive buffer arrived.
        status::IBV_WC_LOC_LEN_ERR => match pending {
            Pending::Recv { .. } => WcError::Other(format!(
                "{name}: a message longer than the {}-byte receive buffer arrived",
                limits.recv_size
            )),
            _ => WcError::Other(format!("{name} (vendor error {vendor_err:#x})")),
        },
        _ => WcError::Other(format!("{name} (vendor error {vendor_err:#x})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits { recv_size: 4096, peer_recv_size: 1024 };

    fn send(len: usize) -> Pending {
        Pending::Send { wr_id: 9, slot: 0, len }
    }

    #[test]
    fn statuses_map_onto_the_provider_errors() {
        let recv = Pending::Recv { slot: 0 };
        assert_eq!(wc_error(status::IBV_WC_WR_FLUSH_ERR, 0, &recv, LIMITS, "x"), WcError::Flushed);
        assert_eq!(wc_error(status::IBV_WC_RNR_RETRY_EXC_ERR, 0, &send(10), LIMITS, "x"), WcError::ReceiverNotReady);
        assert!(matches!(
            wc_error(status::IBV_WC_REM_ACCESS_ERR, 0x10, &send(10), LIMITS, "remote access error"),
            WcError::RemoteAccess(text) if text.contains("remote access error") && text.contains("0x10")
        ));
        assert_eq!(
            wc_error(status::IBV_WC_REM_INV_REQ_ERR, 0, &send(2000), LIMITS, "x"),
            WcError::Length { len: 2000, limit: 1024 }
        );
        assert_eq!(
            wc_error(status::IBV_WC_REM_OP_ERR, 0, &send(5000), LIMITS, "x"),
            WcError::Length { len: 5000, limit: 1024 }
        );
        assert!(matches!(wc_error(status::IBV_WC_REM_INV_REQ_ERR, 0, &send(100), LIMITS, "x"), WcError::Other(_)));
        assert!(matches!(wc_error(status::IBV_WC_REM_OP_ERR, 0, &recv, LIMITS, "x"), WcError::Other(_)));
        assert!(matches!(
            wc_error(status::IBV_WC_LOC_LEN_ERR, 0, &recv, LIMITS, "local length error"),
            WcError::Other(text) if text.contains("4096-byte")
        ));
        assert_eq!(
            wc_error(status::IBV_WC_GENERAL_ERR, 1, &recv, LIMITS, "general error"),
            WcError::Other("general error (vendor error 0x1)".into())
        );
    }

    #[test]
    fn send_buffers_fit_what_the_peer_advertises_it_can_receive() {
        let peer = ConnectPrivate::new(1024, 8192, false).encode();
        let mut padded = peer.to_vec();
        padded.resize(56, 0);
        assert_eq!(send_buffer_size(4096, &padded), 8192);
        assert_eq!(peer_recv_size(4096, &padded), 8192);
        assert_eq!(send_buffer_size(4096, &ConnectPrivate::new(4096, 1024, false).encode()), 4096);
        assert_eq!(send_buffer_size(4096, b"not rfc8797"), 4096);
        assert_eq!(send_buffer_size(4096, &[]), 4096);
    }

    #[test]
    fn receives_report_wr_id_zero_and_stay_off_the_send_queue() {
        let recv = Pending::Recv { slot: 3 };
        assert_eq!((recv.wr_id(), recv.queue()), (0, Queue::Recv));
        assert_eq!((send(1).wr_id(), send(1).queue()), (9, Queue::Send));
    }
}
