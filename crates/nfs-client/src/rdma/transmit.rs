//! Sending one call on a queue pair: register the memory its chunks name, write the transport header,
//! post the Send. Registration is per call and per transmission (RFC 8166 §3.4.1 leaves it to the
//! requester; the Linux client registers per chunk): the WRITE payload is registered where it lies
//! (the caller's [`Bytes`], read-only, no copy) for the server to RDMA-Read, and the Write / Reply chunk
//! buffers are registered for the server to RDMA-Write. [`Regions::into_offered`] invalidates them all
//! when the reply has arrived, so a late access through an old handle fails.

use std::net::SocketAddr;

use bytes::Bytes;
use rdma::{Access, MemoryRegion, QueuePair, RdmaError, RegBuf, WrId};
use rpcrdma_proto::{InlineThresholds, RdmaHeader, Segment};
use xdr::{XdrEncode, XdrWriter};

use super::marshal::{self, Layout, ReplyRoom, Segments, SendPlan};
use super::reply::Offered;
use crate::error::ClientError;
use crate::transport::RpcCall;

/// The tag of a call's Send: its xid with this bit set (receives are tagged 0 by providers).
const SEND_TAG: WrId = 1 << 32;

/// The memory registered for one transmission of a call.
#[derive(Debug, Default)]
pub(crate) struct Regions {
    /// The WRITE payload (Read chunk) or the whole call (Long Call).
    read: Option<MemoryRegion>,
    write: Option<MemoryRegion>,
    reply: Option<MemoryRegion>,
}

impl Regions {
    fn all(&self) -> impl Iterator<Item = &MemoryRegion> {
        self.read.iter().chain(&self.write).chain(&self.reply)
    }

    /// Ends remote access to every region (RFC 8166 §3.4.1: memory is exposed only for the call's
    /// lifetime).
    pub(crate) fn invalidate(&self) {
        for region in self.all() {
            region.invalidate();
        }
    }

    /// Invalidates every region and gives the reply buffers back.
    pub(crate) fn into_offered(self) -> Result<Offered, BufferHeld> {
        self.invalidate();
        Ok(Offered { write: give_back(self.write)?, reply: give_back(self.reply)? })
    }
}

/// A reply chunk's buffer could not be given back after invalidation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a reply chunk's buffer is still held by the RDMA provider")]
pub(crate) struct BufferHeld;

fn give_back(region: Option<MemoryRegion>) -> Result<Option<Bytes>, BufferHeld> {
    match region.map(MemoryRegion::into_buffer) {
        None => Ok(None),
        Some(Ok(buf)) => Ok(Some(buf.into_bytes())),
        // Only a provider's posted operation holds a clone, and we post none on reply buffers.
        Some(Err(_)) => Err(BufferHeld),
    }
}

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
    addr: SocketAddr,
    call: &RpcCall,
    credits: u32,
    limits: InlineThresholds,
) -> Result<Regions, TransmitError> {
    let layout = marshal::layout(call, limits)
        .map_err(|e| TransmitError::Call(ClientError::InvalidArgument { proc: call.proc, detail: e.to_string() }))?;
    let mut regions = Regions::default();
    let posted = register_and_send(qp, call, credits, &layout, &mut regions);
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
        let region = qp.register(RegBuf::ReadOnly(data), Access::REMOTE_READ)?;
        segments.read = Some(segment_of(&region)?);
        regions.read = Some(region);
    }
    let writable = Access::LOCAL_WRITE | Access::REMOTE_WRITE;
    match layout.reply {
        ReplyRoom::Inline => {}
        ReplyRoom::WriteChunk(len) => {
            let region = qp.register(RegBuf::Writable(vec![0; len as usize]), writable)?;
            segments.write = Some(segment_of(&region)?);
            regions.write = Some(region);
        }
        ReplyRoom::ReplyChunk(len) => {
            let region = qp.register(RegBuf::Writable(vec![0; len as usize]), writable)?;
            segments.reply = Some(segment_of(&region)?);
            regions.reply = Some(region);
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
    qp.post_send(SEND_TAG | WrId::from(call.xid), &marshal::send_parts(&header, call, layout.send))
}

/// The whole region as one segment (RFC 8166 §3.4.3: handle, length, offset).
fn segment_of(region: &MemoryRegion) -> Result<Segment, RdmaError> {
    let len = u32::try_from(region.len()).map_err(|_| RdmaError::Invalid("region longer than 4 GiB".into()))?;
    let remote = region.segment(0, len).ok_or_else(|| RdmaError::Invalid("region has no segment".into()))?;
    Ok(Segment { handle: remote.handle, length: remote.length, offset: remote.offset })
}
