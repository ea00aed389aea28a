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
