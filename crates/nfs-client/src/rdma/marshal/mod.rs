//! Marshalling a call for RPC-over-RDMA, sans I/O (RFC 8166 §3.5, RFC 8267 §3), with the Linux client's
//! choices:
//! - the call: inline when it fits the send threshold (RDMA_MSG); WRITE data (NFSv3's, or the payload of
//!   an NFSv4 COMPOUND) in a Read chunk at its XDR position when the rest then fits (RDMA_MSG, the data
//!   and its XDR padding cut out of the Send);
//!   otherwise a Long Call (RDMA_NOMSG, the whole call in a position-zero Read chunk);
//! - the reply: nothing when the largest reply fits the receive threshold; a Write chunk of the READ
//!   count for READ data; a Reply chunk for the whole reply otherwise (READDIR, READDIRPLUS, READLINK,
//!   procedures this module does not know). A call whose caller sized its reply
//!   ([`RpcCall::reply_len`]: NFSv4's data COMPOUNDs) is judged by that size instead.
//!
//! [`layout`] decides; [`chunk_lists`] writes the header's chunk lists once the memory is registered;
//! [`send_parts`] is the Send's gather list.

use bytes::{Bytes, BytesMut};
use nfs3_proto::{ReaddirArgs, ReaddirplusArgs};
use nfs4_proto::NFS_V4;
use onc_rpc::RpcMessage;
use rpcrdma_proto::nfs3_binding::{
    call_plan, ddp_eligible_item, nfs3_max_result_len, nfs3_proc, nfs3_reply_plan, CallPlan, DdpItem, ReplyPlan,
    NFS_PROGRAM, NFS_V3,
};
use rpcrdma_proto::{
    ChunkLists, InlineThresholds, RdmaHeader, ReadChunk, Segment, WriteChunk, DEFAULT_MAX_CHUNK_BYTES,
};
use smallvec::{smallvec, SmallVec};
use xdr::XdrDecode;

use crate::transport::RpcCall;
use crate::v4::wire::NFSPROC4_COMPOUND;

/// The RPC reply header replies are sized for: xid, msg_type, reply_stat, an AUTH_NONE or AUTH_SYS
/// verifier with an empty body, accept_stat.
pub(crate) const RPC_REPLY_HEADER_LEN: u32 = 24;
/// The largest Write or Reply chunk offered for one reply: the largest payload (1 MiB) plus 4 KiB of
/// headers, what responders accept by default (`rpcrdma_proto::DEFAULT_MAX_CHUNK_BYTES`).
pub(crate) const MAX_REPLY_CHUNK: u32 = DEFAULT_MAX_CHUNK_BYTES as u32;

const ZEROS: [u8; 4] = [0; 4];

/// How the call travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SendPlan {
    /// RDMA_MSG with the whole call in the Send.
    Inline,
    /// RDMA_MSG; the payload in a Read chunk at XDR `position`, the rest of the call in the Send.
    ReadChunk { position: u32 },
    /// RDMA_NOMSG; the whole call in a position-zero Read chunk.
    LongCall,
}

/// How the reply comes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReplyRoom {
    Inline,
    /// A Write chunk of this many bytes for the READ data.
    WriteChunk(u32),
    /// A Reply chunk of this many bytes for the whole reply.
    ReplyChunk(u32),
}

/// The marshalling decision for one call on one connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) send: SendPlan,
    pub(crate) reply: ReplyRoom,
}

/// The segments of the memory registered for a call; `None` where the layout has no such chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Segments {
    pub(crate) read: Option<Segment>,
    pub(crate) write: Option<Segment>,
    pub(crate) reply: Option<Segment>,
}

/// Program, version and procedure of an encoded call: bytes 12..24 of the RPC call header (RFC 5531 §9).
pub(crate) fn call_ids(inline: &[u8]) -> Option<(u32, u32, u32)> {
    let word = |at: usize| inline.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
    Some((word(12)?, word(16)?, word(20)?))
}

/// A call whose reply would need a chunk larger than any responder accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a reply of up to {len} bytes needs a chunk larger than {MAX_REPLY_CHUNK} bytes")]
pub(crate) struct ChunkTooLarge {
    pub(crate) len: u64,
}

/// Decides how `call` goes out and how its reply comes back under the connection's inline `limits`.
/// Fails when the reply would need a chunk larger than any responder accepts.
pub(crate) fn layout(call: &RpcCall, limits: InlineThresholds) -> Result<Layout, ChunkTooLarge> {
    let reply = reply_room(call, limits.recv)?;
    Ok(Layout { send: send_plan(call, reply, limits.send), reply })
}

