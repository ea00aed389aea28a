//! SEQUENCE (RFC 8881 §18.46) at the head of a COMPOUND: first the checks that need the session's
//! channel, ca_maxoperations (NFS4ERR_TOO_MANY_OPS) and ca_maxrequestsize (NFS4ERR_REQ_TOO_BIG), both
//! reported in SEQUENCE's own result (§2.10.6.4) before the slot is looked at — a request refused so
//! leaves the slot's sequence id and cached reply as they were (§2.10.6.1, as knfsd's nfsd4_sequence) —
//! then the slot (a new request, a retry answered from the slot's cache, or an error). The status flags
//! are the state machine's (the back channel's health among them).

use nfs4_proto::{NfsArgOp, NfsErr4, NfsResOp, OpNum4, SequenceResOk};

use crate::v4::context::{wire_session, Cx};
use crate::v4::errors::from_state;
use crate::v4::results::Results;
use crate::v4::state::{ForeLimit, SequenceArgs, SequenceOk, Sequenced, SessionId};

/// How the COMPOUND goes on after its SEQUENCE.
pub(crate) enum Begun {
    /// A retry: answer with this cached `COMPOUND4res`.
    Replay(Vec<u8>),
    /// SEQUENCE failed (its result is put): no slot was taken or changed.
    Failed,
    /// A new request on the slot, which must be given back when the COMPOUND ends.
    Executing(SequenceOk),
}

/// Runs the leading SEQUENCE; `record_len` is the whole call record's size.
pub(crate) fn begin(cx: &mut Cx<'_>, op: &NfsArgOp<'_>, record_len: usize, out: &mut Results) -> Begun {
    let NfsArgOp::Sequence(args) = op else {
        out.put(&NfsResOp::error(op.op(), NfsErr4::ServerFault));
        return Begun::Failed;
    };
    let request = SequenceArgs {
        sessionid: SessionId(args.sessionid.0),
        sequenceid: args.sequenceid,
        slotid: args.slotid,
        highest_slotid: args.highest_slotid,
        cachethis: args.cachethis,
        ops: cx.declared,
        request_len: record_len,
    };
    let ok = match cx.state().sequence(&request, cx.conn.id, cx.now) {
        Ok(Sequenced::Execute(ok)) => ok,
        Ok(Sequenced::Replay(cached)) => return Begun::Replay(cached),
        Ok(Sequenced::Refused(limit)) => {
            let e = match limit {
                ForeLimit::TooManyOps => NfsErr4::TooManyOps,
                ForeLimit::ReqTooBig => NfsErr4::ReqTooBig,
            };
            out.put(&NfsResOp::error(OpNum4::Sequence, e));
            return Begun::Failed;
        }
        Err(e) => {
            out.put(&NfsResOp::error(OpNum4::Sequence, from_state(&e)));
            return Begun::Failed;
        }
    };
    cx.session = Some(ok);
    cx.max_response = ok.max_response as usize;
    out.put_sequence(&SequenceResOk {
        sessionid: wire_session(&ok.sessionid),
        sequenceid: ok.sequenceid,
        slotid: ok.slotid,
        highest_slotid: ok.highest_slotid,
        target_highest_slotid: ok.target_highest_slotid,
        status_flags: ok.status_flags,
    });
    Begun::Executing(ok)
}
