//! Checks a responder makes on a decoded call before it follows any chunk (RDMA Read or Write).
//! Every failure is an [`RpcRdmaError`] whose response is ERR_CHUNK (RFC 8166 §4.5.2, §4.5.3),
//! except an RDMA_ERROR received as a call, which is dropped.

use crate::chunks::{ChunkLists, ReadChunk, Segment};
use crate::error::{ChunkKind, RpcRdmaError};
use crate::header::{RdmaBody, RdmaHeader};

/// Largest chunk accepted by default: the Linux client's largest payload (1 MiB rsize/wsize) plus 4 KiB
/// of RPC and NFS headers (an RPC credential or verifier body is at most 400 bytes, RFC 5531).
pub const DEFAULT_MAX_CHUNK_BYTES: u64 = 1024 * 1024 + 4096;

/// How much a responder is willing to move for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPolicy {
    /// One Read chunk, the position-zero chunk (a whole call) included.
    pub max_read_chunk: u64,
    /// All Read chunks of one call together.
    pub max_read_total: u64,
    /// One Write chunk offered for a result.
    pub max_write_chunk: u64,
    /// The Reply chunk offered for a whole reply.
    pub max_reply_chunk: u64,
}

impl Default for ChunkPolicy {
    fn default() -> Self {
        ChunkPolicy {
            max_read_chunk: DEFAULT_MAX_CHUNK_BYTES,
            max_read_total: DEFAULT_MAX_CHUNK_BYTES,
            max_write_chunk: DEFAULT_MAX_CHUNK_BYTES,
            max_reply_chunk: DEFAULT_MAX_CHUNK_BYTES,
        }
    }
}

/// Validates a call received by a responder. `inline_len` is the length of the bytes after the header
/// (the reduced RPC message of an RDMA_MSG).
///
/// Checks: an RDMA_NOMSG carries a position-zero Read chunk and an RDMA_MSG none; every chunk has
/// segments and no zero-length segment; chunk sizes fit `policy`; Read chunk positions are 4-byte
/// aligned, strictly increasing, do not overlap, and fall within the message they are inserted into
/// (the inline message for RDMA_MSG, the position-zero chunk for RDMA_NOMSG).
pub fn validate_call(header: &RdmaHeader, inline_len: usize, policy: &ChunkPolicy) -> Result<(), RpcRdmaError> {
    let (chunks, nomsg) = match &header.body {
        RdmaBody::Msg(c) => (c, false),
        RdmaBody::NoMsg(c) => (c, true),
        RdmaBody::Error(_) => return Err(RpcRdmaError::ErrorMessageAsCall),
    };
    validate_chunk_sizes(chunks, policy)?;
    let position_zero = chunks.reads.first().filter(|c| c.position == 0);
    let message_len = match (nomsg, position_zero) {
        // RFC 8166 §3.5.3: a Long Call is RDMA_NOMSG with the whole call in a position-zero Read chunk;
        // §4.5.2 names an RDMA_NOMSG with no chunks at all as an XDR error.
        (true, None) => return Err(RpcRdmaError::NoMsgWithoutCallChunk),
        (true, Some(call)) => call.byte_len(),
        (false, Some(_)) => return Err(RpcRdmaError::PositionZeroInMsg),
        (false, None) => inline_len as u64,
    };
    validate_positions(&chunks.reads, message_len)
}

fn validate_chunk_sizes(chunks: &ChunkLists, policy: &ChunkPolicy) -> Result<(), RpcRdmaError> {
    let mut read_total = 0u64;
    for chunk in &chunks.reads {
        let len = check_segments(ChunkKind::Read, &chunk.segments, policy.max_read_chunk)?;
        read_total += len;
        if read_total > policy.max_read_total {
            return Err(RpcRdmaError::ReadListTooLong { len: read_total, max: policy.max_read_total });
        }
    }
    for chunk in &chunks.writes {
        // RFC 8267's NFSv4 rules: an empty Write chunk (no segments) asks for that READ-type result inline.
        if !chunk.segments.is_empty() {
            check_segments(ChunkKind::Write, &chunk.segments, policy.max_write_chunk)?;
        }
    }
    if let Some(chunk) = &chunks.reply {
        check_segments(ChunkKind::Reply, &chunk.segments, policy.max_reply_chunk)?;
    }
    Ok(())
}

/// A chunk in a call offers or names memory: it needs at least one segment (an empty Write chunk is
/// read before this) and no empty segment.
fn check_segments(kind: ChunkKind, segments: &[Segment], max: u64) -> Result<u64, RpcRdmaError> {
    if segments.is_empty() {
        return Err(RpcRdmaError::EmptyChunk { kind });
    }
    if segments.iter().any(|s| s.length == 0) {
        return Err(RpcRdmaError::ZeroLengthSegment { kind });
    }
    let len: u64 = segments.iter().map(|s| u64::from(s.length)).sum();
    if len > max {
        return Err(RpcRdmaError::ChunkTooLong { kind, len, max });
    }
    Ok(len)
}

/// Positions count in the unreduced message, where every earlier chunk's data (with its XDR padding)
/// is back in place; subtracting those gives the offset in the message actually received.
fn validate_positions(reads: &[ReadChunk], message_len: u64) -> Result<(), RpcRdmaError> {
    let mut previous: Option<u32> = None;
    let mut moved = 0u64;
    let mut previous_reduced = 0u64;
    for chunk in reads {
        let position = chunk.position;
        // RFC 8166 §3.4.5: the position is the XDR offset of the data item; XDR items are 4-byte aligned.
        if position % 4 != 0 {
            return Err(RpcRdmaError::UnalignedPosition { position });
        }
        // RFC 8166 §3.4.5: all segments of one chunk share a position, so a repeated position is a
        // second chunk over the same item; chunks come in XDR stream order.
        if previous.is_some_and(|p| position <= p) {
            return Err(RpcRdmaError::PositionOutOfOrder { position });
        }
        previous = Some(position);
        if position == 0 {
            continue;
        }
        let reduced = match u64::from(position).checked_sub(moved) {
            Some(reduced) if reduced >= previous_reduced => reduced,
            _ => return Err(RpcRdmaError::PositionOutOfOrder { position }),
        };
        if reduced > message_len {
            return Err(RpcRdmaError::PositionBeyondMessage { position, message_len });
        }
        previous_reduced = reduced;
        moved += round_up_to_xdr_unit(chunk.byte_len());
    }
    Ok(())
}

fn round_up_to_xdr_unit(len: u64) -> u64 {
    len.div_ceil(4) * 4
}