/// RFC 8267 §3 via `nfs3_reply_plan`, with the Linux client's Reply chunk for READLINK: only READ data
/// is placed apart from the reply record ([`crate::RpcReply::payload`]).
fn reply_room(call: &RpcCall, recv: u32) -> Result<ReplyRoom, ChunkTooLarge> {
    if let Some(len) = call.reply_len {
        return sized_reply_room(len, call.reply_payload, recv);
    }
    let (prog, vers, proc) = call_ids(&call.inline).unwrap_or((0, 0, 0));
    let count = match proc {
        nfs3_proc::READ => Some(call.reply_payload),
        nfs3_proc::READDIR | nfs3_proc::READDIRPLUS => directory_count(&call.inline, proc),
        _ => Some(0),
    };
    let plan = match count {
        Some(count) if prog == NFS_PROGRAM && vers == NFS_V3 => {
            nfs3_reply_plan(proc, count, RPC_REPLY_HEADER_LEN, recv).map(|plan| (plan, count))
        }
        _ => None,
    };
    let room = match plan {
        Some((ReplyPlan::Inline, _)) => ReplyRoom::Inline,
        Some((ReplyPlan::WriteChunk { len }, _)) if proc == nfs3_proc::READ => ReplyRoom::WriteChunk(chunk_len(len)?),
        Some((ReplyPlan::WriteChunk { .. }, count)) => {
            let whole = u64::from(RPC_REPLY_HEADER_LEN) + nfs3_max_result_len(proc, count).unwrap_or(u64::MAX / 2);
            ReplyRoom::ReplyChunk(chunk_len(whole)?)
        }
        Some((ReplyPlan::ReplyChunk { len }, _)) => ReplyRoom::ReplyChunk(chunk_len(len)?),
        // Not an NFSv3 call this module can size: room for the largest reply any responder sends.
        None => ReplyRoom::ReplyChunk(MAX_REPLY_CHUNK),
    };
    Ok(room)
}

/// A reply its caller sized (`len` bytes besides `payload` bytes of READ data): inline when all of it
/// fits the receive threshold; the READ data in a Write chunk when the rest fits; else a Reply chunk
/// for the whole reply.
fn sized_reply_room(len: u32, payload: u32, recv: u32) -> Result<ReplyRoom, ChunkTooLarge> {
    let data = u64::from(payload) + xdr::padding(payload as usize) as u64;
    let whole = u64::from(len) + data;
    if whole <= u64::from(recv) {
        Ok(ReplyRoom::Inline)
    } else if payload > 0 && len <= recv {
        Ok(ReplyRoom::WriteChunk(chunk_len(u64::from(payload))?))
    } else {
        Ok(ReplyRoom::ReplyChunk(chunk_len(whole)?))
    }
}

fn chunk_len(len: u64) -> Result<u32, ChunkTooLarge> {
    match u32::try_from(len) {
        Ok(len) if len <= MAX_REPLY_CHUNK => Ok(len),
        _ => Err(ChunkTooLarge { len }),
    }
}

/// READDIR's `count` or READDIRPLUS's `maxcount` (RFC 1813 §3.3.16, §3.3.17): what bounds the reply.
fn directory_count(inline: &[u8], proc: u32) -> Option<u32> {
    let (_, args) = RpcMessage::decode(inline).ok()?;
    let mut r = xdr::XdrReader::new(args);
    match proc {
        nfs3_proc::READDIR => ReaddirArgs::decode(&mut r).ok().map(|a| a.count),
        _ => ReaddirplusArgs::decode(&mut r).ok().map(|a| a.maxcount),
    }
}

/// The payload a Read chunk may carry: NFSv3's WRITE data or SYMLINK path (RFC 8267 §3), or the payload
/// of an NFSv4 COMPOUND, which this client gives one only for WRITE's data (RFC 8267 §4.2: WRITE data is
/// DDP-eligible; the Linux client puts it in a Read chunk as for NFSv3).
fn ddp_payload_len(call: &RpcCall) -> Option<u64> {
    let payload = call.payload.as_ref().filter(|p| !p.data.is_empty())?;
    let (prog, vers, proc) = call_ids(&call.inline)?;
    if (prog, vers, proc) == (NFS_PROGRAM, NFS_V4, NFSPROC4_COMPOUND) {
        return Some(payload.data.len() as u64);
    }
    match ddp_eligible_item(prog, vers, proc) {
        Some(DdpItem::WriteData | DdpItem::SymlinkPath) => Some(payload.data.len() as u64),
        _ => None,
    }
}

