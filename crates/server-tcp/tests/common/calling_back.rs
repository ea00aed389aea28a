//! A handler that calls the client back: on a forward call it sends backward calls on the connection
//! the call came on, and it matches the client's replies to them by xid, as an NFSv4.1 server's
//! callback path does.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nfs_server::{BackChannelError, BackwardReply, ConnectionId, ConnectionInfo, Reply};
use onc_rpc::{CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use server_core::{BackChannel, RecordHandler};

use super::call;

/// Sends as many backward calls as the first argument word says, each with as many argument bytes as
/// the second; the results are two words: calls queued, calls refused.
pub const PROC_CALL_BACK: u32 = 3;
/// The program the backward calls are made to (the client's callback program).
pub const CB_PROGRAM: u32 = 0x4000_0001;

#[derive(Debug)]
pub struct CallingBack {
    pub channel: Arc<BackChannel>,
    next_xid: AtomicU32,
    /// Backward calls sent and not yet answered, by xid.
    outstanding: Mutex<HashSet<u32>>,
    /// Replies matched to a backward call: xid and the connection it came on.
    pub answered: Mutex<Vec<(u32, ConnectionId)>>,
    /// The connection each forward call came on, in order.
    pub callers: Mutex<Vec<ConnectionId>>,
    pub refused: Mutex<Vec<BackChannelError>>,
}

impl CallingBack {
    pub fn new() -> Arc<Self> {
        Arc::new(CallingBack {
            channel: BackChannel::new(),
            next_xid: AtomicU32::new(0xcb00_0000),
            outstanding: Mutex::new(HashSet::new()),
            answered: Mutex::new(Vec::new()),
            callers: Mutex::new(Vec::new()),
            refused: Mutex::new(Vec::new()),
        })
    }

    /// Backward calls still unanswered.
    pub fn outstanding(&self) -> usize {
        self.outstanding.lock().expect("lock").len()
    }

    /// Waits (10 s at most) until `n` replies were matched; returns them.
    pub async fn answers(&self, n: usize) -> Vec<(u32, ConnectionId)> {
        for _ in 0..1000 {
            let answered = self.answered.lock().expect("lock").clone();
            if answered.len() >= n {
                return answered;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("{n} backward replies within 10 s: {:?}", self.answered.lock().expect("lock"));
    }

    fn call_back(&self, conn: ConnectionId, count: u32, size: u32) -> (u32, u32) {
        let (mut queued, mut refused) = (0, 0);
        for _ in 0..count {
            let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
            let header = CallHeader::new(CB_PROGRAM, 1, 0, OpaqueAuth::NONE, OpaqueAuth::NONE);
            let mut w = RpcMessage::call(xid, header).header_writer(size as usize);
            w.put_raw(&vec![0xcb; size as usize]);
            self.outstanding.lock().expect("lock").insert(xid);
            match self.channel.send_call(conn, w.into_vec()) {
                Ok(()) => queued += 1,
                Err(err) => {
                    self.outstanding.lock().expect("lock").remove(&xid);
                    self.refused.lock().expect("lock").push(err);
                    refused += 1;
                }
            }
        }
        (queued, refused)
    }
}

impl RecordHandler for CallingBack {
    fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        let (msg, args) = RpcMessage::decode(record).ok()?;
        let call = msg.as_call()?;
        self.callers.lock().expect("lock").push(conn.id);
        let mut w = RpcMessage::reply(msg.xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(8);
        if call.proc == PROC_CALL_BACK {
            let word =
                |i: usize| args.get(i * 4..i * 4 + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            let (queued, refused) = self.call_back(conn.id, word(0), word(1));
            w.put_u32(queued);
            w.put_u32(refused);
        }
        Some(Reply::from_inline(w.into_vec()))
    }

    fn may_block(&self) -> bool {
        false
    }

    fn handle_reply(&self, record: &[u8], conn: &ConnectionInfo) -> BackwardReply {
        let Some(xid) = RpcMessage::peek_xid(record) else { return BackwardReply::Unknown };
        if !self.outstanding.lock().expect("lock").remove(&xid) {
            return BackwardReply::Unknown;
        }
        self.answered.lock().expect("lock").push((xid, conn.id));
        BackwardReply::Matched
    }
}

/// A PROC_CALL_BACK call asking for `count` backward calls of `size` argument bytes.
pub fn call_back(xid: u32, count: u32, size: u32) -> Vec<u8> {
    let mut args = count.to_be_bytes().to_vec();
    args.extend(size.to_be_bytes());
    call(xid, PROC_CALL_BACK, &args)
}

/// The client's successful reply to backward call `xid` (no results).
pub fn answer(xid: u32) -> Vec<u8> {
    RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(0).into_vec()
}

/// True for a record whose RPC message type is CALL (RFC 5531 §9): a backward call read off the wire.
pub fn is_call(record: &[u8]) -> bool {
    record.get(4..8) == Some(&[0, 0, 0, 0])
}
