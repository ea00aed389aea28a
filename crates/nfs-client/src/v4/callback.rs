//! The client's side of the backchannel (RFC 8881 §20), sans I/O: one RPC call record from the server
//! in, the reply record out, which the transport (the [`CallbackHandler`] it was given) sends back on
//! the connection the call came on.
//!
//! - CB_NULL answers empty; other programs, versions and procedures get the RPC refusals of RFC 5531.
//! - CB_COMPOUND must start with CB_SEQUENCE, checked against the back channel's slots as Linux's
//!   `validate_seqid` does: the next sequence id is new; the same one again is a retry, answered
//!   NFS4ERR_RETRY_UNCACHED_REP (no callback reply is cached: the back channel's
//!   `ca_maxresponsesize_cached` is 0, so `csa_cachethis` set is NFS4ERR_SEQ_FALSE_RETRY); any other is
//!   NFS4ERR_SEQ_MISORDERED; a slot past the table NFS4ERR_BADSLOT; another session NFS4ERR_BADSESSION.
//! - The client holds no delegation and no layout (it asks for none): CB_RECALL and CB_GETATTR are
//!   NFS4ERR_BADHANDLE (as Linux answers for a file it has no delegation of), CB_LAYOUTRECALL
//!   NFS4ERR_NOMATCHING_LAYOUT; CB_RECALL_ANY, CB_RECALL_SLOT, CB_WANTS_CANCELLED and CB_NOTIFY_LOCK
//!   succeed, having nothing to give back; the rest is NFS4ERR_NOTSUPP.

use std::sync::{Mutex, PoisonError};

use nfs4_proto::callback::{CbSequenceResOk, CB_COMPOUND, CB_NULL, NFS4_CALLBACK_VERSION};
use nfs4_proto::{
    CbArgOp, CbCompound4Res, CbOpNum4, CbResOp, CompoundDecoder, Nfs4Result, NfsErr4, OpErrorKind, SessionId4,
};
use onc_rpc::{AcceptStat, MessageBody, ReplyBody, RpcMessage};
use xdr::{XdrEncode, XdrWriter};

use super::handshake::CB_PROGRAM;
use crate::transport::CallbackHandler;

/// The most operations of one CB_COMPOUND decoded.
const MAX_CB_OPS: u32 = 16;

/// The back channel of one session.
#[derive(Debug)]
struct BackChannel {
    sessionid: SessionId4,
    /// The last sequence id seen on each slot (0 before the first: ids start at 1).
    slots: Vec<u32>,
}

/// Answers the server's callbacks for a session.
#[derive(Debug)]
pub struct CallbackService {
    channel: Mutex<BackChannel>,
}

impl CallbackService {
    /// The back channel of `sessionid` with `slots` slots (`ca_maxrequests` CREATE_SESSION granted it).
    pub fn new(sessionid: SessionId4, slots: u32) -> Self {
        CallbackService { channel: Mutex::new(BackChannel { sessionid, slots: vec![0; slots.clamp(1, 64) as usize] }) }
    }

    /// A new session replaced the old one (a recovery): its back channel starts afresh.
    pub fn reset(&self, sessionid: SessionId4, slots: u32) {
        *self.channel.lock().unwrap_or_else(PoisonError::into_inner) =
            BackChannel { sessionid, slots: vec![0; slots.clamp(1, 64) as usize] };
    }

    /// The reply to the call record `call`; `None` when it is not a call (nothing to answer).
    pub fn answer(&self, call: &[u8]) -> Option<Vec<u8>> {
        let (msg, args) = RpcMessage::decode(call).ok()?;
        let MessageBody::Call(header) = msg.body else { return None };
        let reply = |stat: AcceptStat, body: &[u8]| {
            let head = RpcMessage::reply(msg.xid, ReplyBody::accepted(stat));
            let mut w = head.header_writer(body.len());
            w.put_raw(body);
            Some(w.into_vec())
        };
        if header.prog != CB_PROGRAM {
            return reply(AcceptStat::ProgUnavail, &[]);
        }
        if header.vers != NFS4_CALLBACK_VERSION {
            let v = NFS4_CALLBACK_VERSION;
            return reply(AcceptStat::ProgMismatch { low: v, high: v }, &[]);
        }
        match header.proc {
            CB_NULL => reply(AcceptStat::Success, &[]),
            CB_COMPOUND => match self.compound(args) {
                Some(body) => reply(AcceptStat::Success, &body),
                None => reply(AcceptStat::GarbageArgs, &[]),
            },
            _ => reply(AcceptStat::ProcUnavail, &[]),
        }
    }