/// RFC 8166 §3.5: inline, Read chunk, or Long Call; every header size counted against the threshold.
fn send_plan(call: &RpcCall, reply: ReplyRoom, send: u32) -> SendPlan {
    let call_len = call.wire_len() as u64;
    let ddp = ddp_payload_len(call);
    let plain = header_len(SendPlan::Inline, reply);
    match call_plan(call_len, ddp, u64::from(send).saturating_sub(plain)) {
        CallPlan::Inline => SendPlan::Inline,
        CallPlan::LongCall => SendPlan::LongCall,
        CallPlan::ReadChunk => {
            // The Read list entry makes the header longer: the reduced call must fit beside it.
            let with_read = header_len(SendPlan::ReadChunk { position: 0 }, reply);
            let reduced = call_len.saturating_sub(ddp.map_or(0, |n| n.div_ceil(4) * 4));
            let position = call.payload.as_ref().and_then(|p| u32::try_from(p.offset).ok());
            match position {
                Some(position) if reduced <= u64::from(send).saturating_sub(with_read) => {
                    SendPlan::ReadChunk { position }
                }
                _ => SendPlan::LongCall,
            }
        }
    }
}

/// Bytes of the transport header for a layout (segment values do not change its size).
fn header_len(send: SendPlan, reply: ReplyRoom) -> u64 {
    let layout = Layout { send, reply };
    let any = Some(Segment::default());
    let chunks = chunk_lists(&layout, &Segments { read: any, write: any, reply: any });
    RdmaHeader::msg(0, 0, chunks).encoded_len() as u64
}

/// RFC 8166 §4.3: the chunk lists of a call with `layout`, one segment per chunk.
pub(crate) fn chunk_lists(layout: &Layout, segments: &Segments) -> ChunkLists {
    let mut chunks = ChunkLists::default();
    let read_position = match layout.send {
        SendPlan::Inline => None,
        SendPlan::ReadChunk { position } => Some(position),
        // RFC 8166 §3.5.3: position zero is the whole call.
        SendPlan::LongCall => Some(0),
    };
    if let (Some(position), Some(segment)) = (read_position, segments.read) {
        chunks.reads.push(ReadChunk { position, segments: smallvec![segment] });
    }
    match (layout.reply, segments.write, segments.reply) {
        (ReplyRoom::WriteChunk(_), Some(segment), _) => chunks.writes.push(WriteChunk { segments: smallvec![segment] }),
        (ReplyRoom::ReplyChunk(_), _, Some(segment)) => {
            chunks.reply = Some(WriteChunk { segments: smallvec![segment] })
        }
        _ => {}
    }
    chunks
}

/// A Send's gather list: at most five parts (header, call head, payload, padding, call tail), kept inline.
pub(crate) type SendParts<'a> = SmallVec<[&'a [u8]; 5]>;

/// The Send of a call after its `header`: the whole call (payload gathered from its own buffer, not
/// copied), the call without its payload and padding (Read chunk), or the header alone (Long Call).
pub(crate) fn send_parts<'a>(header: &'a [u8], call: &'a RpcCall, plan: SendPlan) -> SendParts<'a> {
    let mut parts = SendParts::new();
    parts.push(header);
    if plan == SendPlan::LongCall {
        return parts;
    }
    match &call.payload {
        None => parts.push(&call.inline),
        Some(payload) => {
            let (head, tail) = call.inline.split_at(payload.offset.min(call.inline.len()));
            parts.push(head);
            if plan == SendPlan::Inline {
                parts.push(&payload.data);
                parts.push(ZEROS.get(..xdr::padding(payload.data.len())).unwrap_or_default());
            }
            parts.push(tail);
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// The whole call in one buffer, for a Long Call's position-zero Read chunk (copied: Long Calls are
/// rare, and the call is kept for a re-send on another connection).
pub(crate) fn whole_call(call: &RpcCall) -> Bytes {
    let mut buf = BytesMut::with_capacity(call.wire_len());
    for part in send_parts(&[], call, SendPlan::Inline) {
        buf.extend_from_slice(part);
    }
    buf.freeze()
}

#[cfg(test)]
mod tests;
