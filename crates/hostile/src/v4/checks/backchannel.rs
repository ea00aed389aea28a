//! How the server judges a client's back channel (RFC 8881 §2.10.3.1, §18.46.3): a client that answers its
//! callbacks keeps the path up; one that answers garbage, or never answers, is told by SEQUENCE's status
//! flags that the path is down (SEQ4_STATUS_CB_PATH_DOWN_SESSION), and nothing else of its session breaks;
//! binding the connection again and answering brings the path back.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use nfs4_proto::{NfsResOp, NfsStat4, OpNum4};
use onc_rpc::AcceptStat;

use super::compound::owner;
use super::Verdicts;
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::attack::{rebind_body, with_back_channel};
use crate::v4::callback::{proper_reply, reply_record, PATH_DOWN};
use crate::v4::session::Session;

/// How a client answers the server's callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answering {
    Properly,
    WithGarbageArgs,
    Never,
}

/// Time between two SEQUENCEs while waiting for the server's view of the path.
const POLL: Duration = Duration::from_millis(100);

/// SEQUENCE every [`POLL`], answering callbacks as `how` says, until `done(flags, callbacks seen)` or
/// `limit`; the last flags and callbacks seen.
fn watch(
    session: &mut Session,
    how: Answering,
    limit: Duration,
    done: impl Fn(u32, u64) -> bool,
) -> Result<(Option<u32>, u64), RpcFailure> {
    let started = Instant::now();
    let mut callbacks = 0;
    let mut flags = None;
    while started.elapsed() < limit {
        let answer = session.call(0, &[])?;
        if answer.outcome() != Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok)]) {
            return Err(RpcFailure::Nfs4 { step: "SEQUENCE".into(), outcome: answer.outcome().to_string() });
        }
        flags = answer.find(|r| match r {
            NfsResOp::Sequence(res) => res.ok().map(|ok| ok.status_flags),
            _ => None,
        });
        for (xid, record) in session.conn.take_backward() {
            callbacks += 1;
            let reply = match how {
                Answering::Properly => proper_reply(&record),
                Answering::WithGarbageArgs => Some(reply_record(xid, AcceptStat::GarbageArgs, &[])),
                Answering::Never => None,
            };
            if let Some(reply) = reply {
                session.conn.send_raw(&reply)?;
            }
        }
        if flags.is_some_and(|f| done(f, callbacks)) {
            break;
        }
        std::thread::sleep(POLL);
    }
    Ok((flags, callbacks))
}

fn describe((flags, callbacks): (Option<u32>, u64)) -> String {
    match flags {
        Some(f) if f & PATH_DOWN != 0 => format!("path down (flags {f:#x}) after {callbacks} callbacks"),
        Some(f) => format!("path up (flags {f:#x}) after {callbacks} callbacks"),
        None => "no status flags".into(),
    }
}

fn down(flags: Option<u32>) -> bool {
    flags.is_some_and(|f| f & PATH_DOWN != 0)
}

/// The four cases; `probe_timeout` is how long the server waits for a callback's reply (a tenth of the
/// lease, at least a second, in nfs-server).
pub fn backchannel_paths(addr: SocketAddr, probe_timeout: Duration) -> Result<Verdicts, RpcFailure> {
    let mut v = Verdicts::default();
    let silent_limit = probe_timeout + Duration::from_secs(3);
    std::thread::scope(|scope| {
        // The silent client takes longest: it runs beside the others.
        let silent = scope.spawn(|| {
            let mut session = Session::establish_with(addr, owner("cb-silent").as_bytes(), with_back_channel())?;
            let started = Instant::now();
            let seen = watch(&mut session, Answering::Never, silent_limit, |f, _| f & PATH_DOWN != 0)?;
            let took = started.elapsed();
            // Binding again and answering brings the path back.
            session.conn.call_body(&rebind_body(&session))?;
            let back =
                watch(&mut session, Answering::Properly, Duration::from_secs(3), |f, n| n >= 2 && f & PATH_DOWN == 0)?;
            session.destroy();
            Ok::<_, RpcFailure>((seen, took, back))
        });

        let mut proper = Session::establish_with(addr, owner("cb-proper").as_bytes(), with_back_channel())?;
        let seen =
            watch(&mut proper, Answering::Properly, Duration::from_secs(3), |f, n| n >= 2 && f & PATH_DOWN == 0)?;
        v.that(
            "a back channel whose callbacks are answered",
            "path up after CB_NULL and CB_SEQUENCE",
            describe(seen),
            !down(seen.0) && seen.1 >= 2,
        );
        proper.destroy();

        let mut garbage = Session::establish_with(addr, owner("cb-garbage").as_bytes(), with_back_channel())?;
        let seen = watch(&mut garbage, Answering::WithGarbageArgs, Duration::from_secs(3), |f, _| f & PATH_DOWN != 0)?;
        v.that("a back channel answering GARBAGE_ARGS", "path down", describe(seen), down(seen.0));
        garbage.destroy();

        match silent.join() {
            Ok(Ok((seen, took, back))) => {
                v.that(
                    "a back channel that never answers",
                    format!("path down within {silent_limit:?}"),
                    format!("{} ({took:.1?})", describe(seen)),
                    down(seen.0),
                );
                v.that("the silent client binding again and answering", "path up", describe(back), !down(back.0));
            }
            Ok(Err(e)) => v.that("a back channel that never answers", "path down", e.to_string(), false),
            Err(_) => v.that("a back channel that never answers", "path down", "the check panicked", false),
        }
        Ok(v)
    })
}
