//! The RPC-over-RDMA v1 transport header (RFC 8166 §4.1, §4.2): fixed fields, then a body per procedure.

use xdr::{XdrEncode, XdrReader, XdrWriter};

use crate::chunks::{ChunkLists, DecodeLimits};
use crate::error::RpcRdmaError;
use crate::RPCRDMA_VERSION;

/// RFC 8166 §4.2.4: the `rdma_proc` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RdmaProc {
    /// An RPC message follows the header inline.
    Msg = 0,
    /// The RPC message travels in chunks.
    NoMsg = 1,
    /// RFC 5666 padded message; not to be used (RFC 8166 §4.6.1).
    MsgP = 2,
    /// RFC 5666 Read-Read completion; not to be used (RFC 8166 §4.6.2).
    Done = 3,
    /// Transport-level error report from a responder.
    Error = 4,
}

impl RdmaProc {
    pub fn from_u32(value: u32) -> Option<Self> {
        Some(match value {
            0 => RdmaProc::Msg,
            1 => RdmaProc::NoMsg,
            2 => RdmaProc::MsgP,
            3 => RdmaProc::Done,
            4 => RdmaProc::Error,
            _ => return None,
        })
    }

    pub fn as_u32(self) -> u32 {
        self as u32
    }
}

/// RFC 8166 §4.5: the `rpc_rdma_error` union sent in an RDMA_ERROR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RdmaErrorBody {
    /// ERR_VERS (1): the inclusive range of versions the responder supports.
    Vers { low: u32, high: u32 },
    /// ERR_CHUNK (2): the header or its chunks could not be used.
    Chunk,
}

impl RdmaErrorBody {
    /// The ERR_VERS body of an RPC-over-RDMA v1-only responder.
    pub const SUPPORTED_VERSIONS: RdmaErrorBody = RdmaErrorBody::Vers { low: RPCRDMA_VERSION, high: RPCRDMA_VERSION };
}

/// The body of a header, by procedure. RDMA_MSGP and RDMA_DONE are obsolete and never represented:
/// decoding them yields [`RpcRdmaError::ObsoleteProcedure`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RdmaBody {
    /// RDMA_MSG: the chunk lists; the RPC message (reduced by any Read or Write chunks) follows inline.
    Msg(ChunkLists),
    /// RDMA_NOMSG: the chunk lists; the RPC message is in a position-zero Read chunk (call) or the Reply
    /// chunk (reply), and nothing follows inline.
    NoMsg(ChunkLists),
    /// RDMA_ERROR.
    Error(RdmaErrorBody),
}

/// An RPC-over-RDMA v1 header. `rdma_vers` is always [`RPCRDMA_VERSION`]: a header with another version
/// does not decode (use [`crate::peek`] to answer it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdmaHeader {
    /// RFC 8166 §4.2.1: mirrors the XID of the RPC message.
    pub xid: u32,
    /// RFC 8166 §4.2.3: credits requested (in a call) or granted (in a reply).
    pub credits: u32,
    pub body: RdmaBody,
}

impl RdmaHeader {
    /// Bytes of an RDMA_MSG or RDMA_NOMSG header with all three chunk lists empty: seven XDR words.
    pub const MIN_LEN: usize = 28;

    pub fn msg(xid: u32, credits: u32, chunks: ChunkLists) -> Self {
        RdmaHeader { xid, credits, body: RdmaBody::Msg(chunks) }
    }

    pub fn nomsg(xid: u32, credits: u32, chunks: ChunkLists) -> Self {
        RdmaHeader { xid, credits, body: RdmaBody::NoMsg(chunks) }
    }

    pub fn error(xid: u32, credits: u32, body: RdmaErrorBody) -> Self {
        RdmaHeader { xid, credits, body: RdmaBody::Error(body) }
    }

    pub fn procedure(&self) -> RdmaProc {
        match self.body {
            RdmaBody::Msg(_) => RdmaProc::Msg,
            RdmaBody::NoMsg(_) => RdmaProc::NoMsg,
            RdmaBody::Error(_) => RdmaProc::Error,
        }
    }

    /// The chunk lists of an RDMA_MSG or RDMA_NOMSG.
    pub fn chunks(&self) -> Option<&ChunkLists> {
        match &self.body {
            RdmaBody::Msg(c) | RdmaBody::NoMsg(c) => Some(c),
            RdmaBody::Error(_) => None,
        }
    }

