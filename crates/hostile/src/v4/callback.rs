//! The client's side of the back channel (RFC 8881 §2.10.3.1, §20): replies to the server's CB_NULL and
//! CB_COMPOUND (CB_SEQUENCE) calls — the right ones, as a careful client sends them, or garbage.

use nfs4_proto::callback::{CbSequenceResOk, CB_COMPOUND, CB_NULL};
use nfs4_proto::{CbArgOp, CbCompound4Args, CbCompound4Res, CbResOp, Nfs4Result};
use onc_rpc::{frame_record, AcceptStat, ReplyBody, RpcMessage, MAX_FRAGMENT_LEN};

use crate::rpc::xdr_bytes;

/// Bits of `sr_status_flags` that say the back channel is down (RFC 8881 §18.46.3).
pub const PATH_DOWN: u32 = nfs4_proto::SEQ4_STATUS_CB_PATH_DOWN | nfs4_proto::SEQ4_STATUS_CB_PATH_DOWN_SESSION;

/// A reply record (marker included) to backward call `xid`, accepted with `stat`, then `body`.
pub fn reply_record(xid: u32, stat: AcceptStat, body: &[u8]) -> Vec<u8> {
    let msg = RpcMessage::reply(xid, ReplyBody::accepted(stat));
    let mut w = msg.header_writer(body.len());
    w.put_raw(body);
    frame_record(&w.into_vec(), MAX_FRAGMENT_LEN as usize)
}

/// The right reply to the backward call `record` (a whole RPC message): CB_NULL answered, CB_COMPOUND's
/// CB_SEQUENCE echoed with NFS4_OK; `None` for anything else.
pub fn proper_reply(record: &[u8]) -> Option<Vec<u8>> {
    let (msg, body) = RpcMessage::decode(record).ok()?;
    let call = msg.as_call()?;
    match call.proc {
        CB_NULL => Some(reply_record(msg.xid, AcceptStat::Success, &[])),
        CB_COMPOUND => {
            let args: CbCompound4Args<'_> = xdr::decode_exact(body).ok()?;
            let results: Vec<CbResOp<'_>> = args
                .argarray
                .iter()
                .map(|op| match op {
                    CbArgOp::CbSequence(s) => CbResOp::CbSequence(Nfs4Result::Ok(CbSequenceResOk {
                        sessionid: s.sessionid,
                        sequenceid: s.sequenceid,
                        slotid: s.slotid,
                        highest_slotid: s.highest_slotid,
                        target_highest_slotid: s.highest_slotid,
                    })),
                    other => CbResOp::error(other.op(), nfs4_proto::NfsErr4::NotSupp),
                })
                .collect();
            let res = CbCompound4Res::new(args.tag, results);
            Some(reply_record(msg.xid, AcceptStat::Success, &xdr_bytes(&res)))
        }
        _ => None,
    }
}

/// A garbage reply to backward call `xid`, the `n`th kind: an RPC reply saying the call's arguments
/// were garbage (which a server must take as the path failing), or a record that is no RPC message at all.
pub fn garbage_reply(xid: u32, n: u64) -> Vec<u8> {
    if n.is_multiple_of(2) {
        return reply_record(xid, AcceptStat::GarbageArgs, &[]);
    }
    let mut bytes = xid.to_be_bytes().to_vec();
    bytes.extend_from_slice(&crate::v4::random::bytes::<61>());
    frame_record(&bytes, MAX_FRAGMENT_LEN as usize)
}
