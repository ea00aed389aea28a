//! COMPOUND (RFC 8881 §16.2, §15.2): the minor version, the operations decoded with nfs4-proto's
//! `CompoundDecoder` and executed in order until the first that fails, and the rules of sessions:
//!
//! - Minor versions 1 and 2; any other → NFS4ERR_MINOR_VERS_MISMATCH with no results (§16.2.3).
//! - A body that is no COMPOUND at all (no operation number where one is due, bytes after the last) →
//!   GARBAGE_ARGS, before anything runs (as knfsd, which decodes the whole array first); an unknown
//!   operation → an OP_ILLEGAL result with NFS4ERR_OP_ILLEGAL at its index; malformed arguments →
//!   NFS4ERR_BADXDR at its index (§15.2). The operations before it run.
//! - The first operation must be SEQUENCE or one allowed outside a session (EXCHANGE_ID, CREATE_SESSION,
//!   DESTROY_SESSION, BIND_CONN_TO_SESSION, DESTROY_CLIENTID), which must then be the only one:
//!   NFS4ERR_OP_NOT_IN_SESSION, NFS4ERR_NOT_ONLY_OP (§2.6.3.1.1.9, as knfsd's nfs41_check_op_ordering).
//!   SEQUENCE anywhere else → NFS4ERR_SEQUENCE_POS (§18.46.3).
//! - After SEQUENCE: more operations than ca_maxoperations → NFS4ERR_TOO_MANY_OPS, a request larger than
//!   ca_maxrequestsize → NFS4ERR_REQ_TOO_BIG (both in SEQUENCE's result); a reply that would pass
//!   ca_maxresponsesize → NFS4ERR_REP_TOO_BIG for the operation that would pass it, or past
//!   ca_maxresponsesize_cached with sa_cachethis → NFS4ERR_REP_TOO_BIG_TO_CACHE (§2.10.6.4, §18.46.3).
//! - The slot's reply cache gets the `COMPOUND4res` (no RPC header, no transport framing); a retry is
//!   answered from it under its own xid (§2.10.6.1.2, `results.rs`).

use std::time::Instant;

use nfs4_proto::{CompoundDecoder, NfsArgOp, NfsErr4, NfsResOp, NfsStat4, OpDecodeError, OpErrorKind, OpNum4};
use onc_rpc::AcceptStat;
use tracing::debug;

use super::context::Cx;
use super::ops;
use super::results::{replay, Results};
use super::state::SessionId;
use super::V4Service;
use crate::access::Identity;
use crate::rpc::Outcome;
use crate::stats::{CallRecord, Program};
use crate::{ConnectionInfo, Reply, Server};

/// RFC 8881 §2.6.3.1.1.9 (knfsd's ALLOWED_AS_FIRST_OP): what may start a COMPOUND without SEQUENCE.
fn allowed_first(op: OpNum4) -> bool {
    use OpNum4::*;
    matches!(op, ExchangeId | CreateSession | DestroySession | BindConnToSession | DestroyClientid | Sequence)
}

/// The decoded operations of a COMPOUND: the first [`INLINE_OPS`] in place, any more on the heap. A data
/// COMPOUND (SEQUENCE, PUTFH, READ or WRITE) then costs no allocation, and no move of each operation into
/// a vector grown for it (the profile of 4 KiB random reads had 3% of the server there).
#[derive(Default)]
struct OpList<'a> {
    inline: [Option<NfsArgOp<'a>>; INLINE_OPS],
    more: Vec<NfsArgOp<'a>>,
}

const INLINE_OPS: usize = 4;

impl<'a> OpList<'a> {
    fn push(&mut self, op: NfsArgOp<'a>) {
        match self.inline.iter_mut().find(|slot| slot.is_none()) {
            Some(slot) => *slot = Some(op),
            None => self.more.push(op),
        }
    }

    fn first(&self) -> Option<&NfsArgOp<'a>> {
        self.iter().next()
    }

    /// The operations in order.
    fn iter(&self) -> impl Iterator<Item = &NfsArgOp<'a>> {
        self.inline.iter().map_while(Option::as_ref).chain(&self.more)
    }
}

/// The slot SEQUENCE took, given back when the COMPOUND ends — with the reply to cache — whatever happens
/// (a panic in an operation included: the slot then caches a SERVERFAULT rather than staying busy).
struct SlotGuard<'s> {
    svc: &'s V4Service,
    session: SessionId,
    slot: u32,
    done: bool,
}

impl SlotGuard<'_> {
    fn finish(mut self, cached: &[u8]) {
        self.done = true;
        if let Err(e) = self.svc.state().sequence_done(&self.session, self.slot, cached) {
            debug!(error = %e, "slot reply not cached");
        }
    }
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        if !self.done {
            let mut results = Results::default();
            results.put(&NfsResOp::error(OpNum4::Sequence, NfsErr4::ServerFault));
            let cached = results.cached(b"");
            let _ = self.svc.state().sequence_done(&self.session, self.slot, &cached);
        }
    }
}

