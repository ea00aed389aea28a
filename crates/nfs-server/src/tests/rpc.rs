//! The RPC layer (RFC 5531 §9): version, program, procedure and credential errors, malformed records.

use nfs3_proto::{GetattrArgs, Nfs3Call, NFS_PROGRAM, NFS_V3};
use onc_rpc::{
    AcceptStat, AuthFlavor, AuthStat, CallHeader, OpaqueAuth, RejectedReply, ReplyBody, RpcMessage, MOUNT_PROGRAM,
    NLM_PROGRAM, PMAP_PROGRAM,
};

use super::*;

fn raw_call(xid: u32, header: CallHeader<'_>, args: &[u8]) -> Vec<u8> {
    let mut w = RpcMessage::call(xid, header).header_writer(args.len());
    w.put_raw(args);
    w.into_vec()
}

#[test]
fn null_procedures_answer_with_auth_sys_and_auth_none() {
    let server = server();
    let mut client = Client::new(&server);
    for anonymous in [false, true] {
        client.anonymous = anonymous;
        for (prog, vers) in [(NFS_PROGRAM, 3), (MOUNT_PROGRAM, 3), (PMAP_PROGRAM, 2), (PMAP_PROGRAM, 4)] {
            let reply = client.call_raw(prog, vers, 0, &[]);
            assert!(results(&reply).is_empty(), "NULL of {prog} v{vers} has no results");
        }
    }
}

#[test]
fn replies_carry_the_xid_of_their_call() {
    let server = server();
    let client = Client::new(&server);
    let record = client.record(0xdead_beef, NFS_PROGRAM, 3, 0, &[]);
    let reply = client.send(&record).unwrap_or_default();
    assert_eq!(reply.get(..4), Some(&[0xde, 0xad, 0xbe, 0xef][..]));
}

#[test]
fn rpc_version_three_is_rpc_mismatch_two_to_two() {
    let server = server();
    let client = Client::new(&server);
    let mut header = CallHeader::new(NFS_PROGRAM, 3, 0, OpaqueAuth::NONE, OpaqueAuth::NONE);
    header.rpcvers = 3;
    let reply = client.send(&raw_call(9, header, &[])).unwrap_or_default();
    assert_eq!(reply_body(&reply), ReplyBody::Denied(RejectedReply::RpcMismatch { low: 2, high: 2 }));
}

#[test]
fn an_unknown_program_is_prog_unavail() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(accept_stat(&client.call_raw(NLM_PROGRAM, 4, 0, &[])), AcceptStat::ProgUnavail);
    assert_eq!(accept_stat(&client.call_raw(100_227, 3, 0, &[])), AcceptStat::ProgUnavail, "NFS_ACL");
}

#[test]
fn a_known_program_at_the_wrong_version_is_prog_mismatch_with_the_supported_range() {
    let server = server();
    let client = Client::new(&server);
    let nfs = AcceptStat::ProgMismatch { low: 3, high: 4 };
    assert_eq!(accept_stat(&client.call_raw(NFS_PROGRAM, 2, 0, &[])), nfs);
    assert_eq!(accept_stat(&client.call_raw(NFS_PROGRAM, 5, 0, &[])), nfs);
    let mount = AcceptStat::ProgMismatch { low: 3, high: 3 };
    assert_eq!(accept_stat(&client.call_raw(MOUNT_PROGRAM, 1, 0, &[])), mount);
    let pmap = AcceptStat::ProgMismatch { low: 2, high: 4 };
    assert_eq!(accept_stat(&client.call_raw(PMAP_PROGRAM, 5, 0, &[])), pmap);
}

#[test]
fn an_unknown_procedure_is_proc_unavail() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(accept_stat(&client.call_raw(NFS_PROGRAM, 3, 22, &[])), AcceptStat::ProcUnavail);
    assert_eq!(accept_stat(&client.call_raw(MOUNT_PROGRAM, 3, 6, &[])), AcceptStat::ProcUnavail);
    assert_eq!(accept_stat(&client.call_raw(PMAP_PROGRAM, 2, 5, &[])), AcceptStat::ProcUnavail, "CALLIT");
}

#[test]
fn arguments_that_do_not_decode_are_garbage_args() {
    let server = server();
    let client = Client::new(&server);
    let args = encode(&Nfs3Call::Getattr(GetattrArgs { object: root_of(&server) }));
    for cut in [0, 3, args.len() - 1] {
        let reply = client.call_raw(NFS_PROGRAM, 3, 1, &args[..cut]);
        assert_eq!(accept_stat(&reply), AcceptStat::GarbageArgs, "cut at {cut}");
    }
    let mut trailing = args.clone();
    trailing.extend_from_slice(&[0; 4]);
    assert_eq!(accept_stat(&client.call_raw(NFS_PROGRAM, 3, 1, &trailing)), AcceptStat::GarbageArgs);
    assert_eq!(accept_stat(&client.call_raw(NFS_PROGRAM, 3, 0, &[0; 4])), AcceptStat::GarbageArgs, "NULL takes void");
}

