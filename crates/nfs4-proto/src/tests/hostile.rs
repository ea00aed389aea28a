//! Hostile and malformed input: every decoder rejects it with a typed error, never panics and never
//! allocates for lengths the input does not hold.

use xdr::XdrError;

use super::samples::{args, cb_args, cb_results, results};
use super::{encode, Bytes};
use crate::callback::*;
use crate::*;

fn header(minorversion: u32, numops: u32) -> Bytes {
    Bytes::new().opaque(b"").u32(minorversion).u32(numops)
}

fn collect(bytes: &[u8], max_ops: u32) -> Result<Vec<NfsArgOp<'_>>, OpDecodeError> {
    CompoundDecoder::new(bytes, max_ops)
        .map_err(|e| OpDecodeError { index: 0, kind: OpErrorKind::Garbage(e) })?
        .collect()
}

#[test]
fn a_compound_declaring_four_billion_operations_costs_nothing() {
    let bytes = header(1, u32::MAX).u32(24).0;
    let err = xdr::decode_exact::<Compound4Args>(&bytes).expect_err("too many");
    assert!(matches!(err, XdrError::LengthOverLimit { len: 4_294_967_295, max: 1024, .. }), "{err:?}");
    let err =
        xdr::decode_exact::<Compound4Res>(&Bytes::new().u32(0).opaque(b"").u32(u32::MAX).0).expect_err("too many");
    assert!(matches!(err, XdrError::LengthOverLimit { .. }), "{err:?}");
    // The incremental decoder decodes what is there, then finds the buffer ends.
    let mut dec = CompoundDecoder::new(&bytes, u32::MAX).expect("header");
    assert_eq!(dec.next(), Some(Ok(NfsArgOp::Putrootfh)));
    assert!(matches!(
        dec.next(),
        Some(Err(OpDecodeError { index: 1, kind: OpErrorKind::Garbage(XdrError::UnexpectedEnd { .. }) }))
    ));
    assert_eq!(dec.next(), None);
}

#[test]
fn a_malformed_operation_is_badxdr_at_its_index_after_the_ones_before() {
    // SEQUENCE, PUTFH with a 129-byte handle.
    let sequence = NfsArgOp::Sequence(SequenceArgs::default());
    let bytes = header(1, 3).raw(&encode(&sequence)).u32(22).opaque(&[1; 129]).u32(10).0;
    let mut dec = CompoundDecoder::new(&bytes, 16).expect("header");
    assert!(matches!(dec.next(), Some(Ok(_))));
    assert_eq!(
        dec.next(),
        Some(Err(OpDecodeError {
            index: 1,
            kind: OpErrorKind::BadXdr {
                op: OpNum4::Putfh,
                // 12 bytes of header, 36 of SEQUENCE, PUTFH's number: the length word is at 52.
                error: XdrError::LengthOverLimit { what: "nfs_fh4", len: 129, max: 128, offset: 52 },
            },
        }))
    );
    assert_eq!(dec.next(), None, "nothing after the failure");
}

#[test]
fn operations_beyond_the_compounds_minor_version_and_op_illegal_are_illegal() {
    // SEEK (4.2) in a 4.1 COMPOUND, SEQUENCE (4.1) in a 4.0 one, OP_ILLEGAL, and an unknown number.
    for (minor, opnum) in [(1, 69), (0, 53), (2, 10044), (2, 76), (2, 0), (2, 2)] {
        let bytes = header(minor, 1).u32(opnum).0;
        assert_eq!(
            collect(&bytes, 16),
            Err(OpDecodeError { index: 0, kind: OpErrorKind::Illegal { opnum, minorversion: minor } }),
            "op {opnum} in v4.{minor}"
        );
    }
    assert_eq!(collect(&header(2, 1).u32(69).raw(&[0; 16]).u64(0).u32(1).0, 16).map(|v| v.len()), Ok(1));
    // CB_OFFLOAD (4.2) in a 4.1 CB_COMPOUND; an unknown callback.
    for opnum in [15, 2, 16] {
        let bytes = Bytes::new().opaque(b"").u32(1).u32(0).u32(1).u32(opnum).0;
        let mut dec = CompoundDecoder::new_callback(&bytes, 4).expect("header");
        assert_eq!(
            dec.next(),
            Some(Err(OpDecodeError { index: 0, kind: OpErrorKind::Illegal { opnum, minorversion: 1 } }))
        );
    }
}

#[test]
fn trailing_bytes_after_the_last_operation_are_reported() {
    let bytes = header(1, 1).u32(24).u32(0).0;
    assert_eq!(
        collect(&bytes, 16),
        Err(OpDecodeError { index: 1, kind: OpErrorKind::Garbage(XdrError::TrailingBytes { count: 4 }) })
    );
    assert_eq!(xdr::decode_exact::<Compound4Args>(&bytes), Err(XdrError::TrailingBytes { count: 4 }));
}