/// Executes one COMPOUND, whose call record came in at `now` (one clock read less per COMPOUND).
pub(crate) fn run(
    server: &Server,
    conn: &ConnectionInfo,
    xid: u32,
    who: Identity,
    args: &[u8],
    record_len: usize,
    now: Instant,
) -> Outcome {
    let svc = &server.v4;
    svc.housekeeping(now, false);
    // Probes scheduled by an earlier COMPOUND go now, after the reply that bound their connection.
    svc.callbacks.send_due(svc, now);
    let Ok(decoder) = CompoundDecoder::new(args, svc.max_ops) else {
        return Outcome::Refused(AcceptStat::GarbageArgs);
    };
    let tag = decoder.tag();
    let minor = decoder.minorversion();
    let declared = decoder.declared_ops();
    let mut results = Results::new(tag);
    if !(1..=2).contains(&minor) {
        // RFC 8881 §16.2.3: the status alone, no results.
        return done(results, NfsErr4::MinorVersMismatch, xid, tag);
    }
    let mut ops = OpList::default();
    let mut failure = None;
    for item in decoder {
        match item {
            Ok(op) => ops.push(op),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if let Some(OpDecodeError { kind: OpErrorKind::Garbage(err), .. }) = &failure {
        debug!(xid, peer = %conn.peer, %err, "not a COMPOUND body");
        return Outcome::Refused(AcceptStat::GarbageArgs);
    }
    let mut cx = Cx::new(server, conn, who, now, minor);
    cx.declared = declared;
    let Some(first) = ops.first() else {
        if let Some(e) = &failure {
            results.put(&decode_failure(e));
        }
        return finish(&mut cx, results, None, xid, tag);
    };
    let mut guard = None;
    // An operation's time runs from the end of the one before: one clock read per operation.
    let mut started = Instant::now();
    if first.op() == OpNum4::Sequence {
        let begun = ops::sequence::begin(&mut cx, first, record_len, &mut results);
        let status = if matches!(begun, ops::sequence::Begun::Replay(_)) { NfsStat4::Ok } else { results.status() };
        started = record_op(server, OpNum4::Sequence, status, started);
        match begun {
            ops::sequence::Begun::Replay(cached) => {
                return match replay(xid, &cached) {
                    Some(reply) => Outcome::Replayed(reply),
                    None => Outcome::Refused(AcceptStat::SystemErr),
                };
            }
            ops::sequence::Begun::Failed => return finish(&mut cx, results, None, xid, tag),
            ops::sequence::Begun::Executing(ok) => {
                guard = Some(SlotGuard { svc, session: ok.sessionid, slot: ok.slotid, done: false });
            }
        }
    } else {
        let refused = if !allowed_first(first.op()) {
            Some(NfsErr4::OpNotInSession)
        } else if declared != 1 {
            Some(NfsErr4::NotOnlyOp)
        } else {
            None
        };
        if let Some(e) = refused {
            results.put(&NfsResOp::error(first.op(), e));
            return finish(&mut cx, results, None, xid, tag);
        }
    }
    let start = usize::from(guard.is_some());
    for (index, op) in ops.iter().enumerate().skip(start) {
        cx.index = index as u32;
        let ok;
        (ok, started) = execute(&mut cx, op, &mut results, tag, started);
        if !ok {
            return finish(&mut cx, results, guard, xid, tag);
        }
    }
    if let Some(e) = &failure {
        results.put(&decode_failure(e));
    }
    finish(&mut cx, results, guard, xid, tag)
}

/// Runs one operation, begun at `started`, and appends its result; false when the COMPOUND stops here.
/// Also returns when it ended.
fn execute(cx: &mut Cx<'_>, op: &NfsArgOp<'_>, results: &mut Results, tag: &[u8], started: Instant) -> (bool, Instant) {
    // The session's ca_maxresponsesize once SEQUENCE ran, the server's before (`sequence.rs`).
    let max_response = cx.max_response;
    let cache_limit = cx.session.and_then(|s| s.cache_limit).map(|l| l as usize);
    let mark = results.mark();
    cx.room = max_response.saturating_sub(results.reply_len(tag) + 8);
    if let Err(e) = ops::execute(cx, op, results) {
        results.rollback(mark);
        results.put(&NfsResOp::error(op.op(), e));
    }
    if results.count() != mark.count() + 1 {
        // An operation that returned Ok without a result: a bug here, not the client's.
        results.rollback(mark);
        results.put(&NfsResOp::error(op.op(), NfsErr4::ServerFault));
    }
    // RFC 8881 §2.10.6.4: the operation whose result would pass the session's limits fails instead.
    let too_big = if results.reply_len(tag) > max_response {
        Some(NfsErr4::RepTooBig)
    } else if cache_limit.is_some_and(|limit| results.reply_len(tag).max(results.cached_len(tag)) > limit) {
        Some(NfsErr4::RepTooBigToCache)
    } else {
        None
    };
    if let Some(e) = too_big {
        results.rollback(mark);
        results.put(&NfsResOp::error(op.op(), e));
    }
    let status = results.status();
    let ended = record_op(cx.server, op.op(), status, started);
    (status.is_ok(), ended)
}

/// Counts one operation, begun at `started`, in the per-operation statistics; returns the time it ended.
fn record_op(server: &Server, op: OpNum4, status: NfsStat4, started: Instant) -> Instant {
    let ended = Instant::now();
    let elapsed_ns = u64::try_from(ended.saturating_duration_since(started).as_nanos()).unwrap_or(u64::MAX);
    server.stats.record(CallRecord {
        program: Program::Nfs4Op,
        proc: op.as_u32(),
        status: status.as_u32(),
        bytes_in: 0,
        bytes_out: 0,
        elapsed_ns,
    });
    ended
}

/// The result for an operation that did not decode.
fn decode_failure(e: &OpDecodeError) -> NfsResOp<'static> {
    match &e.kind {
        OpErrorKind::Illegal { .. } => NfsResOp::error(OpNum4::Illegal, NfsErr4::OpIllegal),
        OpErrorKind::BadXdr { op, .. } => NfsResOp::error(*op, NfsErr4::BadXdr),
        OpErrorKind::TooManyOps { .. } => NfsResOp::error(OpNum4::Illegal, NfsErr4::TooManyOps),
        OpErrorKind::Garbage(_) => NfsResOp::error(OpNum4::Illegal, NfsErr4::BadXdr),
    }
}

/// Failures only a broken or hostile client causes, which leave nothing done: a COMPOUND ending in one
/// counts as refused ([`Reply::mark_refused`]), so a transport throttles a peer sending little else as it
/// does one whose calls the RPC layer refuses (docs/security.md). The errors of ordinary work, and
/// RESOURCE or DELAY (the server's own limits), are not.
fn client_fault(e: NfsErr4) -> bool {
    use NfsErr4::*;
    matches!(
        e,
        BadXdr
            | OpIllegal
            | MinorVersMismatch
            | OpNotInSession
            | NotOnlyOp
            | SequencePos
            | TooManyOps
            | ReqTooBig
            | BadSession
            | BadSlot
            | SeqMisordered
            | RetryUncachedRep
            | StaleClientId
            | BadStateId
    )
}

/// The RPC reply of `results`, marked refused when the COMPOUND failed for the client's fault.
fn reply_of(results: Results, xid: u32, tag: &[u8]) -> (Reply, u32) {
    let status = results.status();
    let mut reply = results.into_reply(xid, tag);
    if status.error().is_some_and(client_fault) {
        reply.mark_refused();
    }
    (reply, status.as_u32())
}

/// A reply of the status alone (no results).
fn done(mut results: Results, status: NfsErr4, xid: u32, tag: &[u8]) -> Outcome {
    results.set_status_only(status);
    let (reply, status) = reply_of(results, xid, tag);
    Outcome::Done { reply, status }
}

/// The reply: the slot gets its cached copy first, and the reclaim record is written if it changed.
fn finish(cx: &mut Cx<'_>, mut results: Results, guard: Option<SlotGuard<'_>>, xid: u32, tag: &[u8]) -> Outcome {
    if let Some(guard) = guard {
        // Only a reply the client asked to cache is copied (a READ's data would be, otherwise).
        let cachethis = cx.session.is_some_and(|s| s.cache_limit.is_some());
        guard.finish(if cachethis { results.cached(tag) } else { Vec::new() }.as_slice());
    }
    if cx.changes_clients {
        cx.svc.save_reclaim_record(cx.now);
    }
    let (reply, status) = reply_of(results, xid, tag);
    Outcome::Done { reply, status }
}

#[cfg(test)]
mod tests {
    use nfs4_proto::ReadArgs;

    use super::*;

    #[test]
    fn the_operation_list_keeps_the_order_past_its_inline_room() {
        let mut ops = OpList::default();
        assert!(ops.first().is_none());
        let reads: Vec<NfsArgOp<'_>> =
            (0..7).map(|i| NfsArgOp::Read(ReadArgs { offset: i, ..ReadArgs::default() })).collect();
        for op in &reads {
            ops.push(op.clone());
        }
        assert_eq!(ops.iter().cloned().collect::<Vec<_>>(), reads);
        assert_eq!(ops.first(), reads.first());
    }
}
