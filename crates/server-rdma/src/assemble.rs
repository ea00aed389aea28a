//! Putting a call back together from its Read chunks, sans I/O (RFC 8166 §3.4.5, §3.5.3).
//!
//! A Read chunk's data belongs at its `position` in the unreduced call; the requester removed it (and
//! its XDR padding, which is never transferred) from the message it sent. [`plan`] lays the whole call
//! out in one buffer: the pieces of the reduced message are copied from the Send (RDMA_MSG) or RDMA-Read
//! from the position-zero chunk (RDMA_NOMSG), each chunk's segments are RDMA-Read straight to their
//! place, and padding stays zero. So a 1 MiB WRITE lands once, where the handler reads it.

use std::ops::Range;

use rdma::RemoteSegment;
use rpcrdma_proto::{ReadChunk, Segment};
use smallvec::SmallVec;

/// Where each byte of the call comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Assembly {
    /// Bytes of the whole call.
    pub len: usize,
    /// Pieces of the received inline message: (offset in the call, range of the inline message).
    pub copies: SmallVec<[(usize, Range<usize>); 2]>,
    /// RDMA Reads: (offset in the call, the requester's memory).
    pub reads: SmallVec<[(usize, RemoteSegment); 1]>,
    /// XDR padding after each chunk's data: zeros.
    pub pads: SmallVec<[Range<usize>; 1]>,
}

/// Chunks that [`validate_call`](rpcrdma_proto::validate_call) let through but cannot be laid out
/// (positions out of order, lengths that overflow): ERR_CHUNK all the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LayoutError(pub &'static str);

impl Assembly {
    /// Prepares `buf` (of [`len`](Self::len) bytes, contents unspecified) for the RDMA Reads: the
    /// inline pieces copied in, the padding zeroed. The Reads then overwrite every other byte.
    pub fn fill(&self, buf: &mut [u8], inline: &[u8]) {
        for (at, range) in &self.copies {
            let (Some(dst), Some(src)) = (buf.get_mut(*at..at + range.len()), inline.get(range.clone())) else {
                continue; // Unreachable by construction: plan() only emits ranges inside both.
            };
            dst.copy_from_slice(src);
        }
        for pad in &self.pads {
            if let Some(zeros) = buf.get_mut(pad.clone()) {
                zeros.fill(0);
            }
        }
    }
}

/// Where the reduced message comes from.
enum Reduced<'a> {
    Inline(usize),
    /// RFC 8166 §3.5.3: the position-zero Read chunk holds the whole (reduced) call.
    Chunk(&'a [Segment]),
}

impl Reduced<'_> {
    fn len(&self) -> u64 {
        match self {
            Reduced::Inline(len) => *len as u64,
            Reduced::Chunk(segments) => segments.iter().map(|s| u64::from(s.length)).sum(),
        }
    }
}

/// Lays out a call of `inline_len` inline bytes and `reads` (validated: positions aligned, increasing,
/// position zero first and only for RDMA_NOMSG).
pub(crate) fn plan(reads: &[ReadChunk], inline_len: usize) -> Result<Assembly, LayoutError> {
    let (reduced, chunks) = match reads.split_first() {
        Some((first, rest)) if first.position == 0 => (Reduced::Chunk(&first.segments), rest),
        _ => (Reduced::Inline(inline_len), reads),
    };
    let mut out = Assembly::default();
    let mut full = 0u64; // next byte of the call to fill
    let mut taken = 0u64; // bytes of the reduced message placed so far
    let mut moved = 0u64; // bytes (padded) of chunks placed so far
    for chunk in chunks {
        // RFC 8166 §3.4.5: positions count in the unreduced message, where earlier chunks are back.
        let at = u64::from(chunk.position).checked_sub(moved).filter(|at| *at >= taken);
        let at = at.filter(|at| *at <= reduced.len()).ok_or(LayoutError("read chunk position out of order"))?;
        piece(&mut out, &reduced, taken..at, full)?;
        full += at - taken;
        taken = at;
        for segment in &chunk.segments {
            out.reads.push((to_usize(full)?, remote(segment.handle, segment.offset, segment.length)));
            full += u64::from(segment.length);
        }
        let len: u64 = chunk.segments.iter().map(|s| u64::from(s.length)).sum();
        // RFC 8166 §3.4.5: the XDR pad is not transferred; the receiver restores it (as zeros).
        let padded = len.div_ceil(4) * 4;
        out.pads.push(to_usize(full)?..to_usize(full + padded - len)?);
        full += padded - len;
        moved += padded;
    }
    piece(&mut out, &reduced, taken..reduced.len(), full)?;
    out.len = to_usize(full + reduced.len() - taken)?;
    Ok(out)
}

