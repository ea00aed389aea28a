//! How a reply goes back, sans I/O (RFC 8166 §3.5, RFC 8267 §3): which bytes are RDMA-Written where,
//! what the Send carries, and the chunk lists the reply header returns.
//!
//! In order: a payload (READ data, READLINK path) with a Write list offered goes into the first Write
//! chunk and the reduced reply (payload and pad removed, length word kept) goes inline; a reply that
//! fits the client's receive size goes inline whole; otherwise the Reply chunk takes it (RDMA_NOMSG);
//! with none of these possible the answer is ERR_CHUNK.

use nfs_server::Reply;
use rdma::RemoteSegment;
use rpcrdma_proto::{ChunkLists, RdmaHeader, WriteChunk};

use crate::stats::ReplyKind;

/// Which buffer an RDMA Write reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The reply's payload.
    Payload,
    /// The reply flattened for the Reply chunk ([`Planned::reply_chunk_body`]).
    ReplyChunk,
}

/// One RDMA Write: `remote.length` bytes of `source` from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Push {
    pub source: Source,
    pub offset: usize,
    pub remote: RemoteSegment,
}

/// A reply laid out for the wire.
#[derive(Debug)]
pub(crate) struct Planned {
    pub kind: ReplyKind,
    /// RDMA_NOMSG (the reply is in the Reply chunk) rather than RDMA_MSG.
    pub nomsg: bool,
    /// The chunk lists of the reply header: the call's Write list with the lengths written, and the
    /// Reply chunk with its lengths when used.
    pub chunks: ChunkLists,
    /// The RPC message that follows the header in the Send (empty for RDMA_NOMSG).
    pub inline: Vec<u8>,
    /// The payload, when RDMA Writes read from it.
    pub payload: Vec<u8>,
    /// What is RDMA-Written into the Reply chunk, when it is used.
    pub reply_chunk_body: Vec<u8>,
    pub pushes: Vec<Push>,
}

/// Why a reply cannot be sent: answered with ERR_CHUNK (RFC 8166 §4.5.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NoRoom(pub String);

/// Lays out `reply` to a call that offered `writes` and `reply_chunk`, for a client that receives at
/// most `send_limit` bytes inline.
pub(crate) fn plan(
    reply: Reply,
    writes: &[WriteChunk],
    reply_chunk: Option<&WriteChunk>,
    send_limit: usize,
) -> Result<Planned, NoRoom> {
    // RFC 8166 §3.4.6: the Write list comes back with each segment's length set to what was written.
    let mut chunks = ChunkLists { reads: Vec::new(), writes: writes.iter().map(emptied).collect(), reply: None };
    let fits = |chunks: &ChunkLists, len: usize| header_len(chunks) + len <= send_limit;
    let mut pushes = Vec::new();
    let (kind, body, payload) = match (writes.first(), reply.payload.is_empty()) {
        // RFC 8267 §3: the DDP-eligible result goes to the first Write chunk; the rest stays inline.
        (Some(first), false) => {
            let (filled, placed) = place(Source::Payload, reply.payload.len(), first).ok_or_else(|| {
                NoRoom(format!("{}-byte payload, {}-byte Write chunk", reply.payload.len(), first.byte_len()))
            })?;
            if let Some(slot) = chunks.writes.first_mut() {
                *slot = filled;
            }
            pushes = placed;
            (ReplyKind::WriteChunk, reply.inline, reply.payload)
        }
        _ => (ReplyKind::Inline, reply.to_vec(), Vec::new()),
    };
    if fits(&chunks, body.len()) {
        return Ok(Planned { kind, nomsg: false, chunks, inline: body, payload, reply_chunk_body: Vec::new(), pushes });
    }
    // RFC 8166 §3.5.3: a reply too large to send inline goes whole into the Reply chunk.
    let Some(offered) = reply_chunk else {
        let header = header_len(&chunks);
        return Err(NoRoom(format!(
            "{}-byte reply, {header}-byte header, {send_limit}-byte inline limit and no Reply chunk",
            body.len()
        )));
    };
    let (filled, placed) = place(Source::ReplyChunk, body.len(), offered)
        .ok_or_else(|| NoRoom(format!("{}-byte reply, {}-byte Reply chunk", body.len(), offered.byte_len())))?;
    chunks.reply = Some(filled);
    if !fits(&chunks, 0) {
        return Err(NoRoom(format!(
            "{}-byte reply header over the {send_limit}-byte inline limit",
            header_len(&chunks)
        )));
    }
    pushes.extend(placed);
    Ok(Planned {
        kind: ReplyKind::ReplyChunk,
        nomsg: true,
        chunks,
        inline: Vec::new(),
        payload,
        reply_chunk_body: body,
        pushes,
    })
}

/// Bytes of a reply header carrying `chunks`.
fn header_len(chunks: &ChunkLists) -> usize {
    RdmaHeader::msg(0, 0, chunks.clone()).encoded_len()
}

/// The chunk as returned when nothing was written to it.
fn emptied(chunk: &WriteChunk) -> WriteChunk {
    let segments = chunk.segments.iter().map(|s| rpcrdma_proto::Segment { length: 0, ..*s }).collect();
    WriteChunk { segments }
}

