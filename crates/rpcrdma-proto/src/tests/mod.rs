//! Unit tests, one file per concern. Helpers shared by them live here.

mod credits;
mod header;
mod hostile;
mod nfs3_binding;
mod private_data;
mod validate;

use xdr::{XdrEncode, XdrWriter};

use crate::{ChunkLists, RdmaErrorBody, RdmaHeader, ReadChunk, Segment, WriteChunk};

pub(crate) fn seg(handle: u32, length: u32, offset: u64) -> Segment {
    Segment { handle, length, offset }
}

/// Big-endian XDR words.
pub(crate) fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

pub(crate) fn encode(h: &RdmaHeader) -> Vec<u8> {
    let mut w = XdrWriter::new();
    h.encode(&mut w);
    w.into_vec()
}

/// One header of every form the crate represents.
pub(crate) fn sample_headers() -> Vec<RdmaHeader> {
    let read = ReadChunk {
        position: 132,
        segments: crate::smallvec![seg(0x11, 4096, 0x7f00_0000_1000), seg(0x12, 100, 0x2000)],
    };
    let call = ReadChunk { position: 0, segments: crate::smallvec![seg(0x21, 2000, 0x3000)] };
    let write = WriteChunk { segments: crate::smallvec![seg(0x31, 1 << 20, 0xdead_beef_0000)] };
    let reply = WriteChunk { segments: crate::smallvec![seg(0x41, 8192, 0x5000), seg(0x42, 4096, 0x9000)] };
    vec![
        RdmaHeader::msg(1, 128, ChunkLists::default()),
        RdmaHeader::msg(2, 128, ChunkLists { reads: crate::smallvec![read.clone()], ..Default::default() }),
        RdmaHeader::msg(3, 64, ChunkLists { writes: crate::smallvec![write.clone()], ..Default::default() }),
        RdmaHeader::msg(4, 64, ChunkLists { reply: Some(reply.clone()), ..Default::default() }),
        RdmaHeader::msg(
            5,
            32,
            ChunkLists {
                reads: crate::smallvec![read.clone()],
                writes: crate::smallvec![write.clone(), WriteChunk::default()],
                reply: Some(reply.clone()),
            },
        ),
        RdmaHeader::nomsg(6, 128, ChunkLists { reads: crate::smallvec![call.clone()], ..Default::default() }),
        RdmaHeader::nomsg(
            7,
            128,
            ChunkLists { reads: crate::smallvec![call, read], writes: crate::smallvec![write], reply: Some(reply) },
        ),
        RdmaHeader::error(8, 64, RdmaErrorBody::Vers { low: 1, high: 1 }),
        RdmaHeader::error(9, 64, RdmaErrorBody::Vers { low: 1, high: 2 }),
        RdmaHeader::error(10, 64, RdmaErrorBody::Chunk),
    ]
}
