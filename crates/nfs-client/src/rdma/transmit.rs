//! Sending one call on a queue pair: give the server access to the memory its chunks name, write the
//! transport header, post the Send. Access is per call and per transmission (RFC 8166 §3.4.1 leaves it
//! to the requester): each chunk borrows a piece of the queue pair's pool (registered once) through a
//! window of its own ([`ChunkPool`]) — the WRITE payload copied in for the server to RDMA-Read, the
//! Write / Reply chunk for the server to RDMA-Write. A chunk longer than a piece, or a call that finds
//! every piece out, registers memory of its own instead (the WRITE payload where it lies, no copy).
//! [`Regions::into_offered`] closes every window and invalidates every registration when the reply
//! has arrived, so a late access through an old handle fails.

use std::net::SocketAddr;

use bytes::Bytes;
use rdma::{Access, MemoryRegion, QueuePair, RdmaError, RegBuf, WrId};
use rpcrdma_proto::{InlineThresholds, RdmaHeader, Segment};
use xdr::{XdrEncode, XdrWriter};

use super::marshal::{self, Layout, ReplyRoom, Segments, SendPlan};
use super::pool::{ChunkPool, Lent};
use super::reply::Offered;
use crate::error::ClientError;
use crate::transport::RpcCall;
use std::sync::Arc;

/// The tag of a call's Send: its xid with this bit set (receives are tagged 0 by providers).
const SEND_TAG: WrId = 1 << 32;

/// The memory one chunk of a call names: a piece of the pool behind a window, or a registration.
#[derive(Debug)]
pub(crate) enum Chunk {
    Lent(Lent),
    Registered(MemoryRegion),
}

impl Chunk {
    fn end_access(&self) {
        match self {
            Chunk::Lent(lent) => lent.close(),
            Chunk::Registered(region) => region.invalidate(),
        }
    }

    /// The whole chunk as one segment (RFC 8166 §3.4.3: handle, length, offset).
    fn segment(&self) -> Result<Segment, RdmaError> {
        let remote = match self {
            Chunk::Lent(lent) => lent.segment(),
            Chunk::Registered(region) => u32::try_from(region.len()).ok().and_then(|len| region.segment(0, len)),
        };
        let remote = remote.ok_or_else(|| RdmaError::Invalid("a chunk longer than 4 GiB".into()))?;
        Ok(Segment { handle: remote.handle, length: remote.length, offset: remote.offset })
    }

    /// Bytes [`into_bytes`](Self::into_bytes) copies.
    fn copied_out(&self) -> u64 {
        match self {
            Chunk::Lent(lent) => lent.len() as u64,
            Chunk::Registered(_) => 0,
        }
    }

    /// The chunk's bytes once the server's access has ended, a piece of the pool copied out.
    fn into_bytes(self) -> Result<Bytes, BufferHeld> {
        match self {
            Chunk::Lent(lent) => lent.take(lent.len()).map_err(|_| BufferHeld),
            // Only a provider's posted operation holds a clone, and we post none on reply buffers.
            Chunk::Registered(region) => region.into_buffer().map(RegBuf::into_bytes).map_err(|_| BufferHeld),
        }
    }

    /// [`into_bytes`](Self::into_bytes) for opaque data (the Write chunk's READ data, which nothing in
    /// the client decodes): a piece of the pool is lent as it is, not copied out (both providers lend
    /// their pools in place).
    fn into_payload(self) -> Result<Bytes, BufferHeld> {
        match self {
            Chunk::Lent(lent) => {
                let len = lent.len();
                lent.into_bytes(len).map_err(|_| BufferHeld)
            }
            registered @ Chunk::Registered(_) => registered.into_bytes(),
        }
    }
}

/// The memory named by one transmission of a call.
#[derive(Debug, Default)]
pub(crate) struct Regions {
    /// The WRITE payload (Read chunk) or the whole call (Long Call).
    read: Option<Chunk>,
    write: Option<Chunk>,
    reply: Option<Chunk>,
    /// Bytes copied into the pool for this transmission.
    pub(crate) copied_in: u64,
}

impl Regions {
    fn all(&self) -> impl Iterator<Item = &Chunk> {
        self.read.iter().chain(&self.write).chain(&self.reply)
    }

    /// Ends remote access to every chunk (RFC 8166 §3.4.1: memory is exposed only for the call's
    /// lifetime).
    pub(crate) fn invalidate(&self) {
        for chunk in self.all() {
            chunk.end_access();
        }
    }

