//! The rules of COMPOUND itself (RFC 8881 §16.2.3, §15.2, §2.10.6): minor versions, undecodable and
//! unknown operations, the place of SEQUENCE and of the operations allowed outside a session, the limits
//! of the session's channel, and the current file handle.

use nfs4_proto::*;
use onc_rpc::AcceptStat;
use xdr::XdrWriter;

use super::*;

/// A COMPOUND body of `tag`, `minor`, the count `declared`, then `ops` as raw bytes.
fn body(minor: u32, declared: u32, ops: &[&[u8]]) -> Vec<u8> {
    let mut w = XdrWriter::new();
    w.put_opaque(b"raw");
    w.put_u32(minor);
    w.put_u32(declared);
    for op in ops {
        w.put_raw(op);
    }
    w.into_vec()
}

#[test]
fn minor_versions_0_and_3_are_mismatches_with_no_results() {
    let server = server();
    for minor in [0, 3] {
        let c = Client::new(&server, "minor").minor(minor);
        let answer = c.compound(vec![NfsArgOp::Putrootfh]);
        let res = Compound4Res::decode_reply(answer.body(), &[]).expect("an empty result array");
        assert_eq!(res.status, err(NfsErr4::MinorVersMismatch), "minor version {minor}");
        assert!(res.resarray.is_empty());
        assert_eq!(res.tag, b"test", "the tag is echoed");
    }
}

#[test]
fn an_empty_compound_succeeds_with_no_results() {
    let server = server();
    let c = Client::new(&server, "empty");
    let answer = c.compound(vec![]);
    assert_eq!((answer.status(), answer.statuses().len()), (OK, 0));
}

#[test]
fn an_unknown_operation_midway_is_op_illegal_after_the_ones_before_ran() {
    let server = server();
    let c = Client::new(&server, "illegal");
    c.mount();
    let seq = encode(&c.sequence());
    let illegal = 9999u32.to_be_bytes();
    let raw = body(1, 3, &[&seq, &encode(&NfsArgOp::Putrootfh), &illegal]);
    let answer = c.send_body(c.next_xid(), &raw, vec![OpNum4::Sequence, OpNum4::Putrootfh, OpNum4::Illegal]);
    assert_eq!(answer.statuses(), [OK, OK, err(NfsErr4::OpIllegal)]);
    assert!(matches!(answer.res().resarray[2], NfsResOp::Illegal(_)));
}

#[test]
fn a_v42_operation_in_a_v41_compound_is_illegal() {
    let server = server();
    let c = Client::new(&server, "v41");
    c.mount();
    let seek = NfsArgOp::Seek(SeekArgs { stateid: Stateid4::ANONYMOUS, offset: 0, what: DataContent4::Data });
    let raw = body(1, 2, &[&encode(&c.sequence()), &encode(&seek)]);
    let answer = c.send_body(c.next_xid(), &raw, vec![OpNum4::Sequence, OpNum4::Illegal]);
    assert_eq!(answer.statuses(), [OK, err(NfsErr4::OpIllegal)]);
}

#[test]
fn malformed_arguments_are_badxdr_at_their_index() {
    let server = server();
    let c = Client::new(&server, "badxdr");
    c.mount();
    // LOOKUP whose name length runs past the end of the message.
    let mut lookup = OpNum4::Lookup.as_u32().to_be_bytes().to_vec();
    lookup.extend_from_slice(&100u32.to_be_bytes());
    lookup.extend_from_slice(b"abc\0");
    let raw = body(1, 3, &[&encode(&c.sequence()), &encode(&NfsArgOp::Putrootfh), &lookup]);
    let answer = c.send_body(c.next_xid(), &raw, vec![OpNum4::Sequence, OpNum4::Putrootfh, OpNum4::Lookup]);
    assert_eq!(answer.statuses(), [OK, OK, err(NfsErr4::BadXdr)]);
}

#[test]
fn a_body_that_is_no_compound_is_garbage_args_and_runs_nothing() {
    let server = server();
    let c = Client::new(&server, "garbage");
    c.mount();
    let raw = body(1, 1, &[&encode(&c.sequence()), b"tail"]);
    let answer = c.send_body(c.next_xid(), &raw, vec![OpNum4::Sequence]);
    assert_eq!(answer.accept_stat(), AcceptStat::GarbageArgs);
    // The slot was not used: the same sequence id is new.
    c.seq.set(c.seq.get() - 1);
    assert_eq!(c.seq(vec![]).status(), OK);
    let short = [0u8, 0, 0, 9];
    let answer = c.send_body(c.next_xid(), &short, vec![]);
    assert_eq!(answer.accept_stat(), AcceptStat::GarbageArgs);
}

#[test]
fn an_operation_needing_a_session_first_is_op_not_in_session() {
    let server = server();
    let c = Client::new(&server, "nosession");
    let answer = c.compound(vec![NfsArgOp::Putrootfh, NfsArgOp::Getfh]);
    assert_eq!(answer.statuses(), [err(NfsErr4::OpNotInSession)]);
}

#[test]
fn session_management_operations_outside_a_session_must_be_alone() {
    let server = server();
    let c = Client::new(&server, "alone");
    let exchange = NfsArgOp::ExchangeId(ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: Verifier4([1; 8]), ownerid: Opaque4(b"alone") },
        ..ExchangeIdArgs::default()
    });
    let answer = c.compound(vec![exchange, NfsArgOp::Putrootfh]);
    assert_eq!(answer.statuses(), [err(NfsErr4::NotOnlyOp)]);
    let destroy = NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid: 1 });
    assert_eq!(c.compound(vec![destroy, NfsArgOp::Putrootfh]).statuses(), [err(NfsErr4::NotOnlyOp)]);
}

