use super::{CallKey, Decoded};
use capture::{Flow, TcpStreams};
use onc_rpc::{MessageBody, RecordDecoder, RecordLimits, RpcMessage};
use std::collections::HashMap;
use std::time::Duration;

/// Which way an RPC record went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    Call,
    Reply,
}

/// One RPC record found in a capture, with what is known of it without decoding the body.
#[derive(Debug, Clone)]
pub struct RecordInCapture {
    pub flow: Flow,
    /// Capture time of the segment that carried the record's first byte.
    pub time: Duration,
    /// The record, fragments joined, record marks removed.
    pub bytes: Vec<u8>,
    pub xid: u32,
    pub direction: Direction,
    /// For calls, from the header; for replies, from the call with the same xid on the reverse stream
    /// (`None` when that call is not in the capture).
    pub key: Option<CallKey>,
}

impl RecordInCapture {
    /// Decodes header and body; `None` for a reply whose call is not in the capture.
    pub fn decode(&self) -> Option<Result<Decoded<'_>, super::InspectError>> {
        match (self.direction, self.key) {
            (Direction::Call, _) => Some(super::decode_call(&self.bytes)),
            (Direction::Reply, Some(key)) => Some(super::decode_reply(&self.bytes, key)),
            (Direction::Reply, None) => None,
        }
    }
}

/// What a capture held: RPC records in time order, and the streams that were not ONC RPC over TCP.
#[derive(Debug, Default)]
pub struct RpcRecords {
    pub records: Vec<RecordInCapture>,
    /// Streams with data that did not split into RPC records, and why (not RPC, or the capture began
    /// in the middle of a record).
    pub skipped_streams: Vec<(Flow, String)>,
}

/// Splits every TCP stream of a capture into RPC records (RFC 5531 §11 record marking) and pairs replies
/// with their calls by xid.
pub fn rpc_records(streams: TcpStreams) -> RpcRecords {
    let mut out = RpcRecords::default();
    // A record as large as the biggest NFS READ reply, with room for a few headers.
    let limits = RecordLimits { max_record: 64 << 20, ..RecordLimits::default() };
    for (flow, stream) in streams.into_streams() {
        if stream.data.is_empty() {
            continue;
        }
        let mut decoder = RecordDecoder::new(limits);
        let mut offset = 0;
        let pushed = decoder.push(&stream.data);
        while let Some(bytes) = decoder.pop() {
            let start = offset;
            offset += bytes.len();
            let Ok((message, _)) = RpcMessage::decode(&bytes) else {
                out.skipped_streams.push((flow, format!("record at byte {start} is not an ONC RPC message")));
                break;
            };
            let (direction, key) = match message.body {
                MessageBody::Call(c) => (Direction::Call, Some(CallKey { prog: c.prog, vers: c.vers, proc: c.proc })),
                MessageBody::Reply(_) => (Direction::Reply, None),
            };
            let time = stream.time_at(start).unwrap_or_default();
            out.records.push(RecordInCapture { flow, time, xid: message.xid, direction, key, bytes });
        }
        if let Err(e) = pushed {
            out.skipped_streams.push((flow, format!("record marking: {e}")));
        }
    }
    out.records.sort_by_key(|r| r.time);
    let calls: HashMap<(Flow, u32), CallKey> = out
        .records
        .iter()
        .filter_map(|r| Some(((r.flow, r.xid), r.key.filter(|_| r.direction == Direction::Call)?)))
        .collect();
    for r in out.records.iter_mut().filter(|r| r.direction == Direction::Reply) {
        r.key = calls.get(&(r.flow.reversed(), r.xid)).copied();
    }
    out
}