    /// Ends every access and gives the reply buffers back, with the bytes copied out of the pool. The
    /// Write chunk (READ data, RFC 8267: the only DDP-eligible item the client offers one for) is lent
    /// in place; the Reply chunk, which the client decodes, is copied out, so that no decoder reads
    /// memory a peer maps.
    pub(crate) fn into_offered(self) -> Result<(Offered, u64), BufferHeld> {
        self.invalidate();
        let copied = self.reply.as_ref().map_or(0, Chunk::copied_out);
        let offered = Offered {
            write: self.write.map(Chunk::into_payload).transpose()?,
            reply: self.reply.map(Chunk::into_bytes).transpose()?,
        };
        Ok((offered, copied))
    }
}

/// A reply chunk's buffer could not be given back after invalidation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a reply chunk's buffer is still held by the RDMA provider")]
pub(crate) struct BufferHeld;

/// Why a transmission did not happen.
#[derive(Debug)]
pub(crate) enum TransmitError {
    /// The connection is failing: the call waits for the next one.
    Connection(RdmaError),
    /// This call cannot be sent: it fails.
    Call(ClientError),
}

/// Registers `call`'s chunks on `qp` and posts its Send with `credits` requested. On success the
/// regions are the caller's to invalidate when the call ends; on failure none stays registered.
pub(crate) fn transmit(
    qp: &dyn QueuePair,
    pool: Option<&Arc<ChunkPool>>,
    addr: SocketAddr,
    call: &RpcCall,
    credits: u32,
    limits: InlineThresholds,
) -> Result<Regions, TransmitError> {
    let layout = marshal::layout(call, limits)
        .map_err(|e| TransmitError::Call(ClientError::InvalidArgument { proc: call.proc, detail: e.to_string() }))?;
    let mut regions = Regions::default();
    let posted = register_and_send(qp, pool, call, credits, &layout, &mut regions);
    match posted {
        Ok(()) => Ok(regions),
        Err(e) => {
            regions.invalidate();
            Err(match e {
                RdmaError::Disconnected | RdmaError::QueueFull { .. } | RdmaError::Io { .. } => {
                    TransmitError::Connection(e)
                }
                other => TransmitError::Call(ClientError::Rdma { addr, source: other }),
            })
        }
    }
}

fn register_and_send(
    qp: &dyn QueuePair,
    pool: Option<&Arc<ChunkPool>>,
    call: &RpcCall,
    credits: u32,
    layout: &Layout,
    regions: &mut Regions,
) -> Result<(), RdmaError> {
    let mut segments = Segments::default();
    let readable = match layout.send {
        SendPlan::Inline => None,
        SendPlan::ReadChunk { .. } => call.payload.as_ref().map(|p| p.data.clone()),
        SendPlan::LongCall => Some(marshal::whole_call(call)),
    };
    if let Some(data) = readable {
        let chunk = match pool.and_then(|p| p.lend_filled(qp, &data)) {
            Some(lent) => {
                let (lent, copied) = lent?;
                regions.copied_in += copied as u64;
                Chunk::Lent(lent)
            }
            None => Chunk::Registered(qp.register(RegBuf::ReadOnly(data), Access::REMOTE_READ)?),
        };
        segments.read = Some(chunk.segment()?);
        regions.read = Some(chunk);
    }
    match layout.reply {
        ReplyRoom::Inline => {}
        ReplyRoom::WriteChunk(len) => {
            let chunk = writable_chunk(qp, pool, len)?;
            segments.write = Some(chunk.segment()?);
            regions.write = Some(chunk);
        }
        ReplyRoom::ReplyChunk(len) => {
            let chunk = writable_chunk(qp, pool, len)?;
            segments.reply = Some(chunk.segment()?);
            regions.reply = Some(chunk);
        }
    }
    let chunks = marshal::chunk_lists(layout, &segments);
    // RFC 8166 §3.5.3: a Long Call is RDMA_NOMSG; everything else RDMA_MSG.
    let header = match layout.send {
        SendPlan::LongCall => RdmaHeader::nomsg(call.xid, credits, chunks),
        _ => RdmaHeader::msg(call.xid, credits, chunks),
    };
    let mut w = XdrWriter::with_capacity(header.encoded_len());
    header.encode(&mut w);
    let header = w.into_vec();
    let parts = marshal::send_parts(&header, call, layout.send);
    qp.post_send(SEND_TAG | WrId::from(call.xid), &parts)
}

/// `len` bytes the server may RDMA-Write: a piece of the pool, else a registration of its own.
fn writable_chunk(qp: &dyn QueuePair, pool: Option<&Arc<ChunkPool>>, len: u32) -> Result<Chunk, RdmaError> {
    match pool.and_then(|p| p.lend_writable(qp, len as usize)) {
        Some(lent) => Ok(Chunk::Lent(lent?)),
        None => {
            let access = Access::LOCAL_WRITE | Access::REMOTE_WRITE;
            Ok(Chunk::Registered(qp.register(RegBuf::Writable(vec![0; len as usize]), access)?))
        }
    }
}
