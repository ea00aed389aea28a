//! What can go wrong measuring a wire.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum WireError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("RDMA: {0}")]
    Rdma(#[from] rdma::RdmaError),
    #[error("RDMA work request failed: {0}")]
    WorkRequest(rdma::WcError),
    /// The peer broke the baseline protocol (a bad hello, a short answer).
    #[error("protocol: {0}")]
    Protocol(String),
    #[error("no answer within {0} s")]
    Timeout(u64),
}
