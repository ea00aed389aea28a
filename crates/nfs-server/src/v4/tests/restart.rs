//! A `dir:` export across a restart: the client's session is gone (BADSESSION), its handles are not; in
//! the grace period it reclaims its open and its lock (CLAIM_PREVIOUS, LOCK with reclaim) while new state
//! waits (GRACE), RECLAIM_COMPLETE ends the grace period, and the data is intact. A client the old server
//! did not know may not reclaim.

use nfs4_proto::*;

use super::*;

fn reclaim_open(c: &Client<'_>, file: NfsFh4) -> Answer {
    c.seq(vec![
        putfh(file),
        NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_BOTH,
            share_deny: OPEN4_SHARE_DENY_NONE,
            owner: StateOwner4 { clientid: c.clientid.get(), owner: Opaque4(&c.owner) },
            openhow: OpenFlag4::NoCreate,
            claim: OpenClaim4::Previous(OpenDelegationType4::None),
        }),
    ])
}

fn lock(c: &Client<'_>, file: NfsFh4, open: Stateid4, reclaim: bool) -> Answer {
    c.seq(vec![
        putfh(file),
        NfsArgOp::Lock(LockArgs {
            locktype: NfsLockType4::Write,
            reclaim,
            offset: 0,
            length: 10,
            locker: Locker4::NewLockOwner(OpenToLockOwner4 {
                open_seqid: 0,
                open_stateid: open,
                lock_seqid: 0,
                lock_owner: LockOwner4 { clientid: c.clientid.get(), owner: Opaque4(b"lock-owner") },
            }),
        }),
    ])
}

#[test]
fn a_restarted_dir_server_lets_its_client_reclaim_in_grace_and_keeps_the_data() {
    let dirs = Dirs::new();
    let (dir, file) = {
        let before = dirs.server();
        let c = Client::new(&before, "reclaimer");
        c.mount();
        let dir = c.export_fh();
        let (open, file) = c.create(dir, "kept");
        assert_eq!(c.write(file, open, 0, b"survives").status(), OK);
        assert_eq!(lock(&c, file, open, false).status(), OK);
        (dir, file)
    };
    let after = dirs.server();
    let c = Client::new(&after, "reclaimer");
    c.session.set(SessionId4([1; 16]));
    assert_eq!(c.seq(vec![]).statuses(), [err(NfsErr4::BadSession)], "sessions die with the server");
    c.session_only(0);
    // A new open must wait for the reclaims; a reclaim outside the file's open is fine.
    let fresh = c.open_how(dir, "new", OpenFlag4::Create(CreateHow4::Unchecked(mode_attrs(0o644))), 3, 0);
    assert_eq!(fresh.status(), err(NfsErr4::Grace));
    assert_eq!(c.seq(vec![putfh(dir), lookup("new")]).status(), err(NfsErr4::NoEnt), "nothing was created");
    let reclaimed = reclaim_open(&c, file);
    assert_eq!(reclaimed.status(), OK, "{:?}", reclaimed.statuses());
    let open = reclaimed.open_stateid();
    assert_eq!(lock(&c, file, open, true).status(), OK, "the lock is reclaimed");
    // Another client the old server never knew may not reclaim.
    let stranger = Client::new(&after, "stranger");
    stranger.session_only(0);
    assert_eq!(reclaim_open(&stranger, file).status(), err(NfsErr4::NoGrace));
    let done = c.seq(vec![NfsArgOp::ReclaimComplete(ReclaimCompleteArgs { one_fs: false })]);
    assert_eq!(done.status(), OK);
    assert_eq!(c.read(file, open, 0, 100), Ok((b"survives".to_vec(), true)));
    let now_fresh = c.open_how(dir, "new", OpenFlag4::Create(CreateHow4::Unchecked(mode_attrs(0o644))), 3, 0);
    assert_eq!(now_fresh.status(), OK, "grace ended: every listed client completed");
    assert_eq!(reclaim_open(&c, file).status(), err(NfsErr4::NoGrace), "after RECLAIM_COMPLETE");
}

#[test]
fn a_mem_server_has_no_grace_after_a_restart() {
    let server = server();
    let c = Client::new(&server, "mem");
    c.mount();
    let (_, file) = c.create(c.export_fh(), "f");
    assert_eq!(reclaim_open(&c, file).status(), err(NfsErr4::NoGrace));
}