#[test]
fn huge_length_prefixes_are_rejected_before_anything_is_allocated() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("WRITE data", Bytes::new().u32(38).raw(&[0; 16]).u64(0).u32(0).u32(0xFFFF_FFF0).raw(b"tiny").0),
        ("component", Bytes::new().u32(15).u32(0x7FFF_FFFF).0),
        ("tag", Bytes::new().u32(u32::MAX).0),
        ("bitmap of 1000 words", Bytes::new().u32(9).u32(1000).raw(&[0xff; 64]).0),
        ("TEST_STATEID count", Bytes::new().u32(55).u32(u32::MAX).0),
        ("attrlist4", Bytes::new().u32(9 + 25).u32(0).0),
        ("callback sec parms", Bytes::new().u32(40).u32(1).u32(u32::MAX).0),
        ("owner", Bytes::new().u32(13).u32(1).u64(0).u64(0).u64(1).u32(2000).raw(&[0; 2000]).0),
    ];
    for (what, bytes) in cases {
        let err = xdr::decode_exact::<NfsArgOp>(&bytes).expect_err(what);
        assert!(
            matches!(
                err,
                XdrError::LengthOverLimit { .. } | XdrError::UnexpectedEnd { .. } | XdrError::BadDiscriminant { .. }
            ),
            "{what}: {err:?}"
        );
    }
    let bitmap = Bytes::new().u32(1000).0;
    assert_eq!(
        xdr::decode_exact::<Bitmap4>(&bitmap),
        Err(XdrError::LengthOverLimit { what: "bitmap4", len: 1000, max: 8, offset: 0 })
    );
    let cb =
        Bytes::new().opaque(b"").u32(1).u32(0).u32(1).u32(11).raw(&[0; 16]).u32(0).u32(0).u32(0).u32(0).u32(u32::MAX).0;
    assert!(matches!(xdr::decode_exact::<CbCompound4Args>(&cb), Err(XdrError::LengthOverLimit { .. })));
    let read = Bytes::new().u32(25).u32(0).u32(1).u32(u32::MAX).raw(b"x").0;
    assert!(matches!(xdr::decode_exact::<NfsResOp>(&read), Err(XdrError::UnexpectedEnd { needed: 4_294_967_295, .. })));
}

#[test]
fn a_readdir_reply_of_many_tiny_entries_is_bounded_by_its_bytes() {
    // Entries of the smallest legal size, then an unterminated list: the decoder runs out of bytes.
    let mut b = Bytes::new().u32(26).u32(0).raw(&[0; 8]);
    for i in 0..10_000u64 {
        b = b.u32(1).u64(i).opaque(b"").u32(0).u32(0);
    }
    let err = xdr::decode_exact::<NfsResOp>(&b.0).expect_err("unterminated");
    assert!(matches!(err, XdrError::UnexpectedEnd { .. }), "{err:?}");
}

/// Every strict prefix of a valid message must fail cleanly: the encodings are self-delimiting.
fn assert_every_truncation_fails(bytes: &[u8], decode: impl Fn(&[u8]) -> bool) {
    for len in 0..bytes.len() {
        assert!(!decode(&bytes[..len]), "a prefix of {len}/{} bytes decoded", bytes.len());
    }
    assert!(decode(bytes));
}

#[test]
fn every_truncation_of_a_valid_compound_fails_cleanly() {
    let call = encode(&Compound4Args { tag: b"t", minorversion: 2, argarray: args() });
    assert_every_truncation_fails(&call, |b| xdr::decode_exact::<Compound4Args>(b).is_ok());
    assert_every_truncation_fails(&call, |b| {
        CompoundDecoder::new(b, 1024).is_ok_and(|d| d.collect::<Result<Vec<_>, _>>().is_ok())
    });
    let reply = encode(&Compound4Res { status: NfsStat4::Delay, tag: b"", resarray: results() });
    assert_every_truncation_fails(&reply, |b| xdr::decode_exact::<Compound4Res>(b).is_ok());
    let cb = encode(&CbCompound4Args { tag: b"", minorversion: 2, callback_ident: 0, argarray: cb_args() });
    assert_every_truncation_fails(&cb, |b| xdr::decode_exact::<CbCompound4Args>(b).is_ok());
    let cb_reply = encode(&CbCompound4Res { status: NfsStat4::Ok, tag: b"", resarray: cb_results() });
    assert_every_truncation_fails(&cb_reply, |b| xdr::decode_exact::<CbCompound4Res>(b).is_ok());
}

/// xorshift64: a fixed-seed generator so the corruption test is reproducible without dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn corrupt(rng: &mut Rng, original: &[u8]) -> Vec<u8> {
    let mut bytes = original.to_vec();
    for _ in 0..1 + rng.next() % 3 {
        let at = (rng.next() % bytes.len() as u64) as usize;
        bytes[at] = match rng.next() % 4 {
            0 => 0xff,
            1 => 0,
            2 => bytes[at].wrapping_add(1),
            _ => rng.next() as u8,
        };
    }
    bytes
}

#[test]
fn corrupted_operations_never_panic_and_what_decodes_round_trips() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for op in args() {
        let original = encode(&op);
        for _ in 0..200 {
            let bytes = corrupt(&mut rng, &original);
            if let Ok(v) = xdr::decode_exact::<NfsArgOp>(&bytes) {
                assert_eq!(xdr::decode_exact::<NfsArgOp>(&encode(&v)), Ok(v));
            }
        }
    }
    for res in results() {
        let original = encode(&res);
        for _ in 0..100 {
            let bytes = corrupt(&mut rng, &original);
            if let Ok(v) = xdr::decode_exact::<NfsResOp>(&bytes) {
                assert_eq!(xdr::decode_exact::<NfsResOp>(&encode(&v)), Ok(v));
            }
        }
    }
    for op in cb_args() {
        let original = encode(&op);
        for _ in 0..200 {
            let bytes = corrupt(&mut rng, &original);
            if let Ok(v) = xdr::decode_exact::<CbArgOp>(&bytes) {
                assert_eq!(xdr::decode_exact::<CbArgOp>(&encode(&v)), Ok(v));
            }
        }
    }
}

#[test]
fn decoded_attributes_of_corrupted_fattr4s_never_panic() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let original = encode(&super::samples::getattr_attrs());
    for _ in 0..2000 {
        let bytes = corrupt(&mut rng, &original);
        if let Ok(raw) = xdr::decode_exact::<RawFattr4>(&bytes) {
            if let Ok(attrs) = raw.decode_attrs() {
                assert_eq!(attrs.to_raw().decode_attrs(), Ok(attrs));
            }
        }
    }
}
