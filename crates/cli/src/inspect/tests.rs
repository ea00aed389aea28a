//! NFSv4 messages through the inspector: a COMPOUND call and its reply decode, describe and re-encode
//! byte for byte (the kernel's own v4 records are checked in nfs4-proto's golden tests).

use super::*;
use nfs4_proto::{
    Compound4Args, Compound4Res, Nfs4Result, NfsArgOp, NfsFh4, NfsResOp, PutfhArgs, ReadArgs, ReadResOk, SequenceArgs,
    SequenceResOk, SessionId4, Stateid4, Void,
};
use onc_rpc::{CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use xdr::{XdrEncode, XdrWriter};

const COMPOUND: CallKey = CallKey { prog: 100003, vers: 4, proc: 1 };

fn record(message: RpcMessage<'_>, body: &impl XdrEncode) -> Vec<u8> {
    let mut w = XdrWriter::new();
    message.encode_header(&mut w);
    body.encode(&mut w);
    w.to_vec()
}

fn sequence() -> SequenceArgs {
    SequenceArgs { sessionid: SessionId4([7; 16]), sequenceid: 17, slotid: 3, highest_slotid: 3, cachethis: false }
}

#[test]
fn an_nfs4_compound_call_and_its_reply_decode_describe_and_reencode_byte_for_byte() {
    let args = Compound4Args {
        tag: b"",
        minorversion: 1,
        argarray: vec![
            NfsArgOp::Sequence(sequence()),
            NfsArgOp::Putfh(PutfhArgs { object: NfsFh4::new(&[1, 2, 3, 4]).expect("handle") }),
            NfsArgOp::Read(ReadArgs { stateid: Stateid4::ANONYMOUS, offset: 8192, count: 4096 }),
        ],
    };
    let header = CallHeader::new(100003, 4, 1, OpaqueAuth::NONE, OpaqueAuth::NONE);
    let call = record(RpcMessage::call(9, header), &args);
    let decoded = decode_call(&call).expect("decodes");
    assert!(matches!(decoded.body, Body::Nfs4Call(_)));
    assert_eq!(decoded.encode(), call);
    let line = describe(&decoded.message.body, &decoded.body);
    assert_eq!(line, "minorversion 1: SEQUENCE slot 3 seq 17, PUTFH, READ offset 8192 count 4096");
    assert_eq!(procedure_name(COMPOUND), "NFS4 COMPOUND");

    let seq = SequenceResOk {
        sessionid: SessionId4([7; 16]),
        sequenceid: 17,
        slotid: 3,
        highest_slotid: 3,
        target_highest_slotid: 3,
        status_flags: 0,
    };
    let data = [5u8; 100];
    let res = Compound4Res::new(
        b"",
        vec![
            NfsResOp::Sequence(Nfs4Result::Ok(seq)),
            NfsResOp::Putfh(Nfs4Result::Ok(Void)),
            NfsResOp::Read(Nfs4Result::Ok(ReadResOk { eof: true, data: &data })),
        ],
    );
    let reply = record(RpcMessage::reply(9, ReplyBody::success(OpaqueAuth::NONE)), &res);
    let decoded = decode_reply(&reply, COMPOUND).expect("decodes");
    assert_eq!(decoded.encode(), reply);
    let line = describe(&decoded.message.body, &decoded.body);
    assert_eq!(line, "NFS4_OK: SEQUENCE NFS4_OK, PUTFH NFS4_OK, READ NFS4_OK count 100 eof true");
}

#[test]
fn a_truncated_compound_is_an_error_naming_the_procedure() {
    let args = Compound4Args { tag: b"", minorversion: 1, argarray: vec![NfsArgOp::Sequence(sequence())] };
    let header = CallHeader::new(100003, 4, 1, OpaqueAuth::NONE, OpaqueAuth::NONE);
    let call = record(RpcMessage::call(9, header), &args);
    let err = decode_call(&call[..call.len() - 4]).expect_err("truncated");
    assert!(err.to_string().starts_with("NFS4 COMPOUND call:"), "{err}");
    let bad_proc = CallHeader::new(100003, 4, 2, OpaqueAuth::NONE, OpaqueAuth::NONE);
    let err = decode_call(&record(RpcMessage::call(9, bad_proc), &args)).expect_err("no procedure 2");
    assert!(matches!(err, InspectError::UnknownProcedure(_)), "{err}");
}
