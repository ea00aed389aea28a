//! Share reservations across clients (RFC 8881 §9.7): a deny that conflicts is SHARE_DENIED, anonymous
//! I/O against a deny is LOCKED, OPEN_DOWNGRADE lets go, CLOSE ends it; the grace check before creating.

use nfs4_proto::*;

use super::*;

#[test]
fn a_deny_write_reservation_refuses_another_clients_write_open_until_closed() {
    let server = server();
    let a = Client::new(&server, "share-a");
    a.mount();
    let b = Client::new(&server, "share-b");
    b.mount();
    let dir = a.export_fh();
    let (_, _) = a.create(dir, "shared");
    let exclusive = a.open_how(dir, "shared", OpenFlag4::NoCreate, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE);
    assert_eq!(exclusive.status(), OK);
    let file = exclusive.fh();
    let blocked = b.open_how(dir, "shared", OpenFlag4::NoCreate, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE);
    assert_eq!(blocked.status(), err(NfsErr4::ShareDenied));
    let reader = b.open_how(dir, "shared", OpenFlag4::NoCreate, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE);
    assert_eq!(reader.status(), OK, "reading is not denied");
    assert_eq!(b.write(file, Stateid4::ANONYMOUS, 0, b"x").status(), err(NfsErr4::Locked));
    // A's open held READ|WRITE (from create) and READ/deny WRITE: downgrading to the first lets B in.
    let stateid = exclusive.open_stateid();
    let down = a.seq(vec![
        putfh(file),
        NfsArgOp::OpenDowngrade(OpenDowngradeArgs {
            open_stateid: stateid,
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_BOTH,
            share_deny: 0,
        }),
    ]);
    assert_eq!(down.status(), OK, "{:?}", down.statuses());
    let writer = b.open_how(dir, "shared", OpenFlag4::NoCreate, OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE);
    assert_eq!(writer.status(), OK);
    let bogus = a.seq(vec![
        putfh(file),
        NfsArgOp::OpenDowngrade(OpenDowngradeArgs {
            open_stateid: Stateid4::CURRENT,
            seqid: 0,
            share_access: 1,
            share_deny: 3,
        }),
    ]);
    assert_eq!(bogus.status(), err(NfsErr4::BadStateId), "no current stateid after PUTFH");
}

#[test]
fn open_create_modes_guarded_exclusive_and_unchecked_truncation() {
    let server = server();
    let c = Client::new(&server, "modes");
    c.mount();
    let dir = c.export_fh();
    let guarded = |_: &str| OpenFlag4::Create(CreateHow4::Guarded(mode_attrs(0o600)));
    assert_eq!(c.open_how(dir, "g", guarded("g"), 3, 0).status(), OK);
    assert_eq!(c.open_how(dir, "g", guarded("g"), 3, 0).status(), err(NfsErr4::Exist));
    let excl = |v: u8| OpenFlag4::Create(CreateHow4::Exclusive41 { verf: Verifier4([v; 8]), attrs: mode_attrs(0o640) });
    let first = c.open_how(dir, "x", excl(1), 3, 0);
    assert_eq!(first.status(), OK);
    let res = first.res();
    let Some(NfsResOp::Open(Nfs4Result::Ok(ok))) = res.resarray.get(2) else { panic!("{res:?}") };
    assert!(ok.attrset.is_set(nfs4_proto::attr::FATTR4_TIME_ACCESS), "the times held the verifier");
    assert!(ok.attrset.is_set(nfs4_proto::attr::FATTR4_MODE));
    assert_eq!(c.open_how(dir, "x", excl(1), 3, 0).status(), OK, "the same verifier: the same create");
    assert_eq!(c.open_how(dir, "x", excl(2), 3, 0).status(), err(NfsErr4::Exist));
    let with_size = OpenFlag4::Create(CreateHow4::Exclusive41 {
        verf: Verifier4([3; 8]),
        attrs: Fattr4 { size: Some(0), ..Fattr4::default() }.to_raw(),
    });
    assert_eq!(
        c.open_how(dir, "y", with_size, 3, 0).status(),
        err(NfsErr4::Inval),
        "size is not in suppattr_exclcreat"
    );
    let (stateid, file) = c.create(dir, "t");
    assert_eq!(c.write(file, stateid, 0, b"content").status(), OK);
    let truncate = OpenFlag4::Create(CreateHow4::Unchecked(Fattr4 { size: Some(0), ..Fattr4::default() }.to_raw()));
    assert_eq!(c.open_how(dir, "t", truncate, 3, 0).status(), OK);
    // RFC 8881 §8.2.2: the OPEN moved the stateid's seqid on; seqid 0 means the current one.
    assert_eq!(c.read(file, stateid, 0, 10), Err(err(NfsErr4::OldStateId)));
    assert_eq!(c.read(file, Stateid4 { seqid: 0, ..stateid }, 0, 10), Ok((Vec::new(), true)));
    let claim_fh = c.seq(vec![
        putfh(file),
        NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: StateOwner4 { clientid: c.clientid.get(), owner: Opaque4(b"other-owner") },
            openhow: OpenFlag4::NoCreate,
            claim: OpenClaim4::Fh,
        }),
    ]);
    assert_eq!(claim_fh.status(), OK, "CLAIM_FH opens the current file");
    let missing = c.open_how(dir, "nothing", OpenFlag4::NoCreate, 1, 0);
    assert_eq!(missing.status(), err(NfsErr4::NoEnt));
}
