//! Clients opening files as fast as they can and never closing: half of them create a new file with
//! each OPEN (one open-owner, millions of names), the other half open one file with a new open-owner each
//! time (millions of owners). Pipelined over 16 slots. The server must answer each OPEN with success
//! until the client's caps (open-owners, stateids) and then NFS4ERR_RESOURCE — or NFS4ERR_NOSPC once the
//! export has no room for another file — and never grow without bound.

use std::sync::atomic::Ordering::Relaxed;

use nfs4_proto::{NfsErr4, NfsStat4, OpNum4};

use super::pump::pump;
use super::Ctx;
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::checks::compound::owner;
use crate::v4::session::{open_create, Session, SessionAsk};

/// OPENs in flight per client.
const DEPTH: u32 = 16;

pub(super) fn run(ctx: Ctx<'_>, clients: usize) -> Result<(), RpcFailure> {
    let Ctx { target, stop, tally, .. } = ctx;
    // The server serves an honest OPEN: otherwise the attack cannot start.
    let mut probe = super::establish(ctx, owner("open-flood-probe").as_bytes(), SessionAsk::default())?;
    let dir = probe.lookup_path(&target.export)?;
    probe.create(dir, &format!("open-flood-{:016x}", crate::v4::random::next_u64()), b"probe")?;
    probe.destroy();
    std::thread::scope(|scope| {
        for client in 0..clients {
            scope.spawn(move || {
                while !stop.load(Relaxed) {
                    if flood(ctx, client % 2 == 0).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    Ok(())
}

/// One client's flood: new files (`new_files`) or new open-owners of one file.
fn flood(ctx: Ctx<'_>, new_files: bool) -> Result<(), RpcFailure> {
    let Ctx { target, answers, .. } = ctx;
    let mut session = super::establish(ctx, owner("open-flood").as_bytes(), SessionAsk::default())?;
    let dir = session.lookup_path(&target.export)?;
    let clientid = session.clientid;
    let tag = crate::v4::random::next_u64();
    let opened = Outcome::results(&[
        (OpNum4::Sequence, NfsStat4::Ok),
        (OpNum4::Putfh, NfsStat4::Ok),
        (OpNum4::Open, NfsStat4::Ok),
        (OpNum4::Getfh, NfsStat4::Ok),
    ]);
    let refused = |e| Outcome::fails_at(&[OpNum4::Sequence, OpNum4::Putfh], OpNum4::Open, e);
    let (resource, nospc) = (refused(NfsErr4::Resource), refused(NfsErr4::NoSpc));
    let what = if new_files { "OPEN of a new file" } else { "OPEN by a new open-owner" };
    let mut n = 0u64;
    pump(
        &mut session,
        DEPTH,
        ctx,
        |sequence| {
            n += 1;
            let (name, open_owner) = if new_files {
                (format!("flood-{tag:016x}-{n}"), "one open-owner".to_string())
            } else {
                (format!("flood-{tag:016x}"), format!("open-owner {n}"))
            };
            let ops = open_create(clientid, dir, name.as_bytes(), open_owner.as_bytes());
            (Session::body(sequence, &ops), ())
        },
        |(), answer| answers.check(what, &answer.outcome(), &[&opened, &resource, &nospc]),
    )
}
