//! Errors of connection management and of work requests.

use std::io;

/// A failed provider call: set-up, registration, posting, or a connection that is gone.
#[derive(Debug, thiserror::Error)]
pub enum RdmaError {
    /// No RDMA device, or the provider's library is missing.
    #[error("no RDMA provider available: {0}")]
    Unavailable(String),
    /// The peer refused the connection (RDMA-CM REJECT, or nothing listening).
    #[error("connection to {addr} refused{}", reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    Refused { addr: String, reason: Option<String> },
    /// The connection is closed or broken; outstanding work requests were flushed.
    #[error("RDMA connection closed")]
    Disconnected,
    /// More work requests than the queue holds ([`crate::QpConfig`]'s depths).
    #[error("{queue} queue full ({depth} entries)")]
    QueueFull { queue: &'static str, depth: u32 },
    /// A message longer than the peer's receive buffers, or an operation past a local region.
    #[error("{0}")]
    Invalid(String),
    #[error("{op}: {source}")]
    Io {
        op: &'static str,
        #[source]
        source: io::Error,
    },
}

impl RdmaError {
    /// Wraps an OS error with the operation that failed.
    pub fn io(op: &'static str, source: io::Error) -> Self {
        RdmaError::Io { op, source }
    }
}

/// Why a work request failed (the ibv_wc_status values RPC-over-RDMA meets).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WcError {
    /// The remote handle was unknown or invalidated, the range fell outside its region, or the region
    /// does not allow the access (IBV_WC_REM_ACCESS_ERR).
    #[error("remote access error: {0}")]
    RemoteAccess(String),
    /// A Send found no posted receive at the peer (IBV_WC_RNR_RETRY_EXC_ERR with rnr_retry = 0).
    #[error("receiver not ready: the peer had no receive posted")]
    ReceiverNotReady,
    /// A message longer than the peer's receive buffer (IBV_WC_REM_INV_REQ_ERR / LOC_LEN_ERR).
    #[error("message of {len} bytes longer than the receive buffer ({limit})")]
    Length { len: usize, limit: usize },
    /// The connection broke before the request ran (IBV_WC_WR_FLUSH_ERR).
    #[error("flushed: the connection is down")]
    Flushed,
    /// Any other provider status, with its name.
    #[error("{0}")]
    Other(String),
}
