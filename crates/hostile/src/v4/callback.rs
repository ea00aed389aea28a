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

#[cfg(test)]
mod tests {
    use nfs4_proto::callback::{CbSequenceArgs, CB_COMPOUND, CB_NULL, NFS4_CALLBACK_VERSION};
    use nfs4_proto::{CbArgOp, CbCompound4Args, CbCompound4Res, CbOpNum4, CbResOp, NfsStat4, SessionId4};
    use onc_rpc::{AcceptStat, CallHeader, OpaqueAuth, RecordLimits, ReplyBody, RpcMessage};

    use super::{garbage_reply, proper_reply};
    use crate::rpc::xdr_bytes;

    fn call(xid: u32, proc: u32, body: &[u8]) -> Vec<u8> {
        let msg = RpcMessage::call(
            xid,
            CallHeader::new(0x4000_0100, NFS4_CALLBACK_VERSION, proc, OpaqueAuth::NONE, OpaqueAuth::NONE),
        );
        let mut w = msg.header_writer(body.len());
        w.put_raw(body);
        w.into_vec()
    }

    /// The one record of a framed reply, decoded: xid, accept status, results.
    fn unframe(framed: &[u8]) -> Vec<u8> {
        let mut records = onc_rpc::split_records(framed, RecordLimits::default()).expect("records");
        assert_eq!(records.len(), 1);
        records.remove(0)
    }

    #[test]
    fn cb_null_is_answered_with_an_accepted_empty_reply() {
        let record = unframe(&proper_reply(&call(7, CB_NULL, &[])).expect("a reply"));
        let (msg, body) = RpcMessage::decode(&record).expect("an RPC reply");
        assert_eq!(msg.xid, 7);
        assert!(matches!(msg.as_reply(), Some(ReplyBody::Accepted(a)) if a.stat == AcceptStat::Success));
        assert!(body.is_empty());
    }

    #[test]
    fn cb_sequence_is_answered_ok_for_its_own_session_and_slot() {
        let args = CbCompound4Args {
            tag: b"cb",
            minorversion: 1,
            callback_ident: 0,
            argarray: vec![CbArgOp::CbSequence(CbSequenceArgs {
                sessionid: SessionId4([9; 16]),
                sequenceid: 3,
                slotid: 0,
                highest_slotid: 0,
                cachethis: false,
                referring_call_lists: Vec::new(),
            })],
        };
        let record = unframe(&proper_reply(&call(8, CB_COMPOUND, &xdr_bytes(&args))).expect("a reply"));
        let (_, body) = RpcMessage::decode(&record).expect("an RPC reply");
        let res = CbCompound4Res::decode_reply(body, &[CbOpNum4::CbSequence]).expect("CB_COMPOUND4res");
        assert_eq!(res.status, NfsStat4::Ok);
        let [CbResOp::CbSequence(seq)] = &res.resarray[..] else { panic!("{res:?}") };
        let ok = seq.ok().expect("CB_SEQUENCE OK");
        assert_eq!((ok.sessionid, ok.sequenceid, ok.slotid), (SessionId4([9; 16]), 3, 0));
    }

    #[test]
    fn garbage_is_a_garbage_args_reply_or_no_rpc_reply_at_all() {
        let record = unframe(&garbage_reply(11, 0));
        let (msg, _) = RpcMessage::decode(&record).expect("an RPC reply");
        assert!(matches!(msg.as_reply(), Some(ReplyBody::Accepted(a)) if a.stat == AcceptStat::GarbageArgs));
        let record = unframe(&garbage_reply(11, 1));
        assert_eq!(&record[..4], &11u32.to_be_bytes(), "it names the call's xid");
        assert!(RpcMessage::decode(&record).map_or(true, |(m, _)| m.as_reply().is_none()), "not a reply");
    }
}
