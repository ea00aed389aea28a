//! How a reply goes back, sans I/O (RFC 8166 §3.5, RFC 8267 §3 and §4): which bytes are RDMA-Written
//! where, what the Send carries, and the chunk lists the reply header returns.
//!
//! The reply's payloads (READ data, READLINK path: one for NFSv3, one per READ-type operation of an
//! NFSv4 COMPOUND) consume the call's Write chunks in order: payload `i` goes into Write chunk `i`, and
//! its bytes and pad leave the reduced reply (its length word stays). A Write chunk of zero total
//! length asks for its result inline; payloads beyond the last Write chunk go inline too; a payload
//! longer than its chunk cannot be sent. Write chunks no payload used come back with zero lengths.
//! Then the (reduced) reply goes inline when it fits the client's receive size, else whole into the
//! Reply chunk (RDMA_NOMSG); with neither possible the answer is ERR_CHUNK.

use bytes::Bytes;
use nfs_server::{Payload, Payloads, Reply};
use rdma::RemoteSegment;
use rpcrdma_proto::{ChunkLists, RdmaHeader, ReadChunkList, SegmentList, WriteChunk};
use smallvec::SmallVec;

use crate::stats::ReplyKind;

/// Which buffer an RDMA Write reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// The reply's payload of this index ([`Planned::payloads`]).
    Payload(usize),
    /// The reply flattened for the Reply chunk ([`Planned::reply_chunk_body`]).
    ReplyChunk,
}

/// The RDMA Writes of one reply: one for an NFSv3 READ's single-segment Write chunk, kept inline.
pub(crate) type Pushes = SmallVec<[Push; 1]>;
/// The gather list of one RDMA Write: one slice of one page for a small READ, kept inline.
pub(crate) type Sources = SmallVec<[Bytes; 2]>;

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
    /// The reply's payloads, by index: those a [`Push`] names are RDMA-Written from here (the others
    /// were copied into the inline message or the Reply chunk).
    pub payloads: Payloads,
    /// What is RDMA-Written into the Reply chunk, when it is used.
    pub reply_chunk_body: Vec<u8>,
    pub pushes: Pushes,
    /// Payload bytes copied into the inline message or the Reply chunk (those not RDMA-Written from
    /// where they lie): the front end's share of "bytes copied per byte served".
    pub copied: usize,
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
    // RFC 8166 §3.4.6: the Write list comes back with each segment's length set to what was written;
    // a chunk no result used, with zeros.
    let mut chunks =
        ChunkLists { reads: ReadChunkList::new(), writes: writes.iter().map(emptied).collect(), reply: None };
    let fits = |chunks: &ChunkLists, len: usize| header_len(chunks) + len <= send_limit;
    let (inline, payloads) = reply.into_parts();
    let mut pushes = Pushes::new();
    for (i, payload) in payloads.iter().enumerate() {
        // RFC 8267 §4.3: Write chunks are consumed in order by the DDP-eligible results; an empty Write
        // chunk asks for its result inline, and a result beyond the last Write chunk is returned inline.
        if let Some(chunk) = writes.get(i).filter(|_| placed_directly(writes, i)) {
            let (filled, placed) = place(Source::Payload(i), payload.data.len(), chunk).ok_or_else(|| {
                NoRoom(format!("{}-byte payload {i}, {}-byte Write chunk {i}", payload.data.len(), chunk.byte_len()))
            })?;
            if let Some(slot) = chunks.writes.get_mut(i) {
                *slot = filled;
            }
            pushes.extend(placed);
        }
    }
    let kind = if pushes.is_empty() { ReplyKind::Inline } else { ReplyKind::WriteChunk };
    let (body, copied) = reduced(inline, &payloads, writes);
    if fits(&chunks, body.len()) {
        return Ok(Planned {
            kind,
            nomsg: false,
            chunks,
            inline: body,
            payloads,
            reply_chunk_body: Vec::new(),
            pushes,
            copied,
        });
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
        payloads,
        reply_chunk_body: body,
        pushes,
        copied,
    })
}

/// Payload `i` goes into Write chunk `i`: there is one, and it has room for something.
fn placed_directly(writes: &[WriteChunk], i: usize) -> bool {
    writes.get(i).is_some_and(|chunk| chunk.byte_len() > 0)
}

/// The RPC message without the directly placed payloads: `inline` (whose length words stay) with the
/// payloads that stay inline spliced back in at their places, with their padding; and the payload bytes
/// so copied.
fn reduced(inline: Vec<u8>, payloads: &Payloads, writes: &[WriteChunk]) -> (Vec<u8>, usize) {
    let stays = |(i, _): &(usize, &Payload)| !placed_directly(writes, *i);
    let spliced: usize = payloads.iter().enumerate().filter(stays).map(|(_, p)| p.wire_len()).sum();
    if spliced == 0 {
        return (inline, 0); // The common case: nothing to splice, nothing copied.
    }
    let mut body = Vec::with_capacity(inline.len() + spliced);
    let (mut cursor, mut copied) = (0, 0);
    for (_, payload) in payloads.iter().enumerate().filter(stays) {
        let at = payload.at.clamp(cursor, inline.len());
        body.extend_from_slice(inline.get(cursor..at).unwrap_or_default());
        for slice in payload.data.slices() {
            body.extend_from_slice(slice);
        }
        copied += payload.data.len();
        body.resize(body.len() + xdr::padding(payload.data.len()), 0);
        cursor = at;
    }
    body.extend_from_slice(inline.get(cursor..).unwrap_or_default());
    (body, copied)
}

