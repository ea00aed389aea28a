use xdr::{XdrDecode, XdrEncode, XdrError, XdrWriter};

use super::words;
use crate::*;

fn auth_sys_body() -> Vec<u8> {
    AuthSysParms::new(0x5f3a_0001, b"client", 1000, 100, &[100, 4, 27]).unwrap().encode_body()
}

fn round_trip(msg: RpcMessage<'_>, body: &[u8]) {
    let mut w = XdrWriter::new();
    msg.encode_header(&mut w);
    assert_eq!(w.len(), msg.encoded_len(), "encoded_len of {msg:?}");
    w.put_raw(body);
    let bytes = w.to_vec();
    let (decoded, rest) = RpcMessage::decode(&bytes).unwrap();
    assert_eq!(decoded, msg);
    assert_eq!(rest, body);
    assert_eq!(decoded.to_xdr_bytes(), bytes[..bytes.len() - body.len()]);
}

#[test]
fn decodes_a_call_hand_assembled_from_the_rfc_layout_and_re_encodes_it_byte_for_byte() {
    // RFC 5531 §9 rpc_msg: xid, CALL, call_body { rpcvers, prog, vers, proc, cred, verf }, then the
    // arguments: here an NFSv3 GETATTR of an 8-byte file handle under AUTH_SYS (RFC 5531 Appendix A).
    let mut bytes = words(&[0x1234_5678, 0, 2, 100_003, 3, 1]);
    bytes.extend(words(&[1, 36])); // cred: AUTH_SYS, 36-byte body
    bytes.extend(words(&[7])); // stamp
    bytes.extend(words(&[5])); // machinename length
    bytes.extend(b"host1\0\0\0"); // "host1" and 3 bytes of padding
    bytes.extend(words(&[0, 0, 2, 0, 1])); // uid 0, gid 0, gids <0, 1>
    bytes.extend(words(&[0, 0])); // verf: AUTH_NONE, empty
    let args = words(&[8, 0xdead_beef, 0x0bad_f00d]);
    bytes.extend(&args);

    let (msg, rest) = RpcMessage::decode(&bytes).unwrap();
    assert_eq!(msg.xid, 0x1234_5678);
    let call = msg.as_call().unwrap();
    assert!(call.is_rpc_version_2());
    assert_eq!((call.prog, call.vers, call.proc), (NFS_PROGRAM, 3, 1));
    assert_eq!(call.cred.flavor, AuthFlavor::AUTH_SYS);
    assert_eq!(call.verf, OpaqueAuth::NONE);
    assert_eq!(rest, args.as_slice());
    assert_eq!(rest.as_ptr(), bytes[bytes.len() - args.len()..].as_ptr(), "arguments must be borrowed");

    let sys = AuthSysParms::from_opaque_auth(&call.cred).unwrap();
    assert_eq!((sys.stamp(), sys.machinename(), sys.uid(), sys.gid()), (7, &b"host1"[..], 0, 0));
    assert_eq!(sys.gids(), &[0, 1]);
    assert_eq!(sys.encode_body(), call.cred.body);

    let mut w = msg.header_writer(args.len());
    w.put_raw(rest);
    assert_eq!(w.to_vec(), bytes);
}

#[test]
fn call_with_auth_sys_credential_round_trips() {
    let cred_body = auth_sys_body();
    let cred = OpaqueAuth::new(AuthFlavor::AUTH_SYS, &cred_body).unwrap();
    let msg = RpcMessage::call(9, CallHeader::new(NFS_PROGRAM, 3, 6, cred, OpaqueAuth::NONE));
    round_trip(msg, &words(&[1, 2, 3]));
}

#[test]
fn call_with_an_opaque_rpcsec_gss_credential_round_trips() {
    let cred = OpaqueAuth::new(AuthFlavor::RPCSEC_GSS, b"\x00\x00\x00\x01gss-handle").unwrap();
    let verf = OpaqueAuth::new(AuthFlavor::RPCSEC_GSS, b"checksum!").unwrap();
    round_trip(RpcMessage::call(10, CallHeader::new(MOUNT_PROGRAM, 3, 1, cred, verf)), b"");
}

#[test]
fn call_keeps_an_rpc_version_other_than_two_for_the_server_to_refuse() {
    let bytes = words(&[1, 0, 3, 100_003, 3, 0, 0, 0, 0, 0]);
    let (msg, _) = RpcMessage::decode(&bytes).unwrap();
    let call = msg.as_call().unwrap();
    assert_eq!(call.rpcvers, 3);
    assert!(!call.is_rpc_version_2());
    assert_eq!(msg.to_xdr_bytes(), bytes);
    let reply = RpcMessage::reply(msg.xid, ReplyBody::rpc_mismatch());
    assert_eq!(reply.to_xdr_bytes(), words(&[1, 1, 1, 0, 2, 2]));
}

