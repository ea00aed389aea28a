//! Client records as the resource attacked.
//!
//! - The storm: each connection pipelines EXCHANGE_IDs with random owners that it never confirms (the
//!   server keeps a bounded number of unconfirmed records, dropping the oldest), and every so often makes
//!   one client id ask for far more sessions than a client may have, each asking for millions of slots —
//!   the grants clamped, NFS4ERR_RESOURCE past the cap — then lets them all go (DESTROY_SESSION,
//!   DESTROY_CLIENTID), as a buggy client looping on mount would.
//! - The hoard: client ids confirmed and kept, one after the other, as many as the server gives; past its
//!   cap the server answers NFS4ERR_RESOURCE.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use nfs4_proto::{
    ChannelAttrs4, Compound4Args, DestroyClientidArgs, DestroySessionArgs, NfsArgOp, NfsErr4, NfsResOp, NfsStat4,
    OpNum4,
};

use super::pump::timed_out;
use super::{Ctx, Pacer};
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::conn::{compound_body, Received, V4Conn};
use crate::v4::session::{create_session_body, exchange_id, exchange_id_body, SessionAsk};

/// EXCHANGE_IDs pipelined per round.
const UNCONFIRMED_PER_ROUND: usize = 32;
/// CREATE_SESSIONs one client id sends per round: past any sensible cap.
const SESSIONS_PER_ROUND: u32 = 16;

fn greedy() -> SessionAsk {
    let lots = ChannelAttrs4 {
        headerpadsize: 0,
        maxrequestsize: u32::MAX,
        maxresponsesize: u32::MAX,
        maxresponsesize_cached: u32::MAX,
        maxoperations: u32::MAX,
        maxrequests: 1_000_000,
        rdma_ird: None,
    };
    SessionAsk { fore: lots, back: SessionAsk::default().back, flags: 0 }
}

fn alone(op: NfsArgOp<'_>) -> Vec<u8> {
    compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![op] })
}

fn ok(op: OpNum4) -> Outcome {
    Outcome::results(&[(op, NfsStat4::Ok)])
}

pub(super) fn storm(ctx: Ctx<'_>, connections: usize) -> Result<(), RpcFailure> {
    on_connections(ctx, connections, storm_on)
}