/// Places bytes `range` of the reduced message at `at` in the call.
fn piece(out: &mut Assembly, reduced: &Reduced<'_>, range: Range<u64>, at: u64) -> Result<(), LayoutError> {
    if range.is_empty() {
        return Ok(());
    }
    match reduced {
        Reduced::Inline(_) => out.copies.push((to_usize(at)?, to_usize(range.start)?..to_usize(range.end)?)),
        Reduced::Chunk(segments) => {
            let mut start = 0u64; // offset of `segment` in the chunk
            for segment in *segments {
                let end = start + u64::from(segment.length);
                let (lo, hi) = (range.start.max(start), range.end.min(end));
                if lo < hi {
                    let offset =
                        segment.offset.checked_add(lo - start).ok_or(LayoutError("segment offset overflows"))?;
                    out.reads
                        .push((to_usize(at + lo - range.start)?, remote(segment.handle, offset, (hi - lo) as u32)));
                }
                start = end;
            }
        }
    }
    Ok(())
}

fn remote(handle: u32, offset: u64, length: u32) -> RemoteSegment {
    RemoteSegment { handle, offset, length }
}

fn to_usize(value: u64) -> Result<usize, LayoutError> {
    usize::try_from(value).map_err(|_| LayoutError("call larger than memory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(handle: u32, length: u32, offset: u64) -> Segment {
        Segment { handle, length, offset }
    }

    /// Runs the plan against fake remote memory: handle h's byte at offset o is (h + o) as u8.
    fn assemble(reads: &[ReadChunk], inline: &[u8]) -> Vec<u8> {
        let plan = plan(reads, inline.len()).expect("layout");
        // Stale contents, as a reused buffer has: every byte must be written by the plan.
        let mut buf = vec![0xee; plan.len];
        plan.fill(&mut buf, inline);
        for (at, s) in &plan.reads {
            for i in 0..s.length as usize {
                buf[at + i] = (s.handle as u64 + s.offset + i as u64) as u8;
            }
        }
        buf
    }

    fn remote_bytes(handle: u32, offset: u64, len: usize) -> Vec<u8> {
        (0..len).map(|i| (handle as u64 + offset + i as u64) as u8).collect()
    }

    #[test]
    fn a_call_without_read_chunks_is_its_inline_message() {
        assert_eq!(assemble(&[], b"abcdefgh"), b"abcdefgh");
    }

    #[test]
    fn write_data_is_spliced_at_its_position_with_zero_padding() {
        // WRITE args ... length word (4095) | data (4095 bytes + 1 pad) | nothing after.
        let inline = b"HEADER..\x00\x00\x0f\xff";
        let chunk = ReadChunk { position: 12, segments: rpcrdma_proto::smallvec![seg(5, 4000, 100), seg(6, 95, 0)] };
        let call = assemble(&[chunk], inline);
        assert_eq!(call.len(), 12 + 4096);
        assert_eq!(&call[..12], inline);
        let mut data = remote_bytes(5, 100, 4000);
        data.extend(remote_bytes(6, 0, 95));
        assert_eq!(&call[12..12 + 4095], &data[..]);
        assert_eq!(call[12 + 4095], 0, "the XDR pad is zero");
    }

    #[test]
    fn inline_bytes_after_a_chunk_follow_its_padding() {
        let inline = b"abcdWXYZ";
        let first = ReadChunk { position: 4, segments: rpcrdma_proto::smallvec![seg(1, 3, 0)] };
        let second = ReadChunk { position: 8, segments: rpcrdma_proto::smallvec![seg(2, 4, 0)] };
        let call = assemble(&[first, second], inline);
        let mut expected = b"abcd".to_vec();
        expected.extend(remote_bytes(1, 0, 3));
        expected.push(0);
        expected.extend(remote_bytes(2, 0, 4));
        expected.extend(b"WXYZ");
        assert_eq!(call, expected);
    }

    #[test]
    fn a_long_call_is_read_whole_from_the_position_zero_chunk() {
        let chunk = ReadChunk { position: 0, segments: rpcrdma_proto::smallvec![seg(3, 10, 0), seg(4, 6, 50)] };
        let call = assemble(&[chunk], &[]);
        let mut expected = remote_bytes(3, 0, 10);
        expected.extend(remote_bytes(4, 50, 6));
        assert_eq!(call, expected);
    }

    #[test]
    fn a_long_call_with_a_data_chunk_splits_the_reads_of_the_position_zero_chunk() {
        let whole = ReadChunk { position: 0, segments: rpcrdma_proto::smallvec![seg(3, 6, 0), seg(4, 6, 0)] };
        let data = ReadChunk { position: 8, segments: rpcrdma_proto::smallvec![seg(9, 2, 0)] };
        let call = assemble(&[whole, data], &[]);
        let mut expected = remote_bytes(3, 0, 6);
        expected.extend(remote_bytes(4, 0, 2));
        expected.extend(remote_bytes(9, 0, 2));
        expected.extend([0, 0]);
        expected.extend(remote_bytes(4, 2, 4));
        assert_eq!(call, expected);
    }

    #[test]
    fn positions_beyond_or_before_the_message_are_layout_errors() {
        let beyond = ReadChunk { position: 16, segments: rpcrdma_proto::smallvec![seg(1, 4, 0)] };
        assert!(plan(&[beyond], 8).is_err());
        let first = ReadChunk { position: 8, segments: rpcrdma_proto::smallvec![seg(1, 8, 0)] };
        let overlapping = ReadChunk { position: 12, segments: rpcrdma_proto::smallvec![seg(1, 4, 0)] };
        assert!(plan(&[first, overlapping], 8).is_err());
    }
}
