//! RDMA segments and the three chunk lists of an RPC-over-RDMA v1 header (RFC 8166 §3.4, §4.3).
//!
//! Lists and chunks keep their first element inline ([`SmallVec`]): an NFSv3 call of the Linux client
//! or of ours carries at most one chunk per list and one segment per chunk, so decoding and building
//! the headers of the data path allocate nothing.

use smallvec::SmallVec;
use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

/// Bytes of one plain segment on the wire: handle, length, offset.
pub const SEGMENT_XDR_LEN: usize = 16;
/// Bytes of one Read list entry on the wire: "present" discriminator, position, segment.
pub const READ_ENTRY_XDR_LEN: usize = 4 + 4 + SEGMENT_XDR_LEN;

/// RFC 8166 §3.4.3: a registered memory region of the peer: R_key, byte count, and address (or offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Segment {
    pub handle: u32,
    pub length: u32,
    pub offset: u64,
}

impl XdrEncode for Segment {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.handle);
        w.put_u32(self.length);
        w.put_u64(self.offset);
    }
}

impl<'a> XdrDecode<'a> for Segment {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(Segment { handle: r.get_u32()?, length: r.get_u32()?, offset: r.get_u64()? })
    }
}

/// The segments of one chunk, the first inline.
pub type SegmentList = SmallVec<[Segment; 1]>;
/// The Read chunks of a Read list, the first inline.
pub type ReadChunkList = SmallVec<[ReadChunk; 1]>;
/// The Write chunks of a Write list, the first inline.
pub type WriteChunkList = SmallVec<[WriteChunk; 1]>;

fn total_length(segments: &[Segment]) -> u64 {
    segments.iter().map(|s| u64::from(s.length)).sum()
}

/// RFC 8166 §3.4.5: a Read chunk is the run of consecutive read segments that share one XDR position.
/// On the wire the Read list is flat (`1, position, segment` per segment); this groups it, and encoding
/// flattens it again in the same order, so the bytes are reproduced exactly.
///
/// A chunk must hold at least one segment: one with none encodes to nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReadChunk {
    /// Offset of the data item in the unreduced RPC message; 0 means "the whole message" (RFC 8166 §3.5.3).
    pub position: u32,
    pub segments: SegmentList,
}

impl ReadChunk {
    /// Sum of the segment lengths: the bytes the responder would pull.
    pub fn byte_len(&self) -> u64 {
        total_length(&self.segments)
    }
}

/// RFC 8166 §3.4.6: a Write chunk (also the shape of the Reply chunk): a counted array of segments.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WriteChunk {
    pub segments: SegmentList,
}

impl WriteChunk {
    /// Sum of the segment lengths: the room the requester offers.
    pub fn byte_len(&self) -> u64 {
        total_length(&self.segments)
    }
}

impl XdrEncode for WriteChunk {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.segments.len() as u32);
        for s in &self.segments {
            s.encode(w);
        }
    }
}

/// Bounds applied while decoding chunk lists, so a hostile header costs little memory.
///
/// Where the defaults come from:
/// - The Linux client caps the RDMA segments of one header at 16 (`RPCRDMA_MAX_HDR_SEGS` in
///   net/sunrpc/xprtrdma/xprt_rdma.h) and sends at most one Read chunk, one Write chunk and one Reply
///   chunk per NFSv3 call.
/// - Older clients and memory registration without FRWR use one segment per page: a 1 MiB payload
///   in 4 KiB pages plus head and tail is 260 segments (`RPCRDMA_MAX_SEGS`), and knfsd bounds a
///   chunk's segment count by the pages of its largest payload (`rc_maxpages`).
/// - A 4 KiB receive buffer (the Linux default inline size) cannot hold more than
///   (4096 − 28) / 16 = 254 segments anyway, so 256 in total costs nothing legitimate.
/// - 8 chunks per list leaves room for NFSv4 COMPOUNDs with several READs or WRITEs.
///
/// 256 segments of 16 bytes is 4 KiB: the most a header can make us allocate for segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeLimits {
    /// Read chunks (after grouping) in the Read list; Write chunks in the Write list.
    pub max_chunks_per_list: u32,
    /// Segments in one Read, Write or Reply chunk.
    pub max_segments_per_chunk: u32,
    /// Segments in the whole header, all lists together.
    pub max_total_segments: u32,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits { max_chunks_per_list: 8, max_segments_per_chunk: 256, max_total_segments: 256 }
    }
}

/// RFC 8166 §4.3: the Read list, the Write list and the Reply chunk carried by RDMA_MSG and RDMA_NOMSG.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChunkLists {
    pub reads: ReadChunkList,
    pub writes: WriteChunkList,
    pub reply: Option<WriteChunk>,
}

impl ChunkLists {
    /// No chunk at all: the 12 bytes of three "absent" discriminators.
    pub fn is_empty(&self) -> bool {
        self.reads.is_empty() && self.writes.is_empty() && self.reply.is_none()
    }

    /// Every segment in every list.
    pub fn segment_count(&self) -> usize {
        self.reads.iter().map(|c| c.segments.len()).sum::<usize>()
            + self.writes.iter().map(|c| c.segments.len()).sum::<usize>()
            + self.reply.as_ref().map_or(0, |c| c.segments.len())
    }