#[test]
fn every_accepted_reply_form_round_trips() {
    let verf = OpaqueAuth::new(AuthFlavor::AUTH_SHORT, b"short").unwrap();
    let stats = [
        AcceptStat::Success,
        AcceptStat::ProgUnavail,
        AcceptStat::ProgMismatch { low: 2, high: 4 },
        AcceptStat::ProcUnavail,
        AcceptStat::GarbageArgs,
        AcceptStat::SystemErr,
    ];
    for stat in stats {
        let body = if stat == AcceptStat::Success { words(&[0, 42]) } else { Vec::new() };
        round_trip(RpcMessage::reply(77, ReplyBody::Accepted(AcceptedReply { verf, stat })), &body);
        round_trip(RpcMessage::reply(78, ReplyBody::accepted(stat)), &body);
    }
}

#[test]
fn every_denied_reply_form_round_trips_including_all_auth_stat_values() {
    round_trip(RpcMessage::reply(1, ReplyBody::Denied(RejectedReply::RpcMismatch { low: 2, high: 2 })), b"");
    for code in 0..=14 {
        let stat = AuthStat::from_u32(code).unwrap();
        assert_eq!(stat as u32, code);
        round_trip(RpcMessage::reply(code, ReplyBody::auth_error(stat)), b"");
    }
    assert_eq!(AuthStat::from_u32(13), Some(AuthStat::RpcsecGssCredProblem));
    assert_eq!(AuthStat::from_u32(14), Some(AuthStat::RpcsecGssCtxProblem));
}

#[test]
fn accepted_replies_have_the_rfc_layout() {
    // xid, REPLY, MSG_ACCEPTED, verf AUTH_NONE, PROG_MISMATCH, low, high.
    let msg = RpcMessage::reply(5, ReplyBody::accepted(AcceptStat::ProgMismatch { low: 3, high: 4 }));
    assert_eq!(msg.to_xdr_bytes(), words(&[5, 1, 0, 0, 0, 2, 3, 4]));
    // xid, REPLY, MSG_ACCEPTED, verf AUTH_NONE, SUCCESS: the results follow.
    let msg = RpcMessage::reply(6, ReplyBody::success(OpaqueAuth::NONE));
    assert!(msg.as_reply().unwrap().has_results());
    assert_eq!(msg.to_xdr_bytes(), words(&[6, 1, 0, 0, 0, 0]));
    // xid, REPLY, MSG_DENIED, AUTH_ERROR, AUTH_TOOWEAK.
    let msg = RpcMessage::reply(7, ReplyBody::auth_error(AuthStat::TooWeak));
    assert!(!msg.as_reply().unwrap().has_results());
    assert_eq!(msg.to_xdr_bytes(), words(&[7, 1, 1, 1, 5]));
}

#[test]
fn header_writer_lets_the_caller_append_a_borrowed_payload() {
    let data = vec![0xab; 4096];
    let msg = RpcMessage::reply(3, ReplyBody::success(OpaqueAuth::NONE));
    let mut w = msg.header_writer(16);
    w.put_payload(&data);
    assert_eq!(w.payloads().len(), 1);
    assert!(std::ptr::eq(w.payloads()[0].data, data.as_slice()));
    let bytes = w.to_vec();
    let (_, rest) = RpcMessage::decode(&bytes).unwrap();
    assert_eq!(rest.len(), 4 + 4096);
}

#[test]
fn rejects_unknown_message_type_reply_stat_accept_stat_reject_stat_and_auth_stat() {
    let cases: [(&[u32], &str); 5] = [
        (&[1, 2], "msg_type"),
        (&[1, 1, 2], "reply_stat"),
        (&[1, 1, 0, 0, 0, 6], "accept_stat"),
        (&[1, 1, 1, 2], "reject_stat"),
        (&[1, 1, 1, 1, 15], "auth_stat"),
    ];
    for (ws, expected) in cases {
        match RpcMessage::decode(&words(ws)) {
            Err(RpcError::Xdr(XdrError::BadDiscriminant { what, .. })) => assert_eq!(what, expected),
            other => panic!("{ws:?}: expected bad {expected}, got {other:?}"),
        }
    }
}

#[test]
fn rejects_a_verifier_body_longer_than_400_bytes() {
    let mut bytes = words(&[1, 0, 2, 100_003, 3, 0, 0, 0, 0, 401]);
    bytes.extend(vec![0; 404]);
    let err = RpcMessage::decode(&bytes).unwrap_err();
    assert!(
        matches!(err, RpcError::Xdr(XdrError::LengthOverLimit { what: "opaque_auth body", len: 401, max: 400, .. })),
        "{err:?}"
    );
}

#[test]
fn peeks_the_xid_of_a_message_too_short_to_decode() {
    assert_eq!(RpcMessage::peek_xid(&[0, 0, 1, 2, 0]), Some(258));
    assert!(RpcMessage::decode(&[0, 0, 1, 2, 0]).is_err());
    assert_eq!(RpcMessage::peek_xid(&[0, 0, 1]), None);
}

#[test]
fn xdr_decode_impl_leaves_the_reader_at_the_body() {
    let mut bytes = RpcMessage::reply(4, ReplyBody::success(OpaqueAuth::NONE)).to_xdr_bytes();
    bytes.extend(words(&[99]));
    let mut r = xdr::XdrReader::new(&bytes);
    let msg = <RpcMessage as XdrDecode>::decode(&mut r).unwrap();
    assert_eq!(msg.xid, 4);
    assert_eq!(r.get_u32().unwrap(), 99);
    r.finish().unwrap();
}
