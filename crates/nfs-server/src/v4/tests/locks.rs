//! Byte-range locks across two clients: LOCK with a new and an existing lock-owner, NFS4ERR_DENIED with
//! the holder, LOCKT, LOCKU, FREE_STATEID and TEST_STATEID, CLOSE with locks held; delegation operations
//! that find nothing granted.

use nfs4_proto::*;

use super::*;

fn new_lock<'a>(
    open: Stateid4,
    owner: &'a [u8],
    clientid: u64,
    locktype: NfsLockType4,
    offset: u64,
    length: u64,
) -> NfsArgOp<'a> {
    NfsArgOp::Lock(LockArgs {
        locktype,
        reclaim: false,
        offset,
        length,
        locker: Locker4::NewLockOwner(OpenToLockOwner4 {
            open_seqid: 0,
            open_stateid: open,
            lock_seqid: 0,
            lock_owner: LockOwner4 { clientid, owner: Opaque4(owner) },
        }),
    })
}

/// The lock stateid of a LOCK answer.
fn lock_stateid(answer: &Answer) -> Stateid4 {
    match answer.res().resarray.last() {
        Some(NfsResOp::Lock(Nfs4ResultOr::Ok(ok))) => ok.lock_stateid,
        other => panic!("LOCK: {other:?}"),
    }
}