/// Fills `chunk`'s segments in order with `len` bytes of `source`: the chunk as returned (lengths
/// written, unused segments 0) and the RDMA Writes. `None` when the chunk is shorter than `len`.
fn place(source: Source, len: usize, chunk: &WriteChunk) -> Option<(WriteChunk, Vec<Push>)> {
    if len as u64 > chunk.byte_len() {
        return None;
    }
    let mut left = len;
    let mut pushes = Vec::new();
    let mut segments = Vec::with_capacity(chunk.segments.len());
    for s in &chunk.segments {
        let n = left.min(s.length as usize);
        if n > 0 {
            let remote = RemoteSegment { handle: s.handle, offset: s.offset, length: n as u32 };
            pushes.push(Push { source, offset: len - left, remote });
        }
        left -= n;
        segments.push(rpcrdma_proto::Segment { length: n as u32, ..*s });
    }
    Some((WriteChunk { segments }, pushes))
}

#[cfg(test)]
mod tests {
    use rpcrdma_proto::Segment;

    use super::*;

    fn chunk(lengths: &[u32]) -> WriteChunk {
        let segments = lengths
            .iter()
            .enumerate()
            .map(|(i, &length)| Segment { handle: i as u32 + 1, length, offset: 0x1000 })
            .collect();
        WriteChunk { segments }
    }

    fn lengths(chunk: &WriteChunk) -> Vec<u32> {
        chunk.segments.iter().map(|s| s.length).collect()
    }

    fn read_reply(data_len: usize) -> Reply {
        let inline = vec![7; 120];
        Reply { payload_at: inline.len(), inline, payload: vec![9; data_len] }
    }

    #[test]
    fn read_data_goes_to_the_write_chunk_and_the_reduced_reply_inline() {
        let planned = plan(read_reply(5000), &[chunk(&[4096, 4096, 4096])], None, 4096).expect("plan");
        assert_eq!((planned.kind, planned.nomsg), (ReplyKind::WriteChunk, false));
        assert_eq!(planned.inline, vec![7; 120], "payload and pad removed, length word kept");
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![4096, 904, 0]);
        let pushed: Vec<(usize, u32)> = planned.pushes.iter().map(|p| (p.offset, p.remote.length)).collect();
        assert_eq!(pushed, vec![(0, 4096), (4096, 904)]);
        assert!(planned.pushes.iter().all(|p| p.source == Source::Payload));
    }

    #[test]
    fn a_payload_longer_than_the_write_chunk_has_no_room() {
        assert!(plan(read_reply(8193), &[chunk(&[4096, 4096])], None, 4096).is_err());
    }

    #[test]
    fn a_small_reply_goes_inline_whole_and_unused_write_chunks_come_back_empty() {
        let planned = plan(read_reply(100), &[], None, 1024).expect("plan");
        assert_eq!((planned.kind, planned.inline.len()), (ReplyKind::Inline, 220));
        let empty = Reply::from_inline(vec![1; 100]);
        let planned = plan(empty, &[chunk(&[4096])], None, 1024).expect("plan");
        assert_eq!((planned.kind, lengths(&planned.chunks.writes[0])), (ReplyKind::Inline, vec![0]));
        assert!(planned.pushes.is_empty());
    }

    #[test]
    fn a_large_reply_goes_whole_into_the_reply_chunk_as_nomsg() {
        let reply = Reply::from_inline(vec![3; 10_000]);
        let planned = plan(reply, &[], Some(&chunk(&[8192, 8192])), 4096).expect("plan");
        assert_eq!((planned.kind, planned.nomsg), (ReplyKind::ReplyChunk, true));
        assert!(planned.inline.is_empty());
        assert_eq!(planned.reply_chunk_body.len(), 10_000);
        assert_eq!(planned.chunks.reply.as_ref().map(lengths), Some(vec![8192, 1808]));
    }

    #[test]
    fn a_large_reply_without_a_reply_chunk_or_with_a_short_one_has_no_room() {
        let reply = Reply::from_inline(vec![3; 10_000]);
        assert!(plan(reply.clone(), &[], None, 4096).is_err());
        assert!(plan(reply, &[], Some(&chunk(&[4096])), 4096).is_err());
    }

    #[test]
    fn the_inline_budget_counts_the_echoed_header() {
        // 28-byte header with no chunks: 1024 - 28 = 996 bytes fit, 997 do not.
        assert!(plan(Reply::from_inline(vec![0; 996]), &[], None, 1024).is_ok());
        assert!(plan(Reply::from_inline(vec![0; 997]), &[], None, 1024).is_err());
        // A one-segment Write chunk echoed costs 8 + 16 bytes more.
        assert!(plan(Reply::from_inline(vec![0; 996]), &[chunk(&[10])], None, 1024).is_err());
    }

    #[test]
    fn a_reduced_reply_too_large_for_inline_goes_to_the_reply_chunk_with_the_write_list() {
        let mut reply = read_reply(4096);
        reply.inline = vec![7; 2000];
        reply.payload_at = 2000;
        let planned = plan(reply, &[chunk(&[4096])], Some(&chunk(&[4096])), 1024).expect("plan");
        assert_eq!((planned.kind, planned.nomsg), (ReplyKind::ReplyChunk, true));
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![4096]);
        assert_eq!(planned.reply_chunk_body.len(), 2000);
        let sources: Vec<Source> = planned.pushes.iter().map(|p| p.source).collect();
        assert_eq!(sources, vec![Source::Payload, Source::ReplyChunk]);
    }
}
