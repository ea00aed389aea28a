//! Stateid misuse (RFC 8881 §8.2): forged stateids, stale and future seqids, another client's stateid,
//! the wrong kind of stateid for LOCKU and CLOSE, garbage for FREE_STATEID and TEST_STATEID, and lock
//! ranges past 2^64 − 1. Each gets its error at its index — BAD_STATEID, OLD_STATEID, OPEN_MODE,
//! LOCKS_HELD, INVAL — and the data of the file stays what its owner wrote: nothing is read or written
//! under a stateid the caller does not hold.

use std::net::SocketAddr;

use nfs4_proto::{
    CloseArgs, FreeStateidArgs, LockArgs, LockOwner4, Locker4, LocktArgs, LockuArgs, NfsArgOp, NfsErr4, NfsFh4,
    NfsLockType4, NfsResOp, NfsStat4, OpNum4, Opaque4, OpenToLockOwner4, ReadArgs, StableHow4, Stateid4,
    TestStateidArgs, WriteArgs, TEST_STATEID_MAX,
};

use super::compound::owner;
use super::Verdicts;
use crate::rpc::RpcFailure;
use crate::v4::answer::Outcome;
use crate::v4::session::{putfh, Session};

/// What client A writes in its file, and must read back unchanged at the end.
const A_DATA: &[u8] = b"client A's data, written under its own open stateid";

fn read(stateid: Stateid4) -> NfsArgOp<'static> {
    NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 4096 })
}

fn write(stateid: Stateid4, data: &[u8]) -> NfsArgOp<'_> {
    NfsArgOp::Write(WriteArgs { stateid, offset: 0, stable: StableHow4::FileSync, data })
}

fn lock_new(open_stateid: Stateid4, owner: &[u8], offset: u64, length: u64) -> NfsArgOp<'_> {
    NfsArgOp::Lock(LockArgs {
        locktype: NfsLockType4::Write,
        reclaim: false,
        offset,
        length,
        locker: Locker4::NewLockOwner(OpenToLockOwner4 {
            open_seqid: 0,
            open_stateid,
            lock_seqid: 0,
            lock_owner: LockOwner4 { clientid: 0, owner: Opaque4(owner) },
        }),
    })
}

fn locku(lock_stateid: Stateid4, offset: u64, length: u64) -> NfsArgOp<'static> {
    NfsArgOp::Locku(LockuArgs { locktype: NfsLockType4::Write, seqid: 0, lock_stateid, offset, length })
}

/// SEQUENCE and PUTFH, then `failed` failing with `err`.
fn on_file_fails(failed: OpNum4, err: NfsErr4) -> Outcome {
    Outcome::fails_at(&[OpNum4::Sequence, OpNum4::Putfh], failed, err)
}

/// A stateid nobody was given: random `other`.
fn forged() -> Stateid4 {
    Stateid4 { seqid: 1, other: crate::v4::random::bytes() }
}

/// Client A's file, and what A holds on it.
struct Holder {
    session: Session,
    fh: NfsFh4,
    open: Stateid4,
    lock: Stateid4,
}

