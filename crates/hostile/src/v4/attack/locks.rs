//! Lock storms on one shared file: each client opens it and locks one-byte ranges two bytes apart (so no
//! two merge) in a region of its own (so no two clients conflict), pipelined over 16 slots — from one
//! lock-owner (millions of ranges), or from a new lock-owner each time (millions of owners, every one of
//! which the next LOCK's conflict check must pass). The server must answer each LOCK with success until
//! the client's caps (ranges, lock-owners, stateids) and NFS4ERR_RESOURCE after.
//!
//! Their control load has the same shape and pace with nothing piling up: one lock-owner locking its one
//! range again and again (each LOCK succeeds and changes nothing), so a storm's judgement is of what the
//! ranges and owners cost the others, not of what any client at that pace costs a loaded machine.

use std::sync::atomic::Ordering::Relaxed;

use nfs4_proto::{
    ExistLockOwner4, LockArgs, LockOwner4, Locker4, NfsArgOp, NfsErr4, NfsFh4, NfsLockType4, NfsResOp, NfsStat4,
    OpNum4, Opaque4, OpenToLockOwner4, Stateid4,
};

use super::pump::pump;
use super::Ctx;
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::checks::compound::owner;
use crate::v4::session::{putfh, Session, SessionAsk};

/// LOCKs in flight per client.
const DEPTH: u32 = 16;

/// What each LOCK after the first asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Storm {
    /// A new range, from the one lock-owner: millions of ranges.
    Ranges,
    /// A new range, each from a new lock-owner: millions of owners.
    Owners,
    /// The first range again, from the one lock-owner: the control load, nothing piling up.
    Relock,
}

/// `clients` clients storming as `storm` says.
pub(super) fn run(ctx: Ctx<'_>, clients: usize, storm_of: Storm) -> Result<(), RpcFailure> {
    let Ctx { target, stop, tally, .. } = ctx;
    // The shared file, made by a client that stays for the whole attack.
    let mut keeper = super::establish(ctx, owner("lock-storm-keeper").as_bytes(), SessionAsk::default())?;
    let dir = keeper.lookup_path(&target.export)?;
    let name = format!("lock-storm-{:016x}", crate::v4::random::next_u64());
    keeper.create(dir, &name, b"keeper")?;
    std::thread::scope(|scope| {
        for _ in 0..clients {
            let name = &name;
            scope.spawn(move || {
                while !stop.load(Relaxed) {
                    if storm(ctx, name, storm_of).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    keeper.destroy();
    Ok(())
}

fn lock(offset: u64, locker: Locker4<'_>) -> NfsArgOp<'_> {
    NfsArgOp::Lock(LockArgs { locktype: NfsLockType4::Write, reclaim: false, offset, length: 1, locker })
}

fn new_owner(open: Stateid4, owner: &[u8]) -> Locker4<'_> {
    Locker4::NewLockOwner(OpenToLockOwner4 {
        open_seqid: 0,
        open_stateid: open,
        lock_seqid: 0,
        lock_owner: LockOwner4 { clientid: 0, owner: Opaque4(owner) },
    })
}

/// One client's storm on the file `name`.
fn storm(ctx: Ctx<'_>, name: &str, storm_of: Storm) -> Result<(), RpcFailure> {
    let Ctx { target, answers, .. } = ctx;
    let mut session = super::establish(ctx, owner("lock-storm").as_bytes(), SessionAsk::default())?;
    let dir = session.lookup_path(&target.export)?;
    let (open, fh): (Stateid4, NfsFh4) = session.create(dir, name, b"locker")?;
    // A region of 2^36 bytes of its own, somewhere in the 2^60 bytes of the file's first range.
    let base = (u64::from(crate::v4::random::next_u32()) & 0x00ff_ffff) << 36;
    // The current stateid (seqid 0) of an open or lock stateid.
    let current = |s: Stateid4| Stateid4 { seqid: 0, ..s };
    let first = session.call_ok(&[putfh(fh), lock(base, new_owner(current(open), b"the one lock-owner"))])?;
    let lock_stateid = first
        .find(|r| match r {
            NfsResOp::Lock(res) => res.ok().map(|ok| ok.lock_stateid),
            _ => None,
        })
        .ok_or_else(|| RpcFailure::Nfs4 { step: "the first LOCK".into(), outcome: first.outcome().to_string() })?;
    let locked = Outcome::results(&[
        (OpNum4::Sequence, NfsStat4::Ok),
        (OpNum4::Putfh, NfsStat4::Ok),
        (OpNum4::Lock, NfsStat4::Ok),
    ]);
    let resource = Outcome::fails_at(&[OpNum4::Sequence, OpNum4::Putfh], OpNum4::Lock, NfsErr4::Resource);
    let what = match storm_of {
        Storm::Ranges => "LOCK of a new range by one lock-owner",
        Storm::Owners => "LOCK of a new range by a new lock-owner",
        Storm::Relock => "LOCK of its one range again by its lock-owner",
    };
    // Locking what the owner holds changes nothing, so the control load never meets a cap.
    let expected: &[&Outcome] = if storm_of == Storm::Relock { &[&locked] } else { &[&locked, &resource] };
    let mut n = 0u64;
    pump(
        &mut session,
        DEPTH,
        ctx,
        |sequence| {
            n += 1;
            let offset = if storm_of == Storm::Relock { base } else { base + 2 * n };
            let owner_name = format!("lock-owner {n}");
            let locker = if storm_of == Storm::Owners {
                new_owner(current(open), owner_name.as_bytes())
            } else {
                Locker4::ExistingLockOwner(ExistLockOwner4 { lock_stateid: current(lock_stateid), lock_seqid: 0 })
            };
            (Session::body(sequence, &[putfh(fh), lock(offset, locker)]), ())
        },
        |(), answer| answers.check(what, &answer.outcome(), expected),
    )
}
