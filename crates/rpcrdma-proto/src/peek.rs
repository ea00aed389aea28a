//! Looking at the fixed fields of a header without decoding it, and answering a header that failed.

use xdr::XdrReader;

use crate::error::{ErrorResponse, RpcRdmaError};
use crate::header::{RdmaErrorBody, RdmaHeader, RdmaProc};
use crate::RPCRDMA_VERSION;

/// The first 16 bytes of any RPC-over-RDMA header, whatever its version: RFC 8166 §4.2 fixes the
/// position of xid, vers, credit and proc for all versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeaderPeek {
    pub xid: u32,
    pub vers: u32,
    pub credits: u32,
    /// The raw `rdma_proc` value.
    pub procedure: u32,
}

impl HeaderPeek {
    /// Bytes a peek needs.
    pub const LEN: usize = 16;

    /// The procedure, if it is one RFC 8166 names.
    pub fn proc_kind(&self) -> Option<RdmaProc> {
        RdmaProc::from_u32(self.procedure)
    }

    pub fn is_supported_version(&self) -> bool {
        self.vers == RPCRDMA_VERSION
    }
}

/// Reads xid, vers, credits and proc; `None` when fewer than 16 bytes arrived.
pub fn peek(buf: &[u8]) -> Option<HeaderPeek> {
    let mut r = XdrReader::new(buf);
    Some(HeaderPeek {
        xid: r.get_u32().ok()?,
        vers: r.get_u32().ok()?,
        credits: r.get_u32().ok()?,
        procedure: r.get_u32().ok()?,
    })
}

/// The version range of a received ERR_VERS, whatever the `rdma_vers` of the message carrying it:
/// RFC 8166 §4.5 fixes the ERR_VERS layout for all versions, so a requester can read it from any responder.
pub fn peek_err_vers(buf: &[u8]) -> Option<(u32, u32)> {
    let mut r = XdrReader::new(buf);
    let head = peek(buf)?;
    for _ in 0..4 {
        r.get_u32().ok()?;
    }
    if head.proc_kind() != Some(RdmaProc::Error) || r.get_u32().ok()? != 1 {
        return None;
    }
    Some((r.get_u32().ok()?, r.get_u32().ok()?))
}

/// The RDMA_ERROR a responder sends for a received message that failed with `err`, carrying that
/// message's XID and the responder's current credit grant. `None` means send nothing: the error is one
/// to drop silently, or fewer than 4 bytes arrived so there is no XID to answer.
///
/// Only responders answer this way; a requester that cannot parse a reply drops it (RFC 8166 §4.5.2).
pub fn error_reply(received: &[u8], err: &RpcRdmaError, credits: u32) -> Option<RdmaHeader> {
    let body = match err.response() {
        ErrorResponse::Reply(body) => body,
        ErrorResponse::Drop => return None,
    };
    let xid = XdrReader::new(received).get_u32().ok()?;
    Some(RdmaHeader::error(xid, credits, body))
}

/// ERR_VERS for `received` when its version is not 1, answered even if the rest is undecodable.
pub fn version_error_reply(received: &[u8], credits: u32) -> Option<RdmaHeader> {
    let head = peek(received)?;
    if head.is_supported_version() {
        return None;
    }
    Some(RdmaHeader::error(head.xid, credits, RdmaErrorBody::SUPPORTED_VERSIONS))
}
