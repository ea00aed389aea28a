//! The COMPOUND framing: whole-body round trips, the incremental decoder's verdicts, reply checks.

use super::{encode, Bytes};
use crate::*;

fn sequence() -> SequenceArgs {
    SequenceArgs { sessionid: SessionId4([7; 16]), sequenceid: 9, slotid: 2, highest_slotid: 3, cachethis: false }
}

fn sample_call() -> Compound4Args<'static> {
    Compound4Args {
        tag: b"",
        minorversion: 1,
        argarray: vec![
            NfsArgOp::Sequence(sequence()),
            NfsArgOp::Putrootfh,
            NfsArgOp::Getfh,
            NfsArgOp::Read(ReadArgs { stateid: Stateid4::ANONYMOUS, offset: 0, count: 4096 }),
        ],
    }
}

#[test]
fn a_compound_call_round_trips_byte_identical() {
    let call = sample_call();
    let bytes = encode(&call);
    let back: Compound4Args = xdr::decode_exact(&bytes).expect("decodes");
    assert_eq!(back, call);
    assert_eq!(encode(&back), bytes);
}

#[test]
fn the_incremental_decoder_yields_every_operation_then_ends() {
    let bytes = encode(&sample_call());
    let dec = CompoundDecoder::new(&bytes, 16).expect("header");
    assert_eq!((dec.tag(), dec.minorversion(), dec.declared_ops()), (&b""[..], 1, 4));
    let ops: Vec<_> = dec.collect::<Result<_, _>>().expect("every op decodes");
    assert_eq!(ops, sample_call().argarray);
}

#[test]
fn an_unknown_operation_in_the_middle_is_illegal_at_its_index_after_the_ones_before() {
    let bytes = Bytes::new().opaque(b"t").u32(1).u32(3).u32(24).u32(9999).u32(10).0;
    let mut dec = CompoundDecoder::new(&bytes, 16).expect("header");
    assert_eq!(dec.next(), Some(Ok(NfsArgOp::Putrootfh)));
    assert_eq!(
        dec.next(),
        Some(Err(OpDecodeError { index: 1, kind: OpErrorKind::Illegal { opnum: 9999, minorversion: 1 } }))
    );
    assert_eq!(dec.next(), None);
}

#[test]
fn a_compound_declaring_four_billion_operations_stops_at_the_callers_limit() {
    let mut b = Bytes::new().opaque(b"").u32(1).u32(u32::MAX);
    for _ in 0..10 {
        b = b.u32(24);
    }
    let mut dec = CompoundDecoder::new(&b.0, 4).expect("header");
    for _ in 0..4 {
        assert_eq!(dec.next(), Some(Ok(NfsArgOp::Putrootfh)));
    }
    assert_eq!(dec.next(), Some(Err(OpDecodeError { index: 4, kind: OpErrorKind::TooManyOps { declared: u32::MAX } })));
    assert_eq!(dec.next(), None);
    assert!(xdr::decode_exact::<Compound4Args>(&b.0).is_err());
}

#[test]
fn a_reply_for_another_operation_than_sent_is_reported() {
    let reply = Compound4Res::new(b"", vec![NfsResOp::Sequence(Nfs4Result::Err(NfsErr4::BadSession))]);
    let bytes = encode(&reply);
    assert_eq!(Compound4Res::decode_reply(&bytes, &[OpNum4::Sequence, OpNum4::Getfh]), Ok(reply));
    assert_eq!(
        Compound4Res::decode_reply(&bytes, &[OpNum4::Putrootfh]),
        Err(ReplyError::UnexpectedOp { index: 0, sent: OpNum4::Putrootfh, got: OpNum4::Sequence })
    );
}
