//! A flood of malformed COMPOUNDs: `connections` connections each pipelining batches of the sessionless
//! probes (every answer checked against its probe), and one session sending the in-session probes one at
//! a time (its slot found again after each refused SEQUENCE), opened again if the server drops it. The
//! probe past ca_maxrequestsize is left out: a 1 MiB record a time measures bandwidth, not the decoder.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use super::pump::timed_out;
use super::Ctx;
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::{outcome_of, Outcome};
use crate::v4::conn::Received;
use crate::v4::malformed::{in_session, sessionless, Probe, SlotEffect};
use crate::v4::session::{Session, SessionAsk};

/// Calls written before their replies are read.
const BATCH: usize = 64;

pub(super) fn run(ctx: Ctx<'_>, connections: usize) -> Result<(), RpcFailure> {
    let Ctx { target, stop, tally, .. } = ctx;
    // The server is there and speaks NFSv4.1: otherwise the attack cannot start.
    Session::establish(target.addr, super::super::checks::compound::owner("bad-compounds").as_bytes())?.destroy();
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(|| {
                while !stop.load(Relaxed) {
                    if pipeline(ctx).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
        scope.spawn(|| {
            while !stop.load(Relaxed) {
                if in_a_session(ctx).is_err() {
                    tally.closed();
                    sleep_unless_stopped(REOPEN_PAUSE, stop);
                }
            }
        });
    });
    Ok(())
}

/// Batches of sessionless probes on one connection until stopped or dropped.
fn pipeline(ctx: Ctx<'_>) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let probes: Vec<Probe> = sessionless();
    let mut conn = super::connect(ctx)?;
    conn.set_read_timeout(Duration::from_millis(200))?;
    let mut next = 0usize;
    let mut pacer = ctx.pacer();
    while !stop.load(Relaxed) {
        let mut sent: HashMap<u32, usize> = HashMap::with_capacity(BATCH);
        for _ in 0..BATCH {
            if pacer.wait(stop) {
                break;
            }
            let probe = &probes[next % probes.len()];
            let xid = conn.send_body(&probe.body)?;
            tally.sent(1, probe.body.len() as u64);
            sent.insert(xid, next % probes.len());
            next += 1;
        }
        while !sent.is_empty() {
            match conn.receive() {
                Ok(Received::Reply { xid, answer }) => {
                    if let Some(index) = sent.remove(&xid) {
                        let probe = &probes[index];
                        answers.check(probe.name, &answer.outcome(), &[&probe.expected]);
                    }
                }
                Ok(Received::Call { .. }) => {}
                Err(e) if timed_out(&e) && !stop.load(Relaxed) => {}
                Err(e) if timed_out(&e) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// The in-session probes, over and over, on slot 0 of a session of its own.
fn in_a_session(ctx: Ctx<'_>) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let owner = super::super::checks::compound::owner("bad-compounds-session");
    let mut session = super::establish(ctx, owner.as_bytes(), SessionAsk::default())?;
    let fore = session.granted.fore_chan_attrs;
    let count = in_session(session.sequence(0), fore.maxoperations, None).len();
    let mut index = 0;
    let mut pacer = ctx.pacer();
    while !pacer.wait(stop) {
        let sequence = session.sequence(0);
        let probe = in_session(sequence, fore.maxoperations, None).into_iter().nth(index % count);
        index += 1;
        let Some(probe) = probe else { continue };
        tally.sent(1, probe.body.len() as u64);
        let got = outcome_of(session.conn.call_body(&probe.body))?;
        answers.check(probe.name, &got, &[&probe.expected]);
        match (probe.slot, &got) {
            (_, Outcome::Closed) => return Err(RpcFailure::Closed),
            (SlotEffect::Advances, got) if got.last_status().is_some() => {
                if let Outcome::Compound { results, .. } = got {
                    if results.first().is_some_and(|(_, s)| s.is_ok()) {
                        session.set_seqid(0, sequence.sequenceid);
                    }
                }
            }
            (SlotEffect::Refused, _) => {
                session.resync(0)?;
            }
            _ => {}
        }
    }
    session.destroy();
    Ok(())
}