    /// The CB_COMPOUND4res of a CB_COMPOUND4args body; `None` when it is not one.
    fn compound(&self, body: &[u8]) -> Option<Vec<u8>> {
        let decoder = CompoundDecoder::<CbArgOp<'_>>::new_callback(body, MAX_CB_OPS).ok()?;
        let tag = decoder.tag();
        let mut results = Vec::new();
        // RFC 8881 §20: CB_COMPOUND is a v4.1 (and later) procedure.
        if decoder.minorversion() == 0 || decoder.minorversion() > 2 {
            return Some(encode(CbCompound4Res {
                status: NfsErr4::MinorVersMismatch.status(),
                tag,
                resarray: results,
            }));
        }
        for (index, op) in decoder.enumerate() {
            let result = match op {
                Ok(op) => self.operation(index, &op),
                Err(e) => match e.kind {
                    OpErrorKind::Illegal { .. } => CbResOp::error(CbOpNum4::Illegal, NfsErr4::OpIllegal),
                    OpErrorKind::BadXdr { op, .. } => CbResOp::error(op, NfsErr4::BadXdr),
                    OpErrorKind::TooManyOps { .. } => CbResOp::error(CbOpNum4::CbSequence, NfsErr4::TooManyOps),
                    OpErrorKind::Garbage(_) => return None,
                },
            };
            let failed = !result.status().is_ok();
            results.push(result);
            if failed {
                break;
            }
        }
        Some(encode(CbCompound4Res::new(tag, results)))
    }

    fn operation(&self, index: usize, op: &CbArgOp<'_>) -> CbResOp<'static> {
        match op {
            CbArgOp::CbSequence(_) if index > 0 => CbResOp::error(CbOpNum4::CbSequence, NfsErr4::SequencePos),
            CbArgOp::CbSequence(args) => CbResOp::CbSequence(self.sequence(args)),
            // RFC 8881 §20.9.3: every other operation comes after CB_SEQUENCE.
            other if index == 0 => CbResOp::error(other.op(), NfsErr4::OpNotInSession),
            CbArgOp::CbRecall(_) | CbArgOp::CbGetattr(_) => CbResOp::error(op.op(), NfsErr4::BadHandle),
            CbArgOp::CbLayoutrecall(_) => CbResOp::error(op.op(), NfsErr4::NoMatchingLayout),
            CbArgOp::CbRecallAny(_) => CbResOp::CbRecallAny(Nfs4Result::Ok(nfs4_proto::Void)),
            CbArgOp::CbRecallSlot(_) => CbResOp::CbRecallSlot(Nfs4Result::Ok(nfs4_proto::Void)),
            CbArgOp::CbWantsCancelled(_) => CbResOp::CbWantsCancelled(Nfs4Result::Ok(nfs4_proto::Void)),
            CbArgOp::CbNotifyLock(_) => CbResOp::CbNotifyLock(Nfs4Result::Ok(nfs4_proto::Void)),
            other => CbResOp::error(other.op(), NfsErr4::NotSupp),
        }
    }

    /// CB_SEQUENCE (RFC 8881 §20.9.3) with Linux's `validate_seqid` rules.
    fn sequence(&self, args: &nfs4_proto::callback::CbSequenceArgs) -> Nfs4Result<CbSequenceResOk> {
        let mut channel = self.channel.lock().unwrap_or_else(PoisonError::into_inner);
        if args.sessionid != channel.sessionid {
            return Nfs4Result::Err(NfsErr4::BadSession);
        }
        let highest = channel.slots.len() as u32 - 1;
        let Some(last) = channel.slots.get_mut(args.slotid as usize) else {
            return Nfs4Result::Err(NfsErr4::BadSlot);
        };
        if args.sequenceid == last.wrapping_add(1) {
            *last = args.sequenceid;
        } else if args.sequenceid == *last {
            let e = if args.cachethis { NfsErr4::SeqFalseRetry } else { NfsErr4::RetryUncachedRep };
            return Nfs4Result::Err(e);
        } else {
            return Nfs4Result::Err(NfsErr4::SeqMisordered);
        }
        Nfs4Result::Ok(CbSequenceResOk {
            sessionid: args.sessionid,
            sequenceid: args.sequenceid,
            slotid: args.slotid,
            highest_slotid: highest,
            target_highest_slotid: highest,
        })
    }
}

/// The transports hand the server's calls on any connection of the session here.
impl CallbackHandler for CallbackService {
    fn handle_call(&self, record: &[u8], _connection: usize) -> Option<Vec<u8>> {
        self.answer(record)
    }
}

fn encode(res: CbCompound4Res<'_>) -> Vec<u8> {
    let mut w = XdrWriter::new();
    res.encode(&mut w);
    w.into_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs4_proto::callback::{CbRecallAnyArgs, CbRecallArgs, CbSequenceArgs};
    use nfs4_proto::{CbCompound4Args, NfsFh4, Stateid4};
    use onc_rpc::{CallHeader, OpaqueAuth};

    const SESSION: SessionId4 = SessionId4([7; 16]);

    fn call(proc: u32, prog: u32, body: &[u8]) -> Vec<u8> {
        let msg = RpcMessage::call(
            99,
            CallHeader::new(prog, NFS4_CALLBACK_VERSION, proc, OpaqueAuth::NONE, OpaqueAuth::NONE),
        );
        let mut w = msg.header_writer(body.len());
        w.put_raw(body);
        w.into_vec()
    }

    fn seq(slotid: u32, sequenceid: u32) -> CbArgOp<'static> {
        CbArgOp::CbSequence(CbSequenceArgs { sessionid: SESSION, sequenceid, slotid, ..CbSequenceArgs::default() })
    }

