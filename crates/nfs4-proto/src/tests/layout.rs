//! Byte-exact encodings checked against XDR assembled by hand from the RFC's definitions.

use super::{encode, Bytes};
use crate::*;

#[test]
fn sequence_args_and_result_are_laid_out_as_rfc_8881_section_18_46() {
    let args = NfsArgOp::Sequence(SequenceArgs {
        sessionid: SessionId4(*b"0123456789abcdef"),
        sequenceid: 0x0102_0304,
        slotid: 5,
        highest_slotid: 6,
        cachethis: true,
    });
    let expected = Bytes::new().u32(53).raw(b"0123456789abcdef").u32(0x0102_0304).u32(5).u32(6).u32(1).0;
    assert_eq!(encode(&args), expected);
    assert_eq!(xdr::decode_exact::<NfsArgOp>(&expected), Ok(args));

    let res = NfsResOp::Sequence(Nfs4Result::Ok(SequenceResOk {
        sessionid: SessionId4([0xee; 16]),
        sequenceid: 7,
        slotid: 0,
        highest_slotid: 63,
        target_highest_slotid: 31,
        status_flags: SEQ4_STATUS_RECALLABLE_STATE_REVOKED,
    }));
    let expected = Bytes::new().u32(53).u32(0).raw(&[0xee; 16]).u32(7).u32(0).u32(63).u32(31).u32(0x40).0;
    assert_eq!(encode(&res), expected);
    assert_eq!(xdr::decode_exact::<NfsResOp>(&expected), Ok(res));
    let failed = NfsResOp::error(OpNum4::Sequence, NfsErr4::BadSession);
    assert_eq!(encode(&failed), Bytes::new().u32(53).u32(10052).0);
}

#[test]
fn exchange_id_result_is_laid_out_as_rfc_8881_section_18_35() {
    let res = NfsResOp::ExchangeId(Nfs4Result::Ok(ExchangeIdResOk {
        clientid: 0x1122_3344_5566_7788,
        sequenceid: 1,
        flags: EXCHGID4_FLAG_USE_NON_PNFS | EXCHGID4_FLAG_CONFIRMED_R,
        state_protect: StateProtect4R::None,
        server_owner: ServerOwner4 { minor_id: 2, major_id: Opaque4(b"srv") },
        server_scope: Opaque4(b"scope"),
        server_impl_id: None,
    }));
    let expected = Bytes::new()
        .u32(42)
        .u32(0)
        .u64(0x1122_3344_5566_7788)
        .u32(1)
        .u32(0x8001_0000)
        .u32(0)
        .u64(2)
        .opaque(b"srv")
        .opaque(b"scope")
        .u32(0)
        .0;
    assert_eq!(encode(&res), expected);
    assert_eq!(xdr::decode_exact::<NfsResOp>(&expected), Ok(res));
}

#[test]
fn exchange_id_args_are_laid_out_as_rfc_8881_section_18_35() {
    let args = NfsArgOp::ExchangeId(ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: Verifier4(*b"verifier"), ownerid: Opaque4(b"owner") },
        flags: EXCHGID4_FLAG_SUPP_MOVED_REFER,
        state_protect: StateProtect4A::MachCred(StateProtectOps4 {
            must_enforce: Bitmap4::from_bits([53]),
            must_allow: Bitmap4::EMPTY,
        }),
        client_impl_id: Some(NfsImplId4 {
            domain: Utf8Str(b"kernel.org"),
            name: Utf8Str(b"Linux"),
            date: NfsTime4 { seconds: 1, nseconds: 2 },
        }),
    });
    let expected = Bytes::new()
        .u32(42)
        .raw(b"verifier")
        .opaque(b"owner")
        .u32(1)
        .u32(1)
        .u32(2)
        .u32(0)
        .u32(1 << 21)
        .u32(0)
        .u32(1)
        .opaque(b"kernel.org")
        .opaque(b"Linux")
        .u64(1)
        .u32(2)
        .0;
    assert_eq!(encode(&args), expected);
    assert_eq!(xdr::decode_exact::<NfsArgOp>(&expected), Ok(args));
}

#[test]
fn read_data_in_a_compound_reply_is_a_payload_at_its_xdr_position() {
    let data = [0xabu8; 4097];
    let reply = Compound4Res::new(
        b"",
        vec![
            NfsResOp::Putfh(Nfs4Result::Ok(Void)),
            NfsResOp::Read(Nfs4Result::Ok(ReadResOk { eof: true, data: &data })),
        ],
    );
    let mut w = xdr::XdrWriter::new();
    xdr::XdrEncode::encode(&reply, &mut w);
    // status, tag<>, count, PUTFH (op, status), READ (op, status, eof, length) = 40 bytes before the data.
    let head = Bytes::new().u32(0).u32(0).u32(2).u32(22).u32(0).u32(25).u32(0).u32(1).u32(4097).0;
    assert_eq!(w.payloads().len(), 1);
    assert_eq!(w.payloads()[0].position, head.len());
    assert_eq!(w.payloads()[0].data.len(), 4097);
    assert_eq!(w.inline_bytes(), &head[..], "the data and its padding are not copied inline");
    let flat = w.to_vec();
    assert_eq!(flat.len(), head.len() + 4100);
    assert_eq!(&flat[head.len()..head.len() + 4097], &data[..]);
    assert_eq!(xdr::decode_exact::<Compound4Res>(&flat), Ok(reply));
}

#[test]
fn write_data_readlink_text_and_symlink_data_are_the_only_payloads() {
    let write = NfsArgOp::Write(WriteArgs {
        stateid: Stateid4::ANONYMOUS,
        offset: 0,
        stable: StableHow4::Unstable,
        data: b"abc",
    });
    let symlink = NfsArgOp::Create(CreateArgs {
        objtype: CreateType4::Link(b"target"),
        objname: Component4(b"link"),
        createattrs: RawFattr4::EMPTY,
    });
    let readlink = NfsResOp::Readlink(Nfs4Result::Ok(ReadlinkResOk { link: b"/x" }));
    let mut w = xdr::XdrWriter::new();
    xdr::XdrEncode::encode(&write, &mut w);
    // op, stateid (16), offset (8), stable, length: the data starts at byte 36.
    assert_eq!(w.payloads().iter().map(|p| (p.position, p.data)).collect::<Vec<_>>(), vec![(36, &b"abc"[..])]);
    let mut w = xdr::XdrWriter::new();
    xdr::XdrEncode::encode(&symlink, &mut w);
    assert_eq!(w.payloads().iter().map(|p| (p.position, p.data)).collect::<Vec<_>>(), vec![(12, &b"target"[..])]);
    let mut w = xdr::XdrWriter::new();
    xdr::XdrEncode::encode(&readlink, &mut w);
    assert_eq!(w.payloads().iter().map(|p| (p.position, p.data)).collect::<Vec<_>>(), vec![(12, &b"/x"[..])]);
    for op in super::samples::args() {
        let mut w = xdr::XdrWriter::new();
        xdr::XdrEncode::encode(&op, &mut w);
        let eligible =
            matches!(op, NfsArgOp::Write(_) | NfsArgOp::Create(CreateArgs { objtype: CreateType4::Link(_), .. }));
        assert!(eligible || w.payloads().is_empty(), "{} has a payload", op.name());
    }
}