/// `len` bytes of `slices` (taken as one run of bytes) from `offset`, as slices of the same memory:
/// the gather list of one RDMA Write. Shorter when the slices end first (never, for a [`Push`] of the
/// payload it was planned for).
pub(crate) fn gather(slices: &[Bytes], offset: usize, len: usize) -> Sources {
    let mut out = Sources::new();
    let (mut skip, mut left) = (offset, len);
    for slice in slices {
        if left == 0 {
            break;
        }
        if skip >= slice.len() {
            skip -= slice.len();
            continue;
        }
        let take = left.min(slice.len() - skip);
        out.push(slice.slice(skip..skip + take));
        left -= take;
        skip = 0;
    }
    out
}

/// Bytes of a reply header carrying `chunks`.
fn header_len(chunks: &ChunkLists) -> usize {
    RdmaHeader::chunked_len(chunks)
}

/// The chunk as returned when nothing was written to it.
fn emptied(chunk: &WriteChunk) -> WriteChunk {
    let segments = chunk.segments.iter().map(|s| rpcrdma_proto::Segment { length: 0, ..*s }).collect();
    WriteChunk { segments }
}

/// Fills `chunk`'s segments in order with `len` bytes of `source`: the chunk as returned (lengths
/// written, unused segments 0) and the RDMA Writes. `None` when the chunk is shorter than `len`.
fn place(source: Source, len: usize, chunk: &WriteChunk) -> Option<(WriteChunk, Pushes)> {
    if len as u64 > chunk.byte_len() {
        return None;
    }
    let mut left = len;
    let mut pushes = Pushes::new();
    let mut segments = SegmentList::with_capacity(chunk.segments.len());
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
        Reply::with_payload(vec![7; 120], 120, vec![9; data_len])
    }

    /// A COMPOUND-like reply: `head` bytes, then per result a 4-byte length word, its payload (cut
    /// out), and 8 bytes of what follows it.
    fn compound_reply(head: usize, results: &[usize]) -> Reply {
        let mut reply = Reply::from_inline(vec![1; head]);
        for (i, &len) in results.iter().enumerate() {
            reply.inline.extend((len as u32).to_be_bytes());
            let at = reply.inline.len();
            reply.push_payload(at, vec![0x10 + i as u8; len]);
            reply.inline.extend([0x20 + i as u8; 8]);
        }
        reply
    }

    fn sources(planned: &Planned) -> Vec<Source> {
        planned.pushes.iter().map(|p| p.source).collect()
    }

    #[test]
    fn read_data_goes_to_the_write_chunk_and_the_reduced_reply_inline() {
        let planned = plan(read_reply(5000), &[chunk(&[4096, 4096, 4096])], None, 4096).expect("plan");
        assert_eq!((planned.kind, planned.nomsg), (ReplyKind::WriteChunk, false));
        assert_eq!(planned.inline, vec![7; 120], "payload and pad removed, length word kept");
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![4096, 904, 0]);
        let pushed: Vec<(usize, u32)> = planned.pushes.iter().map(|p| (p.offset, p.remote.length)).collect();
        assert_eq!(pushed, vec![(0, 4096), (4096, 904)]);
        assert!(planned.pushes.iter().all(|p| p.source == Source::Payload(0)));
    }

    #[test]
    fn a_payload_longer_than_the_write_chunk_has_no_room() {
        assert!(plan(read_reply(8193), &[chunk(&[4096, 4096])], None, 4096).is_err());
    }

    #[test]
    fn a_small_reply_goes_inline_whole_and_unused_write_chunks_come_back_empty() {
        let planned = plan(read_reply(100), &[], None, 1024).expect("plan");
        assert_eq!((planned.kind, planned.inline.len()), (ReplyKind::Inline, 220));
        assert_eq!(planned.copied, 100, "the payload was copied into the Send");
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
        let reply = Reply::with_payload(vec![7; 2000], 2000, vec![9; 4096]);
        let planned = plan(reply, &[chunk(&[4096])], Some(&chunk(&[4096])), 1024).expect("plan");
        assert_eq!((planned.kind, planned.nomsg), (ReplyKind::ReplyChunk, true));
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![4096]);
        assert_eq!(planned.reply_chunk_body.len(), 2000);
        assert_eq!(sources(&planned), vec![Source::Payload(0), Source::ReplyChunk]);
    }

    #[test]
    fn payloads_consume_the_write_chunks_in_order() {
        let reply = compound_reply(40, &[3000, 5000]);
        let planned = plan(reply, &[chunk(&[4096]), chunk(&[4096, 4096])], None, 1024).expect("plan");
        assert_eq!(planned.kind, ReplyKind::WriteChunk);
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![3000]);
        assert_eq!(lengths(&planned.chunks.writes[1]), vec![4096, 904]);
        let pushed: Vec<(Source, usize, u32)> =
            planned.pushes.iter().map(|p| (p.source, p.offset, p.remote.length)).collect();
        assert_eq!(
            pushed,
            vec![(Source::Payload(0), 0, 3000), (Source::Payload(1), 0, 4096), (Source::Payload(1), 4096, 904)]
        );
        assert_eq!(planned.inline.len(), 40 + 2 * 12, "both payloads cut out, their length words kept");
        assert_eq!(planned.payloads.get(1).map(|p| p.data.len()), Some(5000));
        assert_eq!(planned.copied, 0, "both payloads are RDMA-Written from where they lie");
    }

    #[test]
    fn an_empty_write_chunk_returns_its_result_inline_and_the_next_chunk_serves_the_next_result() {
        let reply = compound_reply(40, &[5, 4096]);
        let empty = WriteChunk { segments: Default::default() };
        let planned = plan(reply.clone(), &[empty, chunk(&[4096])], None, 4096).expect("plan");
        assert_eq!(sources(&planned), vec![Source::Payload(1)]);
        assert!(planned.chunks.writes[0].segments.is_empty());
        assert_eq!(lengths(&planned.chunks.writes[1]), vec![4096]);
        let mut expected = vec![1; 40];
        expected.extend(5u32.to_be_bytes());
        expected.extend([0x10; 5]);
        expected.extend([0, 0, 0]);
        expected.extend([0x20; 8]);
        expected.extend(4096u32.to_be_bytes());
        expected.extend([0x21; 8]);
        assert_eq!(planned.inline, expected, "the first result inline with its pad, the second cut out");
        // Segments of zero length add up to an empty chunk as well.
        let zeros = chunk(&[0]);
        let planned = plan(reply, &[zeros, chunk(&[4096])], None, 4096).expect("plan");
        assert_eq!(sources(&planned), vec![Source::Payload(1)]);
    }

    #[test]
    fn results_beyond_the_last_write_chunk_go_inline() {
        let reply = compound_reply(40, &[4096, 6]);
        let planned = plan(reply, &[chunk(&[4096])], None, 1024).expect("plan");
        assert_eq!(sources(&planned), vec![Source::Payload(0)]);
        assert_eq!(planned.inline.len(), 40 + 12 + 12 + 8, "the second result and its pad stay inline");
        assert_eq!(&planned.inline[56..62], &[0x11; 6]);
    }

    #[test]
    fn results_beyond_the_last_write_chunk_go_into_the_reply_chunk_when_the_reply_does_not_fit_inline() {
        let reply = compound_reply(40, &[4096, 3000]);
        let planned = plan(reply, &[chunk(&[4096])], Some(&chunk(&[8192])), 1024).expect("plan");
        assert_eq!((planned.kind, planned.nomsg), (ReplyKind::ReplyChunk, true));
        assert_eq!(sources(&planned), vec![Source::Payload(0), Source::ReplyChunk]);
        assert_eq!(planned.reply_chunk_body.len(), 40 + 12 + 12 + 3000);
        assert_eq!(planned.copied, 3000, "the second result was copied into the Reply chunk");
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![4096]);
        assert!(plan(compound_reply(40, &[4096, 3000]), &[chunk(&[4096])], None, 1024).is_err());
    }

    #[test]
    fn write_chunks_no_result_used_come_back_with_zero_lengths() {
        let reply = compound_reply(40, &[100]);
        let planned = plan(reply, &[chunk(&[4096]), chunk(&[512, 512])], None, 1024).expect("plan");
        assert_eq!(lengths(&planned.chunks.writes[0]), vec![100]);
        assert_eq!(lengths(&planned.chunks.writes[1]), vec![0, 0]);
    }

    #[test]
    fn a_write_gathers_its_bytes_from_the_slices_where_they_lie() {
        let slices = [Bytes::from_static(b"abcd"), Bytes::from_static(b"efgh"), Bytes::from_static(b"ij")];
        let cut = gather(&slices, 3, 6);
        assert_eq!(cut.concat(), b"defghi");
        assert_eq!(cut.len(), 3);
        assert_eq!(cut[1].as_ptr(), slices[1].as_ptr(), "a slice of the same memory, not a copy");
        assert_eq!(gather(&slices, 4, 4)[..], [Bytes::from_static(b"efgh")]);
        assert_eq!(gather(&slices, 9, 5).concat(), b"j", "cut short where the slices end");
        assert!(gather(&slices, 10, 1).is_empty());
    }

    #[test]
    fn any_result_longer_than_its_write_chunk_has_no_room() {
        let reply = compound_reply(40, &[100, 5000]);
        let err = plan(reply, &[chunk(&[4096]), chunk(&[4096])], None, 4096).expect_err("too long");
        assert!(err.0.contains("5000-byte payload 1, 4096-byte Write chunk 1"), "{}", err.0);
    }
}
