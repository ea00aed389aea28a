//! Back-channel abuse (RFC 8881 §2.10.3.1, §20).
//!
//! - Silent or garbage: sessions created with a back channel on their connection (the server probes it
//!   with CB_NULL) that never answer a callback, or answer each with garbage; every second the client
//!   goes and comes back (a new session, a new probe), and in between renews its lease with SEQUENCE,
//!   counting the times it says the back channel is down. Its own calls must keep working.
//! - The reply flood: REPLY records nobody asked for, 256 at a time between two SEQUENCEs of the sender's
//!   own session, which must still be answered (the server throttles the flood, not the session).

use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use nfs4_proto::{
    BindConnToSessionArgs, ChannelDirFromClient4, Compound4Args, NfsArgOp, NfsResOp, NfsStat4, OpNum4,
    CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
};
use onc_rpc::AcceptStat;

use super::pump::timed_out;
use super::Ctx;
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::callback::{garbage_reply, reply_record, PATH_DOWN};
use crate::v4::checks::compound::owner;
use crate::v4::conn::{compound_body, Received};
use crate::v4::session::{Session, SessionAsk};

/// How the abusive client treats the server's callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    Silent,
    Garbage,
}

/// Time between two SEQUENCEs of an abusive session.
const RENEW_EVERY: Duration = Duration::from_millis(100);
/// How long an abusive client keeps one session before it makes a new one.
const RENEW_SESSION_EVERY: Duration = Duration::from_secs(1);
/// Unsolicited replies per round of the reply flood.
const REPLIES_PER_ROUND: usize = 256;

/// What CREATE_SESSION asks for: the default, with the connection carrying the back channel too.
pub(crate) fn with_back_channel() -> SessionAsk {
    SessionAsk { flags: CREATE_SESSION4_FLAG_CONN_BACK_CHAN, ..SessionAsk::default() }
}

/// BIND_CONN_TO_SESSION of the connection to `session` for both channels, alone in its COMPOUND.
pub(crate) fn rebind_body(session: &Session) -> Vec<u8> {
    let op = NfsArgOp::BindConnToSession(BindConnToSessionArgs {
        sessionid: session.id,
        dir: ChannelDirFromClient4::BackOrBoth,
        use_conn_in_rdma_mode: false,
    });
    compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![op] })
}

pub(super) fn run(ctx: Ctx<'_>, connections: usize, mode: Mode) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, .. } = ctx;
    super::establish(ctx, owner("backchannel-probe").as_bytes(), with_back_channel())?.destroy();
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(move || {
                while !stop.load(Relaxed) {
                    if abuse(ctx, mode).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    Ok(())
}

/// One abusive client: a session with a back channel, SEQUENCE every [`RENEW_EVERY`] (counting the times
/// it says the path is down), callbacks ignored or answered with garbage; every [`RENEW_SESSION_EVERY`]
/// the session and client id go and new ones come (a new probe), as a client that keeps remounting.
fn abuse(ctx: Ctx<'_>, mode: Mode) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let sequenced = Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok)]);
    let mut garbage = 0u64;
    while !stop.load(Relaxed) {
        let mut session = super::establish(ctx, owner("backchannel").as_bytes(), with_back_channel())?;
        let started = Instant::now();
        while !stop.load(Relaxed) && started.elapsed() < RENEW_SESSION_EVERY {
            let answer = session.call(0, &[])?;
            tally.sent(1, 0);
            answers.check("SEQUENCE of a session with an abused back channel", &answer.outcome(), &[&sequenced]);
            let flags = answer.find(|r| match r {
                NfsResOp::Sequence(res) => res.ok().map(|ok| ok.status_flags),
                _ => None,
            });
            if flags.is_some_and(|f| f & PATH_DOWN != 0) {
                answers.path_down();
            }
            for (xid, _) in session.conn.take_backward() {
                answers.callback();
                if mode == Mode::Garbage {
                    session.conn.send_raw(&garbage_reply(xid, garbage))?;
                    garbage += 1;
                }
            }
            sleep_unless_stopped(RENEW_EVERY, stop);
        }
        session.destroy();
    }
    Ok(())
}

pub(super) fn reply_flood(ctx: Ctx<'_>, connections: usize) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, .. } = ctx;
    super::establish(ctx, owner("reply-flood-probe").as_bytes(), with_back_channel())?.destroy();
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(move || {
                while !stop.load(Relaxed) {
                    if flood_replies(ctx).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    Ok(())
}

fn flood_replies(ctx: Ctx<'_>) -> Result<(), RpcFailure> {
    let Ctx { stop, tally, answers, .. } = ctx;
    let mut session = super::establish(ctx, owner("reply-flood").as_bytes(), with_back_channel())?;
    session.conn.set_read_timeout(Duration::from_millis(200))?;
    let sequenced = Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok)]);
    let mut pacer = ctx.pacer();
    while !stop.load(Relaxed) {
        let mut batch = Vec::with_capacity(REPLIES_PER_ROUND * 32);
        for _ in 0..REPLIES_PER_ROUND {
            if pacer.wait(stop) {
                return Ok(());
            }
            batch.extend(reply_record(crate::v4::random::next_u32(), AcceptStat::Success, &[]));
        }
        session.conn.send_raw(&batch)?;
        tally.sent(REPLIES_PER_ROUND as u64, batch.len() as u64);
        let sequence = session.sequence(0);
        let xid = session.conn.send_body(&Session::body(sequence, &[]))?;
        let answer = loop {
            match session.conn.receive() {
                Ok(Received::Reply { xid: got, answer }) if got == xid => break answer,
                Ok(_) => {}
                Err(e) if timed_out(&e) && stop.load(Relaxed) => return Ok(()),
                Err(e) if timed_out(&e) => {}
                Err(e) => return Err(e),
            }
        };
        session.note(sequence, &answer);
        answers.check("SEQUENCE between floods of unsolicited replies", &answer.outcome(), &[&sequenced]);
    }
    session.destroy();
    Ok(())
}