#[test]
fn sequence_anywhere_but_first_is_sequence_pos() {
    let server = server();
    let c = Client::new(&server, "seqpos");
    c.mount();
    let second = c.sequence_with(99);
    let answer = c.seq(vec![NfsArgOp::Putrootfh, second]);
    assert_eq!(answer.statuses(), [OK, OK, err(NfsErr4::SequencePos)]);
}

#[test]
fn more_operations_than_the_session_allows_is_too_many_ops_in_sequence() {
    let server = server();
    let c = Client::new(&server, "many");
    c.mount();
    let ops = vec![NfsArgOp::Putrootfh; 20];
    let answer = c.seq(ops);
    assert_eq!(answer.statuses(), [err(NfsErr4::TooManyOps)]);
    // RFC 8881 §2.10.6.1: the refused request did not move the slot; its sequence id again executes.
    c.seq.set(c.seq.get() - 1);
    assert_eq!(c.seq(vec![NfsArgOp::Putrootfh]).status(), OK);
}

#[test]
fn a_request_larger_than_the_session_allows_is_req_too_big() {
    let server = server();
    let c = Client::new(&server, "big");
    c.session_only(0);
    let data = vec![1u8; (1 << 20) + 100];
    let answer = c.seq(vec![
        NfsArgOp::Putrootfh,
        NfsArgOp::Write(WriteArgs {
            stateid: Stateid4::ANONYMOUS,
            offset: 0,
            stable: StableHow4::Unstable,
            data: &data,
        }),
    ]);
    assert_eq!(answer.statuses(), [err(NfsErr4::ReqTooBig)]);
    c.seq.set(c.seq.get() - 1);
    assert_eq!(c.seq(vec![NfsArgOp::Putrootfh]).status(), OK, "the same sequence id again executes");
}

#[test]
fn a_reply_over_the_cached_size_with_cachethis_is_rep_too_big_to_cache() {
    let server = server();
    let c = Client::new(&server, "cache");
    c.mount();
    let fh = c.export_fh();
    let (stateid, file) = c.create(fh, "big");
    assert_eq!(c.write(file, stateid, 0, &[5u8; 8192]).status(), OK);
    c.cachethis.set(true);
    let answer = c.seq(vec![putfh(file), NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 8192 })]);
    assert_eq!(answer.statuses(), [OK, OK, err(NfsErr4::RepTooBigToCache)]);
    let small = c.seq(vec![putfh(file), NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 100 })]);
    assert_eq!(small.status(), OK, "a small reply is cached");
}

#[test]
fn operations_without_a_current_file_handle_are_nofilehandle() {
    let server = server();
    let c = Client::new(&server, "nofh");
    c.mount();
    for op in [NfsArgOp::Getfh, NfsArgOp::Savefh, lookup("x"), getattr(&[1]), NfsArgOp::Lookupp] {
        let name = op.name();
        assert_eq!(c.seq(vec![op]).statuses(), [OK, err(NfsErr4::NoFileHandle)], "{name}");
    }
    assert_eq!(c.seq(vec![NfsArgOp::Restorefh]).statuses(), [OK, err(NfsErr4::RestoreFh)]);
}

#[test]
fn the_compound_stops_at_the_first_failure() {
    let server = server();
    let c = Client::new(&server, "stops");
    c.mount();
    let answer = c.seq(vec![NfsArgOp::Putrootfh, lookup("missing"), NfsArgOp::Getfh]);
    assert_eq!(answer.statuses(), [OK, OK, err(NfsErr4::NoEnt)]);
    assert_eq!(answer.status(), err(NfsErr4::NoEnt));
}

#[test]
fn nfsv40_operations_and_optional_ones_not_offered_are_notsupp() {
    let server = server();
    let c = Client::new(&server, "notsupp");
    c.mount();
    let renew = NfsArgOp::Renew(RenewArgs { clientid: c.clientid.get() });
    assert_eq!(c.seq(vec![renew]).statuses(), [OK, err(NfsErr4::NotSupp)]);
    let layout = NfsArgOp::Getdevicelist(GetdevicelistArgs::default());
    assert_eq!(c.seq(vec![NfsArgOp::Putrootfh, layout]).statuses(), [OK, OK, err(NfsErr4::NotSupp)]);
}

#[test]
fn compounds_failing_for_the_clients_fault_are_marked_refused_and_ordinary_failures_are_not() {
    let server = server();
    let c = Client::new(&server, "refused");
    c.mount();
    let refused = |answer: &Answer| answer.reply.is_refused();
    assert!(refused(&Client::new(&server, "minor").minor(3).compound(vec![NfsArgOp::Putrootfh])), "minor version 3");
    assert!(refused(&c.compound(vec![NfsArgOp::Putrootfh])), "OP_NOT_IN_SESSION");
    assert!(refused(&c.compound(vec![c.sequence_with(c.seq.get() + 5)])), "SEQ_MISORDERED");
    let forged = Stateid4 { seqid: 1, other: [7; 12] };
    let (stateid, file) = c.create(c.export_fh(), "mine");
    let read = |stateid| NfsArgOp::Read(ReadArgs { stateid, offset: 0, count: 1 });
    let bad = c.seq(vec![putfh(file), read(forged)]);
    assert_eq!((bad.status(), refused(&bad)), (err(NfsErr4::BadStateId), true), "a forged stateid");
    let missing = c.seq(vec![NfsArgOp::Putrootfh, lookup("missing")]);
    assert_eq!((missing.status(), refused(&missing)), (err(NfsErr4::NoEnt), false), "a name not there");
    let fine = c.seq(vec![putfh(file), read(stateid)]);
    assert_eq!((fine.status(), refused(&fine)), (OK, false));
}
