//! RPC-over-RDMA version 1 (RFC 8166) for nfsbench: sans-I/O, no `unsafe`, no panics on any input.
//!
//! - [`RdmaHeader`] is the transport header: xid, credits and a body ([`RdmaBody`]): RDMA_MSG or
//!   RDMA_NOMSG with their [`ChunkLists`] (Read list grouped into [`ReadChunk`]s, Write list, Reply
//!   chunk), or RDMA_ERROR. [`RdmaHeader::decode`] returns the header and the bytes after it (for
//!   RDMA_MSG, the RPC message); encoding writes the header into an [`xdr::XdrWriter`] for the caller to
//!   append the RPC message. Decoding is bounded by [`DecodeLimits`]; obsolete RDMA_MSGP/RDMA_DONE,
//!   unknown procedures and other versions are distinct [`RpcRdmaError`]s.
//! - [`peek`] reads the 16 fixed bytes of any header, so a responder can answer ERR_VERS
//!   ([`version_error_reply`]) or any other failure ([`error_reply`], [`RpcRdmaError::response`]).
//! - [`validate_call`] is what a responder checks, against a [`ChunkPolicy`], before following any chunk.
//! - [`ConnectPrivate`] and [`InlineThresholds`] are the RFC 8797 connection private data and the inline
//!   sizes it yields.
//! - [`CreditState`] (requester) and [`GrantPolicy`] (responder) are the credit rules of RFC 8166 §3.3.1.
//! - [`nfs3_binding`] is RFC 8267 for NFSv3: DDP-eligible items, largest reply sizes, and the resulting
//!   choice of inline, Read/Write chunk, Reply chunk or Long Call.

mod chunks;
mod credits;
mod error;
mod header;
pub mod nfs3_binding;
mod peek;
mod private_data;
mod validate;

pub use chunks::{
    ChunkLists, DecodeLimits, ReadChunk, ReadChunkList, Segment, SegmentList, WriteChunk, WriteChunkList,
    READ_ENTRY_XDR_LEN, SEGMENT_XDR_LEN,
};
pub use credits::{CreditState, GrantPolicy, INITIAL_CREDITS, KNFSD_CREDIT_GRANT, LINUX_CLIENT_CREDIT_REQUEST};
pub use error::{ChunkKind, ErrorResponse, RpcRdmaError};
pub use header::{RdmaBody, RdmaErrorBody, RdmaHeader, RdmaProc};
pub use peek::{error_reply, peek, peek_err_vers, version_error_reply, HeaderPeek};
pub use private_data::{
    effective_thresholds, ConnectPrivate, InlineThresholds, CONNECT_PRIVATE_LEN, CONNECT_PRIVATE_MAGIC,
    CONNECT_PRIVATE_VERSION, DEFAULT_INLINE_SIZE, FLAG_REMOTE_INVALIDATION, MAX_INLINE_SIZE,
};
/// For building chunk lists: `smallvec![segment]` is a [`SegmentList`] of one, without allocating.
pub use smallvec::smallvec;
pub use validate::{validate_call, ChunkPolicy, DEFAULT_MAX_CHUNK_BYTES};

/// RFC 8166 §4.2.2: the only version this crate speaks.
pub const RPCRDMA_VERSION: u32 = 1;
/// The port NFS over RPC-over-RDMA listens on (RFC 8267; IANA service "nfsrdma").
pub const NFS_RDMA_PORT: u16 = 20049;

#[cfg(test)]
mod tests;
