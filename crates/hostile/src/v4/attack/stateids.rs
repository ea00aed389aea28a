//! A flood of stateid misuse: each connection, a client of its own with a file of its own, pipelines over
//! 8 slots READs and WRITEs under forged stateids, a victim client's stolen stateids on the victim's file,
//! seqids from the future, LOCKU/CLOSE/FREE_STATEID of forged stateids, TEST_STATEID of 64 forged ones
//! and lock ranges past 2^64 − 1. Every answer must be the error RFC 8881 §8.2 names at its index; at the
//! end the victim reads its file back, which must hold what it wrote.

use std::sync::atomic::Ordering::Relaxed;

use nfs4_proto::{
    CloseArgs, FreeStateidArgs, LockArgs, LockOwner4, Locker4, LockuArgs, NfsArgOp, NfsErr4, NfsFh4, NfsLockType4,
    NfsResOp, NfsStat4, OpNum4, Opaque4, OpenToLockOwner4, ReadArgs, StableHow4, Stateid4, TestStateidArgs, WriteArgs,
};

use super::pump::pump;
use super::Ctx;
use crate::attack::{sleep_unless_stopped, REOPEN_PAUSE};
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::checks::compound::owner;
use crate::v4::session::{putfh, Session, SessionAsk};

/// Requests in flight per connection.
const DEPTH: u32 = 8;
/// What the victim wrote.
const VICTIM_DATA: &[u8] = b"the victim's data: nobody else may read or change it";

fn forged() -> Stateid4 {
    Stateid4 { seqid: 1, other: crate::v4::random::bytes() }
}

pub(super) fn run(ctx: Ctx<'_>, connections: usize) -> Result<(), RpcFailure> {
    let Ctx { target, stop, tally, answers, .. } = ctx;
    let mut victim = super::establish(ctx, owner("victim").as_bytes(), SessionAsk::default())?;
    let dir = victim.lookup_path(&target.export)?;
    let (stolen, victim_fh) = victim.create(dir, &format!("victim-{:016x}", crate::v4::random::next_u64()), b"v")?;
    victim.write(victim_fh, stolen, 0, VICTIM_DATA)?;
    std::thread::scope(|scope| {
        for _ in 0..connections {
            scope.spawn(|| {
                while !stop.load(Relaxed) {
                    if flood(ctx, victim_fh, stolen).is_err() {
                        tally.closed();
                        sleep_unless_stopped(REOPEN_PAUSE, stop);
                    }
                }
            });
        }
    });
    let answer =
        victim.call(0, &[putfh(victim_fh), NfsArgOp::Read(ReadArgs { stateid: stolen, offset: 0, count: 4096 })])?;
    let data = answer.find(|r| match r {
        NfsResOp::Read(res) => res.ok().map(|ok| ok.data.to_vec()),
        _ => None,
    });
    if data.as_deref() != Some(VICTIM_DATA) {
        answers.wrong("the victim's file after the attack", "its data unchanged", &format!("{data:?}"));
    }
    victim.destroy();
    Ok(())
}

fn flood(ctx: Ctx<'_>, victim_fh: NfsFh4, stolen: Stateid4) -> Result<(), RpcFailure> {
    let Ctx { target, answers, .. } = ctx;
    let mut session = super::establish(ctx, owner("forger").as_bytes(), SessionAsk::default())?;
    let dir = session.lookup_path(&target.export)?;
    let (mine, fh) = session.create(dir, &format!("forger-{:016x}", crate::v4::random::next_u64()), b"f")?;
    let block = vec![0x66u8; 4096];
    let mut n = 0u32;
    let result = pump(
        &mut session,
        DEPTH,
        ctx,
        |sequence| {
            n = n.wrapping_add(1);
            let (name, ops, expected) = request(n % 10, fh, mine, victim_fh, stolen, &block);
            (Session::body(sequence, &ops), (name, expected))
        },
        |(name, expected), answer| answers.check(name, &answer.outcome(), &[&expected]),
    );
    session.destroy();
    result
}

/// Request `kind` of the rotation: what it is, its operations after SEQUENCE, and its one right answer.
fn request<'a>(
    kind: u32,
    fh: NfsFh4,
    mine: Stateid4,
    victim_fh: NfsFh4,
    stolen: Stateid4,
    block: &'a [u8],
) -> (&'static str, Vec<NfsArgOp<'a>>, Outcome) {
    let on_file = |op, err| Outcome::fails_at(&[OpNum4::Sequence, OpNum4::Putfh], op, err);
    let read = |stateid| NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 4096 });
    let write = |stateid| NfsArgOp::Write(WriteArgs { stateid, offset: 0, stable: StableHow4::Unstable, data: block });
    let bad = NfsErr4::BadStateId;
    match kind {
        0 => ("READ under a forged stateid", vec![putfh(fh), read(forged())], on_file(OpNum4::Read, bad)),
        1 => ("WRITE under a forged stateid", vec![putfh(fh), write(forged())], on_file(OpNum4::Write, bad)),
        2 => (
            "READ of the victim's file under its stolen stateid",
            vec![putfh(victim_fh), read(stolen)],
            on_file(OpNum4::Read, bad),
        ),
        3 => (
            "WRITE of the victim's file under its stolen stateid",
            vec![putfh(victim_fh), write(stolen)],
            on_file(OpNum4::Write, bad),
        ),
        4 => (
            "LOCKU under a forged stateid",
            vec![
                putfh(fh),
                NfsArgOp::Locku(LockuArgs {
                    locktype: NfsLockType4::Write,
                    seqid: 0,
                    lock_stateid: forged(),
                    offset: 0,
                    length: 1,
                }),
            ],
            on_file(OpNum4::Locku, bad),
        ),
        5 => (
            "CLOSE under a forged stateid",
            vec![putfh(fh), NfsArgOp::Close(CloseArgs { seqid: 0, open_stateid: forged() })],
            on_file(OpNum4::Close, bad),
        ),
        6 => (
            "FREE_STATEID of a forged stateid",
            vec![NfsArgOp::FreeStateid(FreeStateidArgs { stateid: forged() })],
            Outcome::fails_at(&[OpNum4::Sequence], OpNum4::FreeStateid, bad),
        ),
        7 => (
            "TEST_STATEID of 64 forged stateids",
            vec![NfsArgOp::TestStateid(TestStateidArgs { stateids: (0..64).map(|_| forged()).collect() })],
            Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok), (OpNum4::TestStateid, NfsStat4::Ok)]),
        ),
        8 => (
            "WRITE under its own stateid's next seqid",
            vec![putfh(fh), write(Stateid4 { seqid: mine.seqid + 1, ..mine })],
            on_file(OpNum4::Write, bad),
        ),
        _ => (
            "LOCK of a range past 2^64 - 1",
            vec![
                putfh(fh),
                NfsArgOp::Lock(LockArgs {
                    locktype: NfsLockType4::Read,
                    reclaim: false,
                    offset: u64::MAX - 1,
                    length: 16,
                    locker: Locker4::NewLockOwner(OpenToLockOwner4 {
                        open_seqid: 0,
                        open_stateid: mine,
                        lock_seqid: 0,
                        lock_owner: LockOwner4 { clientid: 0, owner: Opaque4(b"overflow") },
                    }),
                }),
            ],
            on_file(OpNum4::Lock, NfsErr4::Inval),
        ),
    }
}