/// Every stateid misuse case, by a client B against client A's file, and by A against its own.
pub fn stateid_misuse(addr: SocketAddr, export: &str) -> Result<Verdicts, RpcFailure> {
    let mut v = Verdicts::default();
    let mut a = holder(addr, export)?;
    let mut b = Session::establish(addr, owner("stateid-b").as_bytes())?;
    let dir = b.lookup_path(export)?;
    let (b_open, _) = b.create(dir, &format!("b-{:016x}", crate::v4::random::next_u64()), b"b")?;
    let (fh, open, lock) = (a.fh, a.open, a.lock);

    // Forged, stale, future and special stateids on A's own file.
    let stale = Stateid4 { seqid: open.seqid - 1, ..open };
    let future = Stateid4 { seqid: open.seqid + 1, ..open };
    let cases: [(&str, NfsArgOp<'_>, Outcome); 7] = [
        ("READ under a forged stateid", read(forged()), on_file_fails(OpNum4::Read, NfsErr4::BadStateId)),
        ("WRITE under a forged stateid", write(forged(), b"forged"), on_file_fails(OpNum4::Write, NfsErr4::BadStateId)),
        // RFC 8881 §8.2.2: an earlier seqid is OLD_STATEID, a later one BAD_STATEID.
        ("READ under a stale seqid", read(stale), on_file_fails(OpNum4::Read, NfsErr4::OldStateId)),
        (
            "WRITE under a seqid from the future",
            write(future, b"future"),
            on_file_fails(OpNum4::Write, NfsErr4::BadStateId),
        ),
        // RFC 8881 §16.2.3.1.2: the current stateid with none set.
        (
            "READ under the current stateid with none set",
            read(Stateid4::CURRENT),
            on_file_fails(OpNum4::Read, NfsErr4::BadStateId),
        ),
        (
            "READ under the invalid special stateid",
            read(Stateid4::INVALID),
            on_file_fails(OpNum4::Read, NfsErr4::BadStateId),
        ),
        // The lock stateid's seqid from the future.
        (
            "WRITE under a lock stateid from the future",
            write(Stateid4 { seqid: lock.seqid + 5, ..lock }, b"lock"),
            on_file_fails(OpNum4::Write, NfsErr4::BadStateId),
        ),
    ];
    for (name, op, expected) in cases {
        let got = a.session.call(0, &[putfh(fh), op])?.outcome();
        v.outcome(name, &expected, &got);
    }

    // Client B with A's stateids, and with its own stateid on A's file: never served.
    let cases: [(&str, NfsArgOp<'_>, Outcome); 6] = [
        ("B reads A's file under A's open stateid", read(open), on_file_fails(OpNum4::Read, NfsErr4::BadStateId)),
        (
            "B writes A's file under A's open stateid",
            write(open, b"B was here"),
            on_file_fails(OpNum4::Write, NfsErr4::BadStateId),
        ),
        (
            "B writes A's file under A's lock stateid",
            write(lock, b"B was here"),
            on_file_fails(OpNum4::Write, NfsErr4::BadStateId),
        ),
        (
            "B writes A's file under its own stateid for another file",
            write(b_open, b"B"),
            on_file_fails(OpNum4::Write, NfsErr4::BadStateId),
        ),
        ("B unlocks A's lock", locku(lock, 0, 1), on_file_fails(OpNum4::Locku, NfsErr4::BadStateId)),
        (
            "B closes A's open",
            NfsArgOp::Close(CloseArgs { seqid: 0, open_stateid: open }),
            on_file_fails(OpNum4::Close, NfsErr4::BadStateId),
        ),
    ];
    for (name, op, expected) in cases {
        let got = b.call(0, &[putfh(fh), op])?.outcome();
        v.outcome(name, &expected, &got);
    }
    for (name, stateid) in [("B frees A's lock stateid", lock), ("B frees A's open stateid", open)] {
        let got = b.call(0, &[NfsArgOp::FreeStateid(FreeStateidArgs { stateid })])?.outcome();
        v.outcome(name, &Outcome::fails_at(&[OpNum4::Sequence], OpNum4::FreeStateid, NfsErr4::BadStateId), &got);
    }

    // The wrong kind of stateid, garbage, and ranges past 2^64 - 1, by A.
    let cases: [(&str, Vec<NfsArgOp<'_>>, Outcome); 9] = [
        (
            "LOCKU under the open stateid",
            vec![putfh(fh), locku(open, 0, 1)],
            on_file_fails(OpNum4::Locku, NfsErr4::BadStateId),
        ),
        (
            "LOCKU under a forged stateid",
            vec![putfh(fh), locku(forged(), 0, 1)],
            on_file_fails(OpNum4::Locku, NfsErr4::BadStateId),
        ),
        (
            "CLOSE under the lock stateid",
            vec![putfh(fh), NfsArgOp::Close(CloseArgs { seqid: 0, open_stateid: lock })],
            on_file_fails(OpNum4::Close, NfsErr4::BadStateId),
        ),
        (
            "FREE_STATEID of a forged stateid",
            vec![NfsArgOp::FreeStateid(FreeStateidArgs { stateid: forged() })],
            Outcome::fails_at(&[OpNum4::Sequence], OpNum4::FreeStateid, NfsErr4::BadStateId),
        ),
        // As knfsd: an open stateid is not freed while it is open.
        (
            "FREE_STATEID of an open stateid",
            vec![NfsArgOp::FreeStateid(FreeStateidArgs { stateid: open })],
            Outcome::fails_at(&[OpNum4::Sequence], OpNum4::FreeStateid, NfsErr4::LocksHeld),
        ),
        // RFC 8881 §18.10.4: a range whose end passes 2^64 - 1 (and is not "to the end") is INVAL.
        (
            "LOCK of a range past 2^64 - 1",
            vec![putfh(fh), lock_new(open, b"overflow", u64::MAX - 10, 100)],
            on_file_fails(OpNum4::Lock, NfsErr4::Inval),
        ),
        (
            "LOCK of length 0",
            vec![putfh(fh), lock_new(open, b"empty", 0, 0)],
            on_file_fails(OpNum4::Lock, NfsErr4::Inval),
        ),
        (
            "LOCKT of a range past 2^64 - 1",
            vec![
                putfh(fh),
                NfsArgOp::Lockt(LocktArgs {
                    locktype: NfsLockType4::Read,
                    offset: u64::MAX,
                    length: 2,
                    owner: LockOwner4 { clientid: a.session.clientid, owner: Opaque4(b"t") },
                }),
            ],
            on_file_fails(OpNum4::Lockt, NfsErr4::Inval),
        ),
        (
            "LOCKU of a range past 2^64 - 1",
            vec![putfh(fh), locku(lock, 1 << 63, 1 << 63)],
            on_file_fails(OpNum4::Locku, NfsErr4::Inval),
        ),
    ];
    for (name, ops, expected) in cases {
        let got = a.session.call(0, &ops)?.outcome();
        v.outcome(name, &expected, &got);
    }

    // TEST_STATEID: each garbage stateid BAD_STATEID, A's own fine; more than the codec's bound is BADXDR.
    let mut garbage: Vec<Stateid4> = (0..TEST_STATEID_MAX - 2).map(|_| forged()).collect();
    garbage.extend([open, lock]);
    let answer = a.session.call(0, &[NfsArgOp::TestStateid(TestStateidArgs { stateids: garbage })])?;
    let codes = answer.find(|r| match r {
        NfsResOp::TestStateid(res) => res.ok().map(|ok| ok.status_codes.clone()),
        _ => None,
    });
    let right = codes.as_ref().is_some_and(|c| {
        c.len() == TEST_STATEID_MAX as usize
            && c[..c.len() - 2].iter().all(|s| *s == NfsErr4::BadStateId.status())
            && c[c.len() - 2..].iter().all(|s| *s == NfsStat4::Ok)
    });
    v.that(
        format!("TEST_STATEID of {} forged stateids and A's two", TEST_STATEID_MAX - 2),
        "BAD_STATEID for each forged one, OK for A's",
        codes.map_or(answer.outcome().to_string(), |c| format!("{} codes, last {:?}", c.len(), c.last())),
        right,
    );
    let too_many: Vec<Stateid4> = (0..=TEST_STATEID_MAX).map(|_| forged()).collect();
    let got = a.session.call(0, &[NfsArgOp::TestStateid(TestStateidArgs { stateids: too_many })])?.outcome();
    v.outcome(
        format!("TEST_STATEID of {} stateids", TEST_STATEID_MAX + 1),
        &Outcome::fails_at(&[OpNum4::Sequence], OpNum4::TestStateid, NfsErr4::BadXdr),
        &got,
    );

    // A's data is what A wrote, and A's stateids still work.
    let answer = a.session.call(0, &[putfh(fh), read(open)])?;
    let data = answer.find(|r| match r {
        NfsResOp::Read(res) => res.ok().map(|ok| ok.data.to_vec()),
        _ => None,
    });
    v.that(
        "A's file after the misuse",
        format!("{:?}", String::from_utf8_lossy(A_DATA)),
        data.as_ref().map_or(answer.outcome().to_string(), |d| format!("{:?}", String::from_utf8_lossy(d))),
        data.as_deref() == Some(A_DATA),
    );
    let unlock = a.session.call(0, &[putfh(fh), locku(lock, 0, 1)])?.outcome();
    v.outcome(
        "A unlocks its lock",
        &Outcome::results(&[
            (OpNum4::Sequence, NfsStat4::Ok),
            (OpNum4::Putfh, NfsStat4::Ok),
            (OpNum4::Locku, NfsStat4::Ok),
        ]),
        &unlock,
    );
    a.session.destroy();
    b.destroy();
    Ok(v)
}

/// Client A: its file with [`A_DATA`], opened twice by one open-owner (so the open stateid's seqid is 2
/// and 1 is stale), and a lock of byte 0.
fn holder(addr: SocketAddr, export: &str) -> Result<Holder, RpcFailure> {
    let mut session = Session::establish(addr, owner("stateid-a").as_bytes())?;
    let dir = session.lookup_path(export)?;
    let name = format!("a-{:016x}", crate::v4::random::next_u64());
    let (first, fh) = session.create(dir, &name, b"a")?;
    session.write(fh, first, 0, A_DATA)?;
    let (open, _) = session.create(dir, &name, b"a")?;
    if open.seqid <= first.seqid || open.other != first.other {
        return Err(RpcFailure::Nfs4 {
            step: "the second OPEN by one open-owner".into(),
            outcome: format!("stateid {open:?} after {first:?}"),
        });
    }
    let answer = session.call_ok(&[putfh(fh), lock_new(open, b"a's lock-owner", 0, 1)])?;
    let lock = answer
        .find(|r| match r {
            NfsResOp::Lock(res) => res.ok().map(|ok| ok.lock_stateid),
            _ => None,
        })
        .ok_or_else(|| RpcFailure::Nfs4 { step: "LOCK".into(), outcome: answer.outcome().to_string() })?;
    Ok(Holder { session, fh, open, lock })
}
