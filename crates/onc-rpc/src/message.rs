//! The RPC message header (RFC 5531 §9): `rpc_msg` up to, not including, the procedure's arguments or
//! results. Decoding returns the header and the rest of the buffer (the body, borrowed); encoding writes
//! the header into an [`XdrWriter`] for the caller to append the body to, so bulk data is never copied here.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::auth::OpaqueAuth;
use crate::constants::RPC_VERSION;
use crate::reply::ReplyBody;
use crate::RpcError;

/// Bytes of a call header before its credential: see [`RpcMessage::encode_call_start`].
pub const CALL_START_LEN: usize = 24;

/// `struct rpc_msg { unsigned int xid; union switch (msg_type mtype) {...} body; }` (RFC 5531 §9),
/// without the arguments or results that follow it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpcMessage<'a> {
    pub xid: u32,
    pub body: MessageBody<'a>,
}

/// `enum msg_type { CALL = 0, REPLY = 1 }` with its arms (RFC 5531 §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageBody<'a> {
    Call(CallHeader<'a>),
    Reply(ReplyBody<'a>),
}

/// `struct call_body` (RFC 5531 §9): `rpcvers, prog, vers, proc, cred, verf`; the arguments follow.
///
/// `rpcvers` is kept as received: the RFC requires it to be 2, and a server that gets anything else must
/// answer MSG_DENIED / RPC_MISMATCH (see [`ReplyBody::rpc_mismatch`]), so the decoder does not refuse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallHeader<'a> {
    pub rpcvers: u32,
    pub prog: u32,
    pub vers: u32,
    pub proc: u32,
    pub cred: OpaqueAuth<'a>,
    pub verf: OpaqueAuth<'a>,
}

impl<'a> CallHeader<'a> {
    /// A version 2 call header.
    pub fn new(prog: u32, vers: u32, proc: u32, cred: OpaqueAuth<'a>, verf: OpaqueAuth<'a>) -> Self {
        CallHeader { rpcvers: RPC_VERSION, prog, vers, proc, cred, verf }
    }

    /// RFC 5531 §9: "rpcvers MUST be equal to 2"; false means the reply is RPC_MISMATCH.
    pub fn is_rpc_version_2(&self) -> bool {
        self.rpcvers == RPC_VERSION
    }
}

impl<'a> RpcMessage<'a> {
    pub fn call(xid: u32, header: CallHeader<'a>) -> Self {
        RpcMessage { xid, body: MessageBody::Call(header) }
    }

    pub fn reply(xid: u32, body: ReplyBody<'a>) -> Self {
        RpcMessage { xid, body: MessageBody::Reply(body) }
    }

    /// Decodes the header at the start of `buf` and returns it with the bytes after it: the call's
    /// arguments, or the reply's results (empty unless the reply is MSG_ACCEPTED / SUCCESS).
    ///
    /// This inherent function shadows [`XdrDecode::decode`]; to decode from a reader mid-stream, call
    /// `<RpcMessage as XdrDecode>::decode(&mut reader)`, which leaves the reader at the body.
    pub fn decode(buf: &'a [u8]) -> Result<(Self, &'a [u8]), RpcError> {
        let mut r = XdrReader::new(buf);
        let msg = <Self as XdrDecode>::decode(&mut r)?;
        Ok((msg, r.rest()))
    }

    /// The xid of a message whose header may be too damaged to decode (a server can still answer it).
    pub fn peek_xid(buf: &[u8]) -> Option<u32> {
        buf.first_chunk::<4>().map(|word| u32::from_be_bytes(*word))
    }

    pub fn as_call(&self) -> Option<&CallHeader<'a>> {
        match &self.body {
            MessageBody::Call(c) => Some(c),
            MessageBody::Reply(_) => None,
        }
    }

    pub fn as_reply(&self) -> Option<&ReplyBody<'a>> {
        match &self.body {
            MessageBody::Reply(r) => Some(r),
            MessageBody::Call(_) => None,
        }
    }

    /// Bytes of the encoded header.
    pub fn encoded_len(&self) -> usize {
        match &self.body {
            MessageBody::Call(c) => CALL_START_LEN + c.cred.encoded_len() + c.verf.encoded_len(),
            MessageBody::Reply(r) => 8 + r.encoded_len(),
        }
    }

    /// Writes the header into a writer of any lifetime (the header is small and copied), so the caller
    /// can go on to append arguments or results, including borrowed payloads.
    pub fn encode_header(&self, w: &mut XdrWriter<'_>) {
        match &self.body {
            MessageBody::Call(c) => {
                Self::encode_call_start(w, self.xid, c.rpcvers, c.prog, c.vers, c.proc);
                c.cred.encode_into(w);
                c.verf.encode_into(w);
            }
            MessageBody::Reply(r) => {
                w.put_u32(self.xid);
                w.put_u32(1); // REPLY
                r.encode_into(w);
            }
        }
    }

    /// Writes the words of a call header before its credential ([`CALL_START_LEN`] bytes: xid,
    /// msg_type CALL, rpcvers, prog, vers, proc), for a caller that appends a credential and verifier
    /// it encoded once.
    #[inline]
    pub fn encode_call_start(w: &mut XdrWriter<'_>, xid: u32, rpcvers: u32, prog: u32, vers: u32, proc: u32) {
        for word in [xid, 0 /* CALL */, rpcvers, prog, vers, proc] {
            w.put_u32(word);
        }
    }

    /// A writer holding the header, sized for the header plus `body_capacity` inline bytes.
    pub fn header_writer<'p>(&self, body_capacity: usize) -> XdrWriter<'p> {
        let mut w = XdrWriter::with_capacity(self.encoded_len() + body_capacity);
        self.encode_header(&mut w);
        w
    }
}

/// Encodes the header only; the caller appends the body.
impl XdrEncode for RpcMessage<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.encode_header(w);
    }
}

/// Decodes the header only, leaving the reader at the arguments or results.
impl<'a> XdrDecode<'a> for RpcMessage<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let xid = r.get_u32()?;
        // RFC 5531 §9: enum msg_type { CALL = 0, REPLY = 1 }.
        let is_call = r.get_enum("msg_type", |v| match v {
            0 => Some(true),
            1 => Some(false),
            _ => None,
        })?;
        let body = if is_call {
            MessageBody::Call(CallHeader {
                rpcvers: r.get_u32()?,
                prog: r.get_u32()?,
                vers: r.get_u32()?,
                proc: r.get_u32()?,
                cred: OpaqueAuth::decode(r)?,
                verf: OpaqueAuth::decode(r)?,
            })
        } else {
            MessageBody::Reply(ReplyBody::decode_from(r)?)
        };
        Ok(RpcMessage { xid, body })
    }
}