/// Runs `each` on `connections` connections at once until the attack stops, each opened again after
/// a failure, once the server has answered one EXCHANGE_ID at all (otherwise the attack cannot start).
fn on_connections(
    ctx: Ctx<'_>,
    connections: usize,
    each: fn(Ctx<'_>) -> Result<(), RpcFailure>,
) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, .. } = ctx;
    exchange_id(&mut super::connect(ctx)?, &crate::v4::random::bytes::<16>(), [0; 8])?;
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(|| {
                while !stop.load(Relaxed) {
                    if each(ctx).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    Ok(())
}

fn storm_on(ctx: Ctx<'_>) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let mut conn = super::connect(ctx)?;
    conn.set_read_timeout(Duration::from_millis(200))?;
    let mut pacer = ctx.pacer();
    while !stop.load(Relaxed) {
        // Unconfirmed records, pipelined.
        let mut sent = HashMap::new();
        for _ in 0..UNCONFIRMED_PER_ROUND {
            if pacer.wait(stop) {
                return Ok(());
            }
            let body = exchange_id_body(&crate::v4::random::bytes::<24>(), crate::v4::random::bytes());
            sent.insert(conn.send_body(&body)?, ());
            tally.sent(1, body.len() as u64);
        }
        while !sent.is_empty() {
            match conn.receive() {
                Ok(Received::Reply { xid, answer }) if sent.remove(&xid).is_some() => {
                    answers.check("EXCHANGE_ID of a random owner", &answer.outcome(), &[&ok(OpNum4::ExchangeId)]);
                }
                Ok(_) => {}
                Err(e) if timed_out(&e) && stop.load(Relaxed) => return Ok(()),
                Err(e) if timed_out(&e) => {}
                Err(e) => return Err(e),
            }
        }
        session_storm(ctx, &mut conn, &mut pacer)?;
    }
    Ok(())
}

/// One client id asking for [`SESSIONS_PER_ROUND`] greedy sessions, then letting everything go.
fn session_storm(ctx: Ctx<'_>, conn: &mut V4Conn, pacer: &mut Pacer) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    if pacer.wait(stop) {
        return Ok(());
    }
    let owner = crate::v4::random::bytes::<24>();
    let (clientid, first) = exchange_id(conn, &owner, crate::v4::random::bytes())?;
    let resource = Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::Resource);
    // The storm's own EXCHANGE_IDs may have pushed this unconfirmed record out already (the oldest go
    // first): then the client id is stale, and the round ends there.
    let evicted = Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::StaleClientId);
    let mut sessions = Vec::new();
    for n in 0..SESSIONS_PER_ROUND {
        if pacer.wait(stop) {
            break;
        }
        let body = create_session_body(clientid, first.wrapping_add(n), &greedy());
        tally.sent(1, body.len() as u64);
        let answer = conn.call_body(&body)?;
        let got = answer.outcome();
        if n == 0 && got == evicted {
            answers.check("CREATE_SESSION of an evicted client id", &got, &[&evicted]);
            return Ok(());
        }
        answers.check("CREATE_SESSION of a greedy client", &got, &[&ok(OpNum4::CreateSession), &resource]);
        if let Some(id) = answer.find(|r| match r {
            NfsResOp::CreateSession(res) => res.ok().map(|ok| ok.sessionid),
            _ => None,
        }) {
            sessions.push(id);
        }
    }
    for sessionid in sessions {
        pacer.wait(stop);
        let answer = conn.call_body(&alone(NfsArgOp::DestroySession(DestroySessionArgs { sessionid })))?;
        answers.check("DESTROY_SESSION", &answer.outcome(), &[&ok(OpNum4::DestroySession)]);
    }
    pacer.wait(stop);
    let answer = conn.call_body(&alone(NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid })))?;
    answers.check("DESTROY_CLIENTID", &answer.outcome(), &[&ok(OpNum4::DestroyClientid)]);
    Ok(())
}

pub(super) fn hoard(ctx: Ctx<'_>, connections: usize) -> Result<(), RpcFailure> {
    on_connections(ctx, connections, hoard_on)
}

/// Confirms client ids one after the other and keeps them; past the server's cap, EXCHANGE_ID or
/// CREATE_SESSION answers NFS4ERR_RESOURCE, and the hoarder keeps asking.
fn hoard_on(ctx: Ctx<'_>) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let mut conn = super::connect(ctx)?;
    let exchange_refused = Outcome::fails_at(&[], OpNum4::ExchangeId, NfsErr4::Resource);
    let create_refused = Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::Resource);
    let mut pacer = ctx.pacer();
    while !pacer.wait(stop) {
        let owner = crate::v4::random::bytes::<24>();
        let body = exchange_id_body(&owner, crate::v4::random::bytes());
        tally.sent(1, body.len() as u64);
        let answer = conn.call_body(&body)?;
        answers.check("EXCHANGE_ID of a hoarder", &answer.outcome(), &[&ok(OpNum4::ExchangeId), &exchange_refused]);
        let Some((clientid, sequence)) = answer.find(|r| match r {
            NfsResOp::ExchangeId(res) => res.ok().map(|ok| (ok.clientid, ok.sequenceid)),
            _ => None,
        }) else {
            continue;
        };
        pacer.wait(stop);
        let body = create_session_body(clientid, sequence, &SessionAsk::default());
        tally.sent(1, body.len() as u64);
        let answer = conn.call_body(&body)?;
        answers.check("CREATE_SESSION of a hoarder", &answer.outcome(), &[&ok(OpNum4::CreateSession), &create_refused]);
    }
    Ok(())
}
