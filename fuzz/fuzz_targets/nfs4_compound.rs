#![no_main]
//! Arbitrary bytes as every NFSv4 body: COMPOUND4args (whole and incrementally, as a server decodes it),
//! COMPOUND4res, CB_COMPOUND4args (incrementally too) and CB_COMPOUND4res. Whatever decodes must
//! re-encode to bytes that decode to the same value, and the attributes of GETATTR results must survive
//! the same round trip through the typed `Fattr4`.
use libfuzzer_sys::fuzz_target;
use nfs4_proto::{CbArgOp, CbCompound4Args, CbCompound4Res, Compound4Args, Compound4Res, CompoundDecoder};
use nfs4_proto::{Nfs4Result, NfsArgOp, NfsResOp};
use nfsbench_fuzz::assert_round_trip;
use xdr::{decode_exact, XdrEncode};

fuzz_target!(|data: &[u8]| {
    if let Ok(value) = decode_exact::<Compound4Args>(data) {
        assert_round_trip!(value, |v| v.to_xdr_bytes(), |b| decode_exact::<Compound4Args>(b).ok());
    }
    if let Ok(dec) = CompoundDecoder::new(data, 64) {
        for op in dec.map_while(Result::ok) {
            assert_round_trip!(op, |v| v.to_xdr_bytes(), |b| decode_exact::<NfsArgOp>(b).ok());
        }
    }
    if let Ok(value) = decode_exact::<Compound4Res>(data) {
        for res in &value.resarray {
            if let NfsResOp::Getattr(Nfs4Result::Ok(ok)) = res {
                if let Ok(attrs) = ok.obj_attributes.decode_attrs() {
                    let raw = attrs.to_raw();
                    assert_eq!(raw.decode_attrs().ok().as_ref(), Some(&attrs), "typed attributes round trip");
                }
            }
        }
        assert_round_trip!(value, |v| v.to_xdr_bytes(), |b| decode_exact::<Compound4Res>(b).ok());
    }
    if let Ok(value) = decode_exact::<CbCompound4Args>(data) {
        assert_round_trip!(value, |v| v.to_xdr_bytes(), |b| decode_exact::<CbCompound4Args>(b).ok());
    }
    if let Ok(dec) = CompoundDecoder::new_callback(data, 64) {
        for op in dec.map_while(Result::ok) {
            assert_round_trip!(op, |v| v.to_xdr_bytes(), |b| decode_exact::<CbArgOp>(b).ok());
        }
    }
    if let Ok(value) = decode_exact::<CbCompound4Res>(data) {
        assert_round_trip!(value, |v| v.to_xdr_bytes(), |b| decode_exact::<CbCompound4Res>(b).ok());
    }
});