#[test]
fn a_write_lock_of_one_client_denies_another_with_the_holder_named() {
    let server = server();
    let a = Client::new(&server, "locker-a");
    a.mount();
    let b = Client::new(&server, "locker-b");
    b.mount();
    let dir = a.export_fh();
    let (open_a, file) = a.create(dir, "locked");
    let (open_b, _) = b.create(dir, "locked");
    let locked = a.seq(vec![putfh(file), new_lock(open_a, b"pid-1", a.clientid.get(), NfsLockType4::Write, 0, 100)]);
    let lock_a = lock_stateid(&locked);
    let denied = b.seq(vec![putfh(file), new_lock(open_b, b"pid-2", b.clientid.get(), NfsLockType4::Read, 50, 10)]);
    assert_eq!(denied.status(), err(NfsErr4::Denied));
    let res = denied.res();
    let Some(NfsResOp::Lock(Nfs4ResultOr::ErrBody(holder))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!((holder.offset, holder.length, holder.locktype), (0, 100, NfsLockType4::Write));
    assert_eq!((holder.owner.clientid, holder.owner.owner.as_bytes()), (a.clientid.get(), &b"pid-1"[..]));
    let test = NfsArgOp::Lockt(LocktArgs {
        locktype: NfsLockType4::Write,
        offset: 200,
        length: 10,
        owner: LockOwner4 { clientid: b.clientid.get(), owner: Opaque4(b"pid-2") },
    });
    assert_eq!(b.seq(vec![putfh(file), test]).status(), OK, "past the lock");
    // Reads of both clients may overlap once A's lock is a read lock, after LOCKU.
    let unlock = NfsArgOp::Locku(LockuArgs {
        locktype: NfsLockType4::Write,
        seqid: 0,
        lock_stateid: lock_a,
        offset: 0,
        length: 100,
    });
    let unlocked = a.seq(vec![putfh(file), unlock]);
    assert_eq!(unlocked.status(), OK);
    let granted = b.seq(vec![putfh(file), new_lock(open_b, b"pid-2", b.clientid.get(), NfsLockType4::Read, 50, 10)]);
    assert_eq!(granted.status(), OK);
}

#[test]
fn an_existing_lock_owner_locks_again_by_its_stateid_and_close_waits_for_its_locks() {
    let server = server();
    let c = Client::new(&server, "existing");
    c.mount();
    let (open, file) = c.create(c.export_fh(), "f");
    let first =
        lock_stateid(&c.seq(vec![putfh(file), new_lock(open, b"me", c.clientid.get(), NfsLockType4::Write, 0, 10)]));
    let again = NfsArgOp::Lock(LockArgs {
        locktype: NfsLockType4::Write,
        reclaim: false,
        offset: 20,
        length: 10,
        locker: Locker4::ExistingLockOwner(ExistLockOwner4 { lock_stateid: first, lock_seqid: 0 }),
    });
    let second = lock_stateid(&c.seq(vec![putfh(file), again]));
    assert_eq!(second.other, first.other, "one lock stateid per owner and file");
    assert!(second.seqid > first.seqid);
    assert_eq!(c.close(file, open).status(), err(NfsErr4::LocksHeld));
    let free = NfsArgOp::FreeStateid(FreeStateidArgs { stateid: second });
    assert_eq!(c.seq(vec![free]).statuses(), [OK, err(NfsErr4::LocksHeld)]);
    let unlock = NfsArgOp::Locku(LockuArgs {
        locktype: NfsLockType4::Write,
        seqid: 0,
        lock_stateid: second,
        offset: 0,
        length: 30,
    });
    let unlocked = c.seq(vec![putfh(file), unlock]);
    assert_eq!(unlocked.status(), OK, "one LOCKU over both ranges");
    let again = NfsArgOp::Locku(LockuArgs {
        locktype: NfsLockType4::Write,
        seqid: 0,
        lock_stateid: second,
        offset: 0,
        length: 1,
    });
    assert_eq!(c.seq(vec![putfh(file), again]).status(), err(NfsErr4::OldStateId), "LOCKU moved the seqid on");
    let tested = c.seq(vec![NfsArgOp::TestStateid(TestStateidArgs {
        stateids: vec![open, Stateid4 { seqid: 0, other: [9; 12] }],
    })]);
    let res = tested.res();
    let Some(NfsResOp::TestStateid(Nfs4Result::Ok(ok))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!(ok.status_codes, [OK, err(NfsErr4::BadStateId)]);
    assert_eq!(c.close(file, open).status(), OK);
}

#[test]
fn locks_need_a_regular_file_and_a_matching_open_mode() {
    let server = server();
    let c = Client::new(&server, "modes");
    c.mount();
    let dir = c.export_fh();
    let ro =
        c.open_how(dir, "r", OpenFlag4::Create(CreateHow4::Guarded(mode_attrs(0o644))), OPEN4_SHARE_ACCESS_READ, 0);
    let write_lock = new_lock(ro.open_stateid(), b"o", c.clientid.get(), NfsLockType4::Write, 0, 1);
    assert_eq!(c.seq(vec![putfh(ro.fh()), write_lock]).status(), err(NfsErr4::OpenMode));
    let on_dir = new_lock(ro.open_stateid(), b"o", c.clientid.get(), NfsLockType4::Read, 0, 1);
    assert_eq!(c.seq(vec![putfh(dir), on_dir]).status(), err(NfsErr4::IsDir));
    let zero = new_lock(ro.open_stateid(), b"o", c.clientid.get(), NfsLockType4::Read, 0, 0);
    assert_eq!(c.seq(vec![putfh(ro.fh()), zero]).status(), err(NfsErr4::Inval));
}

#[test]
fn delegation_operations_find_nothing_granted() {
    let server = server();
    let c = Client::new(&server, "deleg");
    c.mount();
    let (open, file) = c.create(c.export_fh(), "d");
    let ret = NfsArgOp::Delegreturn(DelegreturnArgs { deleg_stateid: open });
    assert_eq!(c.seq(vec![putfh(file), ret]).status(), err(NfsErr4::BadStateId));
    let want = NfsArgOp::WantDelegation(WantDelegationArgs {
        want: OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
        claim: DelegClaim4::Fh,
    });
    let answer = c.seq(vec![putfh(file), want]);
    let res = answer.res();
    let Some(NfsResOp::WantDelegation(Nfs4Result::Ok(d))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!(d.delegation_type(), OpenDelegationType4::NoneExt);
    let wants = c.open_how(
        c.export_fh(),
        "d",
        OpenFlag4::NoCreate,
        OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
        0,
    );
    let res = wants.res();
    let Some(NfsResOp::Open(Nfs4Result::Ok(ok))) = res.resarray.get(2) else { panic!("{res:?}") };
    assert_eq!(ok.delegation, OpenDelegation4::NoneExt(OpenNoneDelegation4::Other(WhyNoDelegation4::NotSuppFtype)));
}
