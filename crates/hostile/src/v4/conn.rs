//! One NFSv4 connection of the hostile clients: COMPOUND calls framed by hand (program 100003 version 4,
//! procedure 1, AUTH_SYS as root), records read with the workspace's record decoder, and the records the
//! server sends on its own — backward calls (CB_NULL, CB_COMPOUND) on a connection that carries a back
//! channel — set aside for the caller instead of being mistaken for replies.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use nfs4_proto::{Compound4Args, NFS4_PROGRAM, NFS_V4};
use onc_rpc::{RecordDecoder, RecordLimits, RpcMessage};

use super::answer::Answer;
use crate::rpc::{encode_call, xdr_bytes, Proc, RpcFailure, REPLY_TIMEOUT};

/// NFSv4's COMPOUND procedure (RFC 8881 §16.2).
pub const PROC_COMPOUND: u32 = 1;

/// A COMPOUND call record (marker included) of `body` under `xid`, as root.
pub fn compound_call(xid: u32, body: &[u8]) -> Vec<u8> {
    encode_call(xid, Proc { rpcvers: 2, prog: NFS4_PROGRAM, vers: NFS_V4, proc: PROC_COMPOUND }, (0, 0), body)
}

/// The XDR body of `args`.
pub fn compound_body(args: &Compound4Args<'_>) -> Vec<u8> {
    xdr_bytes(args)
}

/// A record the server sent.
#[derive(Debug)]
pub enum Received {
    /// A reply to one of our calls.
    Reply { xid: u32, answer: Answer },
    /// A call of the server's (the back channel): the whole RPC message.
    Call { xid: u32, record: Vec<u8> },
}

/// One TCP connection speaking NFSv4 COMPOUND.
#[derive(Debug)]
pub struct V4Conn {
    stream: TcpStream,
    decoder: RecordDecoder,
    xid: u32,
    /// Backward calls read while waiting for a reply, oldest first.
    backward: VecDeque<(u32, Vec<u8>)>,
}

impl V4Conn {
    /// Connects with the suite's reply timeout on reads and writes.
    pub fn connect(addr: SocketAddr) -> Result<V4Conn, RpcFailure> {
        let stream = TcpStream::connect_timeout(&addr, REPLY_TIMEOUT)?;
        stream.set_read_timeout(Some(REPLY_TIMEOUT))?;
        stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
        stream.set_nodelay(true)?;
        // A distinct xid range per connection, so stray replies are never matched by accident.
        let xid = super::random::next_u32() & 0xffff_0000;
        Ok(V4Conn { stream, decoder: RecordDecoder::new(RecordLimits::default()), xid, backward: VecDeque::new() })
    }

    /// How long a read waits before [`V4Conn::receive`] fails with a timeout.
    pub fn set_read_timeout(&self, timeout: Duration) -> Result<(), RpcFailure> {
        self.stream.set_read_timeout(Some(timeout)).map_err(RpcFailure::from)
    }

    pub fn next_xid(&mut self) -> u32 {
        self.xid = self.xid.wrapping_add(1);
        self.xid
    }

    /// Sends a COMPOUND call of `body`; its xid.
    pub fn send_body(&mut self, body: &[u8]) -> Result<u32, RpcFailure> {
        let xid = self.next_xid();
        self.stream.write_all(&compound_call(xid, body))?;
        Ok(xid)
    }

    /// Sends bytes as they are (records framed by the caller, or not records at all).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), RpcFailure> {
        self.stream.write_all(bytes).map_err(RpcFailure::from)
    }

    /// The next record from the server, reply or call.
    pub fn receive(&mut self) -> Result<Received, RpcFailure> {
        let record = self.next_record()?;
        let (msg, body) = RpcMessage::decode(&record).map_err(|e| RpcFailure::Malformed(e.to_string()))?;
        if msg.as_call().is_some() {
            return Ok(Received::Call { xid: msg.xid, record });
        }
        Ok(Received::Reply { xid: msg.xid, answer: Answer::from_reply(&msg, body) })
    }

    /// The reply to `xid`; backward calls read meanwhile are kept for [`V4Conn::take_backward`], replies
    /// to other calls dropped.
    pub fn wait_reply(&mut self, xid: u32) -> Result<Answer, RpcFailure> {
        loop {
            match self.receive()? {
                Received::Reply { xid: got, answer } if got == xid => return Ok(answer),
                Received::Reply { .. } => {}
                Received::Call { xid, record } => self.backward.push_back((xid, record)),
            }
        }
    }

    /// One COMPOUND of `body`, answered.
    pub fn call_body(&mut self, body: &[u8]) -> Result<Answer, RpcFailure> {
        let xid = self.send_body(body)?;
        self.wait_reply(xid)
    }

    /// The backward calls set aside so far (xid and whole RPC message), oldest first.
    pub fn take_backward(&mut self) -> Vec<(u32, Vec<u8>)> {
        self.backward.drain(..).collect()
    }

    /// A second handle on the socket (for a reader thread).
    pub fn try_clone_stream(&self) -> Result<TcpStream, RpcFailure> {
        self.stream.try_clone().map_err(RpcFailure::from)
    }

    fn next_record(&mut self) -> Result<Vec<u8>, RpcFailure> {
        let mut buf = [0u8; 64 << 10];
        loop {
            if let Some(record) = self.decoder.pop() {
                return Ok(record);
            }
            let n = self.stream.read(&mut buf)?;
            if n == 0 {
                return Err(RpcFailure::Closed);
            }
            self.decoder.push(&buf[..n]).map_err(|e| RpcFailure::Malformed(e.to_string()))?;
        }
    }
}