    /// The reply's results to a CB_COMPOUND of `ops` (minor version 1).
    fn results(svc: &CallbackService, ops: Vec<CbArgOp<'static>>) -> Vec<nfs4_proto::NfsStat4> {
        let args = CbCompound4Args { tag: b"t", minorversion: 1, callback_ident: 0, argarray: ops };
        let mut w = XdrWriter::new();
        args.encode(&mut w);
        let reply = svc.answer(&call(CB_COMPOUND, CB_PROGRAM, &w.into_vec())).expect("a reply");
        let (msg, body) = RpcMessage::decode(&reply).expect("decodes");
        assert_eq!(msg.xid, 99);
        let res = CbCompound4Res::decode_reply(body, &args.ops()).expect("a checked reply");
        assert_eq!(res.tag, b"t");
        res.resarray.iter().map(CbResOp::status).collect()
    }

    #[test]
    fn cb_null_is_answered_and_other_programs_are_refused() {
        let svc = CallbackService::new(SESSION, 2);
        let reply = svc.answer(&call(CB_NULL, CB_PROGRAM, &[])).expect("reply");
        let (msg, body) = RpcMessage::decode(&reply).expect("decodes");
        assert!(matches!(msg.body, MessageBody::Reply(ReplyBody::Accepted(a)) if a.stat == AcceptStat::Success));
        assert!(body.is_empty());
        let other = svc.answer(&call(CB_NULL, 100003, &[])).expect("reply");
        let (msg, _) = RpcMessage::decode(&other).expect("decodes");
        assert!(matches!(msg.body, MessageBody::Reply(ReplyBody::Accepted(a)) if a.stat == AcceptStat::ProgUnavail));
        assert!(svc.answer(&reply).is_none(), "a reply is not answered");
        let garbage = svc.answer(&call(CB_COMPOUND, CB_PROGRAM, &[0, 0])).expect("reply");
        let (msg, _) = RpcMessage::decode(&garbage).expect("decodes");
        assert!(matches!(msg.body, MessageBody::Reply(ReplyBody::Accepted(a)) if a.stat == AcceptStat::GarbageArgs));
    }

    #[test]
    fn cb_sequence_follows_the_back_channel_slot_rules() {
        let svc = CallbackService::new(SESSION, 2);
        let ok = nfs4_proto::NfsStat4::Ok;
        assert_eq!(results(&svc, vec![seq(0, 1)]), [ok]);
        assert_eq!(results(&svc, vec![seq(0, 1)]), [NfsErr4::RetryUncachedRep.status()], "a retry, not cached");
        assert_eq!(results(&svc, vec![seq(0, 5)]), [NfsErr4::SeqMisordered.status()]);
        assert_eq!(results(&svc, vec![seq(2, 1)]), [NfsErr4::BadSlot.status()]);
        assert_eq!(results(&svc, vec![seq(1, 1)]), [ok], "each slot counts on its own");
        svc.reset(SessionId4([8; 16]), 1);
        assert_eq!(results(&svc, vec![seq(0, 2)]), [NfsErr4::BadSession.status()], "another session now");
    }

    #[test]
    fn recalls_of_state_the_client_never_holds_are_answered_as_linux_does() {
        let svc = CallbackService::new(SESSION, 1);
        let recall =
            CbArgOp::CbRecall(CbRecallArgs { stateid: Stateid4::default(), truncate: false, fh: NfsFh4::default() });
        let any = CbArgOp::CbRecallAny(CbRecallAnyArgs::default());
        let ok = nfs4_proto::NfsStat4::Ok;
        assert_eq!(results(&svc, vec![seq(0, 1), any]), [ok, ok]);
        assert_eq!(results(&svc, vec![seq(0, 2), recall]), [ok, NfsErr4::BadHandle.status()]);
        let alone = CbArgOp::CbRecallAny(CbRecallAnyArgs::default());
        assert_eq!(results(&svc, vec![alone]), [NfsErr4::OpNotInSession.status()], "CB_SEQUENCE must come first");
        assert_eq!(results(&svc, vec![seq(0, 3), seq(0, 4)]), [ok, NfsErr4::SequencePos.status()]);
    }
}
