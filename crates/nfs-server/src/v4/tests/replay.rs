//! The session slot's reply cache (RFC 8881 §2.10.6.1): a retry of the last request on a slot gets the
//! same reply under its own xid, without running again; an uncached one says so; out-of-order sequence
//! ids and unknown slots and sessions are refused.

use nfs4_proto::*;

use super::*;

#[test]
fn a_replayed_slot_returns_the_cached_reply_under_the_new_xid() {
    let server = server();
    let c = Client::new(&server, "replay");
    c.mount();
    let dir = c.export_fh();
    c.cachethis.set(true);
    let create = |c: &Client<'_>, seqid: u32| {
        c.compound(vec![
            c.sequence_with(seqid),
            putfh(dir),
            NfsArgOp::Create(CreateArgs {
                objtype: CreateType4::Dir,
                objname: Component4(b"once"),
                createattrs: mode_attrs(0o755),
            }),
            NfsArgOp::Getfh,
        ])
    };
    let seqid = c.seq.get() + 1;
    c.seq.set(seqid);
    let first = create(&c, seqid);
    assert_eq!(first.status(), OK, "{:?}", first.statuses());
    let again = create(&c, seqid);
    assert_ne!(again.xid(), first.xid());
    assert_eq!(again.reply.to_vec()[4..], first.reply.to_vec()[4..], "the same reply but for the xid");
    assert!(server.stats_report().contains("NFSv4 slot replays: 1"), "{}", server.stats_report());
    // Not run twice: a new CREATE of the name is EXIST.
    let fresh = c.seq(vec![
        putfh(dir),
        NfsArgOp::Create(CreateArgs {
            objtype: CreateType4::Dir,
            objname: Component4(b"once"),
            createattrs: mode_attrs(0o755),
        }),
    ]);
    assert_eq!(fresh.status(), err(NfsErr4::Exist));
}

#[test]
fn a_replayed_read_keeps_its_data_as_a_payload() {
    let server = server();
    let c = Client::new(&server, "replay-read");
    c.mount();
    let (stateid, file) = c.create(c.export_fh(), "r");
    assert_eq!(c.write(file, stateid, 0, b"payload!").status(), OK);
    c.cachethis.set(true);
    let seqid = c.seq.get() + 1;
    c.seq.set(seqid);
    let ops = || vec![c.sequence_with(seqid), putfh(file), NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 8 })];
    let first = c.compound(ops());
    let again = c.compound(ops());
    assert_eq!(again.reply.payloads(), first.reply.payloads());
    assert_eq!(again.reply.payloads().get(0).map(|p| p.data.to_vec()), Some(b"payload!".to_vec()));
}

#[test]
fn a_retry_of_an_uncached_reply_is_retry_uncached_rep() {
    let server = server();
    let c = Client::new(&server, "uncached");
    c.mount();
    let seqid = c.seq.get() + 1;
    c.seq.set(seqid);
    assert_eq!(c.compound(vec![c.sequence_with(seqid), NfsArgOp::Putrootfh]).status(), OK);
    let retry = c.compound(vec![c.sequence_with(seqid), NfsArgOp::Putrootfh]);
    assert_eq!(retry.statuses(), [err(NfsErr4::RetryUncachedRep)]);
}

#[test]
fn sequence_refuses_misordered_ids_unknown_slots_and_sessions() {
    let server = server();
    let c = Client::new(&server, "order");
    c.mount();
    let skip = c.compound(vec![c.sequence_with(c.seq.get() + 5)]);
    assert_eq!(skip.statuses(), [err(NfsErr4::SeqMisordered)]);
    let slot = c.compound(vec![NfsArgOp::Sequence(SequenceArgs {
        sessionid: c.session.get(),
        sequenceid: 1,
        slotid: 500,
        highest_slotid: 500,
        cachethis: false,
    })]);
    assert_eq!(slot.statuses(), [err(NfsErr4::BadSlot)]);
    let unknown = c.compound(vec![NfsArgOp::Sequence(SequenceArgs {
        sessionid: SessionId4([9; 16]),
        sequenceid: 1,
        slotid: 0,
        highest_slotid: 0,
        cachethis: false,
    })]);
    assert_eq!(unknown.statuses(), [err(NfsErr4::BadSession)]);
}

#[test]
fn destroying_the_session_ends_it_and_must_end_its_own_compound() {
    let server = server();
    let c = Client::new(&server, "destroy");
    c.mount();
    let sessionid = c.session.get();
    let early = c.seq(vec![NfsArgOp::DestroySession(DestroySessionArgs { sessionid }), NfsArgOp::Putrootfh]);
    assert_eq!(early.statuses(), [OK, err(NfsErr4::NotOnlyOp)]);
    let done = c.seq(vec![NfsArgOp::DestroySession(DestroySessionArgs { sessionid })]);
    assert_eq!(done.statuses(), [OK, OK]);
    assert_eq!(c.seq(vec![]).statuses(), [err(NfsErr4::BadSession)]);
    let gone = c.compound(vec![NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid: c.clientid.get() })]);
    assert_eq!(gone.status(), OK, "a client without sessions or state may go");
}