    /// Bytes [`encode`](XdrEncode::encode) writes, computed without encoding (for inline budgets).
    pub fn encoded_len(&self) -> usize {
        match &self.body {
            RdmaBody::Msg(c) | RdmaBody::NoMsg(c) => Self::chunked_len(c),
            RdmaBody::Error(RdmaErrorBody::Vers { .. }) => 16 + 12,
            RdmaBody::Error(RdmaErrorBody::Chunk) => 16 + 4,
        }
    }

    /// Bytes of an RDMA_MSG or RDMA_NOMSG header carrying `chunks`, without building one: the four fixed
    /// words (xid, version, credits, procedure; RFC 8166 §4.2.1) and the chunk lists.
    pub fn chunked_len(chunks: &ChunkLists) -> usize {
        16 + chunks.encoded_len()
    }

    /// Decodes a header from the start of a received message. Returns the header and the bytes after it:
    /// for RDMA_MSG the (reduced) RPC message, for the other procedures normally nothing.
    pub fn decode<'a>(buf: &'a [u8], limits: &DecodeLimits) -> Result<(Self, &'a [u8]), RpcRdmaError> {
        let mut r = XdrReader::new(buf);
        let header = Self::decode_from(&mut r, limits)?;
        Ok((header, r.rest()))
    }

    /// Decodes a header from a reader, leaving it at the first byte after the header.
    pub fn decode_from(r: &mut XdrReader<'_>, limits: &DecodeLimits) -> Result<Self, RpcRdmaError> {
        let xid = r.get_u32()?;
        let vers = r.get_u32()?;
        // RFC 8166 §4.5.1: on an unsupported version the responder MUST NOT process the rest.
        if vers != RPCRDMA_VERSION {
            return Err(RpcRdmaError::VersionMismatch { vers });
        }
        let credits = r.get_u32()?;
        let procedure = r.get_u32()?;
        let body = match RdmaProc::from_u32(procedure) {
            Some(RdmaProc::Msg) => RdmaBody::Msg(ChunkLists::decode(r, limits)?),
            Some(RdmaProc::NoMsg) => RdmaBody::NoMsg(ChunkLists::decode(r, limits)?),
            Some(RdmaProc::Error) => RdmaBody::Error(decode_error_body(r)?),
            // RFC 8166 §4.6: senders MUST NOT send RDMA_MSGP or RDMA_DONE.
            Some(RdmaProc::MsgP | RdmaProc::Done) => return Err(RpcRdmaError::ObsoleteProcedure { procedure }),
            // RFC 8166 §4.5.2: an invalid rdma_proc value is an XDR error.
            None => return Err(RpcRdmaError::UnknownProcedure { procedure }),
        };
        Ok(RdmaHeader { xid, credits, body })
    }
}

fn decode_error_body(r: &mut XdrReader<'_>) -> Result<RdmaErrorBody, RpcRdmaError> {
    // RFC 8166 §4.5: `union rpc_rdma_error switch (rpc_rdma_errcode err)`.
    let code = r.get_enum("rpc_rdma_errcode", |v| (v == 1 || v == 2).then_some(v))?;
    Ok(if code == 1 { RdmaErrorBody::Vers { low: r.get_u32()?, high: r.get_u32()? } } else { RdmaErrorBody::Chunk })
}

impl XdrEncode for RdmaErrorBody {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match *self {
            RdmaErrorBody::Vers { low, high } => {
                w.put_u32(1);
                w.put_u32(low);
                w.put_u32(high);
            }
            RdmaErrorBody::Chunk => w.put_u32(2),
        }
    }
}

/// Writes the header only; for RDMA_MSG the caller appends the RPC message to the same writer.
impl XdrEncode for RdmaHeader {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        // RFC 8166 §4.2: xid, vers, credit, proc, then the body.
        w.put_u32(self.xid);
        w.put_u32(RPCRDMA_VERSION);
        w.put_u32(self.credits);
        w.put_u32(self.procedure().as_u32());
        match &self.body {
            RdmaBody::Msg(c) | RdmaBody::NoMsg(c) => c.encode(w),
            RdmaBody::Error(e) => e.encode(w),
        }
    }
}
