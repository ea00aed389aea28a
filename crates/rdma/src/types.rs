//! Plain data shared by providers and the transport: configuration, segments, completions.

use std::net::SocketAddr;

use bytes::Bytes;

use crate::error::WcError;

/// The caller's tag for a work request, returned in its [`Completion`].
pub type WrId = u64;

/// Queue sizes and RDMA Read depths of one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpConfig {
    /// Bytes of each receive buffer posted by [`crate::QueuePair::post_recvs`]: the inline receive size.
    pub recv_size: u32,
    /// Receives that may be posted at once.
    pub max_recv: u32,
    /// Sends, RDMA Reads and RDMA Writes that may be outstanding at once.
    pub max_send: u32,
    /// RDMA Reads this side may have in flight towards the peer (initiator depth). The Linux client
    /// offers 0; a server uses what the peer's responder resources allow.
    pub initiator_depth: u8,
    /// RDMA Reads the peer may have in flight towards this side (responder resources).
    pub responder_resources: u8,
    /// Bytes of writable memory registered once when the connection is made, this side's
    /// [`crate::QueuePair::pool`], which the caller lends out through windows
    /// ([`crate::QueuePair::open_window`]) instead of registering memory per I/O; 0 for none.
    pub pool_bytes: usize,
    /// The completion vector (interrupt) this queue pair's completions are signalled on, so that queue
    /// pairs served by different threads are woken by different interrupts: taken modulo the device's
    /// vectors (verbs' `num_comp_vectors`). The soft provider signals each queue pair on its own
    /// descriptor and has no vectors to choose from.
    pub comp_vector: u32,
}

impl Default for QpConfig {
    fn default() -> Self {
        QpConfig {
            recv_size: 4096,
            max_recv: 128,
            max_send: 256,
            initiator_depth: 16,
            responder_resources: 16,
            pool_bytes: 0,
            comp_vector: 0,
        }
    }
}

/// What the peer did to this side's memory by its own one-sided operations so far on a connection
/// ([`crate::QueuePair::peer_one_sided`]): cumulative.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PeerOneSided {
    /// Bytes it RDMA-Read from us.
    pub read_bytes: u64,
    /// Bytes it RDMA-Wrote to us.
    pub written_bytes: u64,
    /// RDMA Reads (of at least one byte) it made of our memory.
    pub reads: u64,
}

/// A region of the peer's memory as RPC-over-RDMA names it in a segment (RFC 8166 §3.4.3): the handle
/// (R_key), the address or offset the handle's region is addressed by, and a length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RemoteSegment {
    pub handle: u32,
    pub offset: u64,
    pub length: u32,
}

/// What a successful work request did.
#[derive(Debug, Clone)]
pub enum CompletionKind {
    Send,
    /// A message arrived in one of the posted receives; its bytes (at most the receive size).
    Recv(Bytes),
    Read,
    Write,
}

/// One entry of the completion queue.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The posted request's tag; for receives, 0 (receives are posted in bulk).
    pub wr_id: WrId,
    pub result: Result<CompletionKind, WcError>,
}

/// Facts about an established connection, for logs and reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// The provider and device, e.g. "verbs rxe0" or "soft (shared memory)".
    pub provider: String,
    pub local: Option<SocketAddr>,
    pub peer: Option<SocketAddr>,
    /// The private data the peer sent when the connection was made (empty when it sent none).
    pub peer_private_data: Vec<u8>,
    /// RDMA Reads this side may issue at once (after negotiation with the peer's responder resources).
    pub initiator_depth: u8,
}
