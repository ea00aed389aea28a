//! One slot hammered from many connections at once: every connection sends SEQUENCE on slot 0 of the same
//! session, racing for the next sequence id (mostly the next one, sometimes the current — a retry — and
//! sometimes far ahead), half of them asking for the reply to be cached. Whatever the interleaving, each
//! answer must be one RFC 8881 §2.10.6.1 allows: executed (or replayed from the cache), SEQ_MISORDERED,
//! DELAY (the slot's request is still executing) or RETRY_UNCACHED_REP — and the slot must stay usable.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use nfs4_proto::{NfsArgOp, NfsErr4, NfsStat4, OpNum4, SequenceArgs, SessionId4};

use super::Ctx;
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::{outcome_of, Outcome};
use crate::v4::session::{Session, SessionAsk};

pub(super) fn run(ctx: Ctx<'_>, connections: usize) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, .. } = ctx;
    let owner = crate::v4::checks::compound::owner("slot-hammer");
    let session = super::establish(ctx, owner.as_bytes(), SessionAsk::default())?;
    let last = AtomicU32::new(session.seqid(0));
    let id = session.id;
    std::thread::scope(|scope| {
        for conn in 0..connections {
            let last = &last;
            scope.spawn(move || {
                while !stop.load(Relaxed) {
                    if hammer(ctx, id, last, conn as u32).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    session.destroy();
    Ok(())
}

fn hammer(ctx: Ctx<'_>, sessionid: SessionId4, last: &AtomicU32, conn: u32) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let mut c = super::connect(ctx)?;
    let executed = Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok), (OpNum4::Putrootfh, NfsStat4::Ok)]);
    let refused = |e: NfsErr4| Outcome::fails_at(&[], OpNum4::Sequence, e);
    let allowed = [
        executed.clone(),
        refused(NfsErr4::SeqMisordered),
        refused(NfsErr4::Delay),
        refused(NfsErr4::RetryUncachedRep),
    ];
    let allowed: Vec<&Outcome> = allowed.iter().collect();
    let mut n = conn;
    let mut pacer = ctx.pacer();
    while !pacer.wait(stop) {
        n = n.wrapping_add(1);
        let current = last.load(Relaxed);
        let sequenceid = match n % 8 {
            0 => current,
            1 => current.wrapping_add(5),
            _ => current.wrapping_add(1),
        };
        let sequence =
            SequenceArgs { sessionid, sequenceid, slotid: 0, highest_slotid: 0, cachethis: n.is_multiple_of(2) };
        let body = Session::body(sequence, &[NfsArgOp::Putrootfh]);
        tally.sent(1, body.len() as u64);
        let got = outcome_of(c.call_body(&body))?;
        if got == Outcome::Closed {
            return Err(RpcFailure::Closed);
        }
        if got == executed {
            last.fetch_max(sequenceid, Relaxed);
        }
        answers.check("SEQUENCE on the hammered slot", &got, &allowed);
    }
    Ok(())
}
