//! The crate's one error type, and what a responder sends back for each error (RFC 8166 §4.5).

use std::fmt;

use thiserror::Error;
use xdr::XdrError;

use crate::header::RdmaErrorBody;

/// Which kind of chunk a validation error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    Read,
    Write,
    Reply,
}

impl fmt::Display for ChunkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ChunkKind::Read => "Read",
            ChunkKind::Write => "Write",
            ChunkKind::Reply => "Reply",
        })
    }
}

/// Everything that can be wrong with a received RPC-over-RDMA header. Each error maps to the answer a
/// responder gives ([`RpcRdmaError::response`]); a requester that cannot parse a reply drops it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RpcRdmaError {
    /// The header is not well-formed XDR, or breaks a decode limit.
    #[error(transparent)]
    Xdr(#[from] XdrError),
    /// `rdma_vers` is not 1; nothing after it was looked at (RFC 8166 §4.5.1).
    #[error("RPC-over-RDMA version {vers} is not supported (only version 1)")]
    VersionMismatch { vers: u32 },
    /// RDMA_MSGP (2) or RDMA_DONE (3): defined by RFC 5666, no longer to be sent (RFC 8166 §4.6).
    #[error("obsolete RPC-over-RDMA procedure {procedure}")]
    ObsoleteProcedure { procedure: u32 },
    /// An `rdma_proc` value RFC 8166 does not define (§4.5.2).
    #[error("unknown RPC-over-RDMA procedure {procedure}")]
    UnknownProcedure { procedure: u32 },
    /// An RDMA_ERROR arrived where a call was expected: only responders send RDMA_ERROR.
    #[error("RDMA_ERROR received where a call was expected")]
    ErrorMessageAsCall,
    /// RDMA_NOMSG carries the call in a position-zero Read chunk, and this one has none (RFC 8166 §3.5.3).
    #[error("RDMA_NOMSG call without a position-zero Read chunk")]
    NoMsgWithoutCallChunk,
    /// A position-zero Read chunk (the whole message) in an RDMA_MSG, whose message is inline.
    #[error("position-zero Read chunk in an RDMA_MSG call")]
    PositionZeroInMsg,
    /// Positions are XDR offsets and XDR items start on 4-byte boundaries (RFC 4506 §3).
    #[error("Read chunk position {position} is not a multiple of 4")]
    UnalignedPosition { position: u32 },
    /// Read chunks must come in increasing position order and must not overlap.
    #[error("Read chunk at position {position} is out of order or overlaps the previous one")]
    PositionOutOfOrder { position: u32 },
    /// A Read chunk would be inserted past the end of the message it belongs to.
    #[error("Read chunk position {position} lies beyond the {message_len}-byte message")]
    PositionBeyondMessage { position: u32, message_len: u64 },
    /// A chunk with no segment.
    #[error("{kind} chunk with no segments")]
    EmptyChunk { kind: ChunkKind },
    /// A segment of length zero in a call's chunk.
    #[error("zero-length segment in a {kind} chunk")]
    ZeroLengthSegment { kind: ChunkKind },
    /// A chunk longer than the responder accepts.
    #[error("{kind} chunk of {len} bytes exceeds the limit of {max}")]
    ChunkTooLong { kind: ChunkKind, len: u64, max: u64 },
    /// All Read chunks of a call together are longer than the responder accepts.
    #[error("Read list of {len} bytes exceeds the limit of {max}")]
    ReadListTooLong { len: u64, max: u64 },
}

/// What a responder does about a header it rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorResponse {
    /// Send an RDMA_ERROR with this body and the call's XID (see [`crate::error_reply`]).
    Reply(RdmaErrorBody),
    /// Send nothing.
    Drop,
}

impl RpcRdmaError {
    /// The RDMA_ERROR a responder sends for this error, or [`ErrorResponse::Drop`].
    pub fn response(&self) -> ErrorResponse {
        match self {
            // RFC 8166 §4.5.1: ERR_VERS with the inclusive range of versions supported: only 1.
            RpcRdmaError::VersionMismatch { .. } => ErrorResponse::Reply(RdmaErrorBody::SUPPORTED_VERSIONS),
            // RFC 8166 §4.6.2: receivers MUST silently ignore RDMA_DONE.
            RpcRdmaError::ObsoleteProcedure { procedure: 3 } => ErrorResponse::Drop,
            // Never answer an error with an error: the peer would answer back.
            RpcRdmaError::ErrorMessageAsCall => ErrorResponse::Drop,
            // RFC 8166 §4.6.1 (RDMA_MSGP), §4.5.2 (XDR errors with a recognized version) and §4.5.3
            // (chunks the responder cannot use): ERR_CHUNK.
            RpcRdmaError::Xdr(_)
            | RpcRdmaError::ObsoleteProcedure { .. }
            | RpcRdmaError::UnknownProcedure { .. }
            | RpcRdmaError::NoMsgWithoutCallChunk
            | RpcRdmaError::PositionZeroInMsg
            | RpcRdmaError::UnalignedPosition { .. }
            | RpcRdmaError::PositionOutOfOrder { .. }
            | RpcRdmaError::PositionBeyondMessage { .. }
            | RpcRdmaError::EmptyChunk { .. }
            | RpcRdmaError::ZeroLengthSegment { .. }
            | RpcRdmaError::ChunkTooLong { .. }
            | RpcRdmaError::ReadListTooLong { .. } => ErrorResponse::Reply(RdmaErrorBody::Chunk),
        }
    }
}