    /// Bytes [`encode`](XdrEncode::encode) writes, computed without encoding.
    pub fn encoded_len(&self) -> usize {
        let read_segments: usize = self.reads.iter().map(|c| c.segments.len()).sum();
        let reads = read_segments * READ_ENTRY_XDR_LEN + 4;
        let writes: usize = self.writes.iter().map(|c| 8 + c.segments.len() * SEGMENT_XDR_LEN).sum::<usize>() + 4;
        let reply = self.reply.as_ref().map_or(4, |c| 8 + c.segments.len() * SEGMENT_XDR_LEN);
        reads + writes + reply
    }

    /// Decodes the three lists, bounded by `limits` and by the bytes present.
    pub fn decode(r: &mut XdrReader<'_>, limits: &DecodeLimits) -> Result<Self, XdrError> {
        let mut budget = SegmentBudget { left: limits.max_total_segments, max: limits.max_total_segments };
        let reads = decode_read_list(r, limits, &mut budget)?;
        let writes = decode_write_list(r, limits, &mut budget)?;
        // RFC 8166 §4.3.3: the Reply chunk is optional-data: absent, or one Write-chunk-shaped array.
        let reply = if r.get_bool()? {
            Some(decode_write_chunk(r, limits, &mut budget, "reply chunk segments")?)
        } else {
            None
        };
        Ok(ChunkLists { reads, writes, reply })
    }
}

impl XdrEncode for ChunkLists {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        // RFC 8166 §4.3.1: one list entry per read segment, each repeating its chunk's position.
        for chunk in &self.reads {
            for s in &chunk.segments {
                w.put_bool(true);
                w.put_u32(chunk.position);
                s.encode(w);
            }
        }
        w.put_bool(false);
        // RFC 8166 §4.3.2: one list entry per Write chunk.
        for chunk in &self.writes {
            w.put_bool(true);
            chunk.encode(w);
        }
        w.put_bool(false);
        self.reply.encode(w);
    }
}

/// Segments still allowed in this header.
struct SegmentBudget {
    left: u32,
    max: u32,
}

impl SegmentBudget {
    fn take(&mut self, n: u32, offset: usize) -> Result<(), XdrError> {
        if n > self.left {
            let len = u64::from(self.max - self.left) + u64::from(n);
            return Err(XdrError::LengthOverLimit {
                what: "segments in one header",
                len,
                max: self.max.into(),
                offset,
            });
        }
        self.left -= n;
        Ok(())
    }
}

fn decode_read_list(
    r: &mut XdrReader<'_>,
    limits: &DecodeLimits,
    budget: &mut SegmentBudget,
) -> Result<ReadChunkList, XdrError> {
    let mut chunks = ReadChunkList::new();
    // RFC 8166 §4.3.1: the Read list is an XDR optional-data chain; each entry costs 24 bytes of input,
    // and the limits are checked before each push, so memory is bounded by both.
    while r.get_bool()? {
        let offset = r.position();
        let position = r.get_u32()?;
        let segment = Segment::decode(r)?;
        budget.take(1, offset)?;
        match chunks.last_mut() {
            // RFC 8166 §3.4.5: consecutive read segments with the same position form one Read chunk.
            Some(last) if last.position == position => {
                if last.segments.len() >= limits.max_segments_per_chunk as usize {
                    return Err(XdrError::LengthOverLimit {
                        what: "read chunk segments",
                        len: last.segments.len() as u64 + 1,
                        max: limits.max_segments_per_chunk.into(),
                        offset,
                    });
                }
                last.segments.push(segment);
            }
            _ => {
                if chunks.len() >= limits.max_chunks_per_list as usize || limits.max_segments_per_chunk == 0 {
                    return Err(XdrError::LengthOverLimit {
                        what: "read list chunks",
                        len: chunks.len() as u64 + 1,
                        max: limits.max_chunks_per_list.into(),
                        offset,
                    });
                }
                chunks.push(ReadChunk { position, segments: SegmentList::from_buf([segment]) });
            }
        }
    }
    Ok(chunks)
}

fn decode_write_list(
    r: &mut XdrReader<'_>,
    limits: &DecodeLimits,
    budget: &mut SegmentBudget,
) -> Result<WriteChunkList, XdrError> {
    let mut chunks = WriteChunkList::new();
    // RFC 8166 §4.3.2: the Write list is an XDR optional-data chain of Write chunks.
    while r.get_bool()? {
        if chunks.len() >= limits.max_chunks_per_list as usize {
            return Err(XdrError::LengthOverLimit {
                what: "write list chunks",
                len: chunks.len() as u64 + 1,
                max: limits.max_chunks_per_list.into(),
                offset: r.position(),
            });
        }
        chunks.push(decode_write_chunk(r, limits, budget, "write chunk segments")?);
    }
    Ok(chunks)
}

fn decode_write_chunk(
    r: &mut XdrReader<'_>,
    limits: &DecodeLimits,
    budget: &mut SegmentBudget,
    what: &'static str,
) -> Result<WriteChunk, XdrError> {
    let offset = r.position();
    // RFC 8166 §3.4.6: `xdr_rdma_segment target<>`; the count is checked against the limit and against
    // the bytes present (16 per segment) before anything is reserved.
    let n = r.get_array_len(what, limits.max_segments_per_chunk, SEGMENT_XDR_LEN)?;
    budget.take(n as u32, offset)?;
    let mut segments = SegmentList::with_capacity(n);
    for _ in 0..n {
        segments.push(Segment::decode(r)?);
    }
    Ok(WriteChunk { segments })
}