#[test]
fn a_write_whose_count_differs_from_its_data_is_garbage_args() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    let mut args = WriteArgs::new(file, 0, StableHow::FileSync, b"hello");
    args.count = 4;
    let reply = client.call_raw(NFS_PROGRAM, NFS_V3, 7, &encode(&Nfs3Call::Write(args)));
    assert_eq!(accept_stat(&reply), AcceptStat::GarbageArgs);
}

#[test]
fn rpcsec_gss_and_other_flavors_are_auth_too_weak() {
    let server = server();
    let client = Client::new(&server);
    for flavor in [AuthFlavor::RPCSEC_GSS, AuthFlavor::AUTH_DH, AuthFlavor(390_003)] {
        let cred = OpaqueAuth { flavor, body: &[0, 0, 0, 0] };
        let reply = client.send(&raw_call(1, CallHeader::new(NFS_PROGRAM, 3, 0, cred, OpaqueAuth::NONE), &[]));
        let reply = reply.unwrap_or_default();
        assert_eq!(reply_body(&reply), ReplyBody::Denied(RejectedReply::AuthError(AuthStat::TooWeak)), "{flavor:?}");
    }
}

#[test]
fn a_malformed_auth_sys_credential_is_auth_badcred() {
    let server = server();
    let client = Client::new(&server);
    let cred = OpaqueAuth { flavor: AuthFlavor::AUTH_SYS, body: &[0, 0, 0, 1, 0, 0] };
    let reply = client.send(&raw_call(1, CallHeader::new(NFS_PROGRAM, 3, 0, cred, OpaqueAuth::NONE), &[]));
    assert_eq!(reply_body(&reply.unwrap_or_default()), ReplyBody::Denied(RejectedReply::AuthError(AuthStat::BadCred)));
}

#[test]
fn records_without_an_xid_or_that_are_replies_get_no_answer() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(client.send(&[]), None);
    assert_eq!(client.send(&[1, 2, 3]), None);
    let mut w = RpcMessage::reply(5, ReplyBody::accepted(AcceptStat::Success)).header_writer(0);
    w.put_u32(0);
    assert_eq!(client.send(&w.into_vec()), None, "a well-formed REPLY is dropped");
    assert_eq!(client.send(&[0, 0, 0, 5, 0, 0, 0, 1, 9]), None, "a truncated REPLY is dropped");
}

#[test]
fn a_truncated_call_header_with_an_xid_is_garbage_args() {
    let server = server();
    let client = Client::new(&server);
    let record = client.record(77, NFS_PROGRAM, 3, 0, &[]);
    for cut in [4, 8, 12, 20, record.len() - 1] {
        let reply = client.send(&record[..cut]).unwrap_or_default();
        assert_eq!(accept_stat(&reply), AcceptStat::GarbageArgs, "cut at {cut}");
        assert_eq!(reply.get(..4), Some(&77u32.to_be_bytes()[..]));
    }
    let bad_type = [0, 0, 0, 9, 0, 0, 0, 7];
    assert_eq!(accept_stat(&client.send(&bad_type).unwrap_or_default()), AcceptStat::GarbageArgs);
}

#[test]
fn a_truncated_call_of_another_rpc_version_is_still_rpc_mismatch() {
    let server = server();
    let client = Client::new(&server);
    let record = [0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 3, 0, 1];
    let reply = client.send(&record).unwrap_or_default();
    assert_eq!(reply_body(&reply), ReplyBody::Denied(RejectedReply::RpcMismatch { low: 2, high: 2 }));
}

#[test]
fn the_stats_report_counts_calls_and_rpc_errors() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    for _ in 0..3 {
        ok(getattr(&client, root), "getattr");
    }
    let _ = lookup(&client, root, b"missing");
    client.call_raw(NFS_PROGRAM, 3, 22, &[]);
    assert_eq!(server.nfs_calls(1), 3);
    let report = server.stats_report();
    assert!(report.contains("GETATTR"), "{report}");
    assert!(report.contains("1 × NFS3ERR_NOENT"), "{report}");
    assert!(report.contains("PROC_UNAVAIL: 1"), "{report}");
}

#[test]
fn the_server_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Server>();
    shared::<crate::Reply>();
}
