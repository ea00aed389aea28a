//! decode(encode(v)) == v and encode(decode(bytes)) == bytes for every operation's arguments and every
//! arm of every result, forechannel and callback, alone and inside COMPOUNDs.

use std::collections::BTreeSet;

use xdr::{XdrEncode, XdrWriter};

use super::encode;
use super::samples::{args, cb_args, cb_results, results};
use crate::callback::*;
use crate::*;

#[test]
fn samples_cover_every_operation_and_both_result_arms() {
    let sent: BTreeSet<OpNum4> = args().iter().map(NfsArgOp::op).collect();
    let every: BTreeSet<OpNum4> = OpNum4::ALL.iter().copied().filter(|o| *o != OpNum4::Illegal).collect();
    assert_eq!(sent, every);
    let answered: BTreeSet<(OpNum4, bool)> = results().iter().map(|r| (r.op(), r.status().is_ok())).collect();
    for &op in OpNum4::ALL {
        assert!(answered.contains(&(op, false)), "{op:?} failure arm");
        assert!(op == OpNum4::Illegal || answered.contains(&(op, true)), "{op:?} success arm");
    }
    let cb_sent: BTreeSet<CbOpNum4> = cb_args().iter().map(CbArgOp::op).collect();
    assert_eq!(cb_sent.len(), CbOpNum4::ALL.len() - 1);
    let cb_answered: BTreeSet<(CbOpNum4, bool)> = cb_results().iter().map(|r| (r.op(), r.status().is_ok())).collect();
    assert_eq!(cb_answered.len(), 2 * (CbOpNum4::ALL.len() - 1) + 1);
}

#[test]
fn every_operations_arguments_round_trip_through_their_bytes() {
    for arg in args() {
        let bytes = encode(&arg);
        let back: NfsArgOp = xdr::decode_exact(&bytes).unwrap_or_else(|e| panic!("{arg:?}: {e}"));
        assert_eq!(back, arg);
        assert_eq!(encode(&back), bytes, "re-encoding {} changed the bytes", arg.name());
    }
}

#[test]
fn every_result_arm_round_trips_through_its_bytes() {
    for res in results() {
        let bytes = encode(&res);
        let back: NfsResOp = xdr::decode_exact(&bytes).unwrap_or_else(|e| panic!("{res:?}: {e}"));
        assert_eq!(back, res);
        assert_eq!(encode(&back), bytes, "re-encoding {} changed the bytes", res.name());
        let word = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        assert_eq!(word, res.status().as_u32(), "{} status word", res.name());
    }
}

#[test]
fn every_callback_operation_round_trips_through_its_bytes() {
    for arg in cb_args() {
        let bytes = encode(&arg);
        assert_eq!(xdr::decode_exact::<CbArgOp>(&bytes).as_ref(), Ok(&arg), "{}", arg.name());
    }
    for res in cb_results() {
        let bytes = encode(&res);
        let back: CbResOp = xdr::decode_exact(&bytes).unwrap_or_else(|e| panic!("{res:?}: {e}"));
        assert_eq!(encode(&back), bytes);
        assert_eq!(back, res);
    }
}

#[test]
fn a_compound_of_every_operation_round_trips_and_decodes_incrementally() {
    let call = Compound4Args { tag: b"all ops", minorversion: 2, argarray: args() };
    let bytes = encode(&call);
    let back: Compound4Args = xdr::decode_exact(&bytes).expect("decodes");
    assert_eq!(back, call);
    let ops: Vec<NfsArgOp> =
        CompoundDecoder::new(&bytes, 1000).expect("header").collect::<Result<_, _>>().expect("ops");
    assert_eq!(ops, call.argarray);
}

#[test]
fn a_compound_reply_round_trips_and_checks_against_what_was_sent() {
    let resarray: Vec<NfsResOp> = results().into_iter().filter(|r| r.status().is_ok()).collect();
    let sent: Vec<OpNum4> = resarray.iter().map(NfsResOp::op).collect();
    let reply = Compound4Res::new(b"tag", resarray);
    assert_eq!(reply.status, NfsStat4::Ok);
    let bytes = encode(&reply);
    assert_eq!(xdr::decode_exact::<Compound4Res>(&bytes).as_ref(), Ok(&reply));
    assert_eq!(Compound4Res::decode_reply(&bytes, &sent).as_ref(), Ok(&reply));
    assert_eq!(encode(&Compound4Res::decode_reply(&bytes, &sent).expect("checked")), bytes);
}

#[test]
fn a_cb_compound_round_trips_and_decodes_incrementally() {
    let call = CbCompound4Args { tag: b"cb", minorversion: 2, callback_ident: 7, argarray: cb_args() };
    let bytes = encode(&call);
    assert_eq!(xdr::decode_exact::<CbCompound4Args>(&bytes).as_ref(), Ok(&call));
    let dec = CompoundDecoder::new_callback(&bytes, 100).expect("header");
    assert_eq!(dec.callback_ident(), Some(7));
    let ops: Vec<CbArgOp> = dec.collect::<Result<_, _>>().expect("ops");
    assert_eq!(ops, call.argarray);
    let reply = CbCompound4Res::new(b"cb", vec![CbResOp::CbSequence(Nfs4Result::Err(NfsErr4::BadSession))]);
    let bytes = encode(&reply);
    assert_eq!(reply.status, NfsStat4::BadSession);
    let sent = [CbOpNum4::CbSequence, CbOpNum4::CbRecall];
    assert_eq!(CbCompound4Res::decode_reply(&bytes, &sent).as_ref(), Ok(&reply));
    assert_eq!(
        CbCompound4Res::decode_reply(&bytes, &call.ops()),
        Err(ReplyError::UnexpectedOp { index: 0, sent: CbOpNum4::CbGetattr, got: CbOpNum4::CbSequence })
    );
    assert_eq!(xdr::decode_exact::<CbCompound4Res>(&bytes).as_ref(), Ok(&reply));
}

#[test]
fn flattened_and_gathered_encodings_agree() {
    for res in results() {
        let mut w = XdrWriter::new();
        res.encode(&mut w);
        let gathered: Vec<u8> = w.slices().concat();
        assert_eq!(gathered, w.to_vec());
        assert_eq!(w.len(), gathered.len());
        assert_eq!(res.to_xdr_bytes(), gathered);
    }
}

#[test]
fn every_nfsstat4_value_round_trips_with_its_rfc_name() {
    assert_eq!(NfsStat4::ALL.len(), NfsErr4::ALL.len() + 1);
    for &s in NfsStat4::ALL {
        assert_eq!(xdr::decode_exact::<NfsStat4>(&s.to_xdr_bytes()), Ok(s));
        assert!(s.name().starts_with("NFS4"), "{}", s.name());
        match s.error() {
            None => assert_eq!(s, NfsStat4::Ok),
            Some(e) => {
                assert_eq!(e.status(), s);
                assert_eq!(e.as_u32(), s.as_u32());
                assert_eq!(NfsErr4::from_u32(s.as_u32()), Some(e));
            }
        }
    }
    assert_eq!(NfsErr4::from_u32(0), None);
    assert_eq!(NfsStat4::from_u32(10044), Some(NfsStat4::OpIllegal));
    assert_eq!(NfsStat4::from_u32(10096).map(NfsStat4::name), Some("NFS4ERR_XATTR2BIG"));
    assert_eq!(NfsStat4::from_u32(10094).map(NfsStat4::name), Some("NFS4ERR_OFFLOAD_NO_REQS"));
    assert_eq!(NfsStat4::from_u32(10097), None);
    assert_eq!(NfsStat4::from_u32(3), None);
}

#[test]
fn operation_numbers_and_names_follow_the_rfcs() {
    for &op in OpNum4::ALL {
        assert_eq!(OpNum4::from_u32(op.as_u32()), Some(op));
        assert_eq!(op_name(op.as_u32()), op.name());
    }
    assert_eq!(op_name(53), "SEQUENCE");
    assert_eq!(op_name(68), "READ_PLUS");
    assert_eq!(op_name(75), "REMOVEXATTR");
    assert_eq!(op_name(10044), "ILLEGAL");
    assert_eq!(op_name(2), "UNKNOWN");
    assert_eq!(op_name(76), "UNKNOWN");
    assert_eq!(OpNum4::ALL.len(), 74);
    assert_eq!(
        (OpNum4::Write.minor_version(), OpNum4::Sequence.minor_version(), OpNum4::Seek.minor_version()),
        (0, 1, 2)
    );
    assert!(OpNum4::Setclientid.is_v40_only() && !OpNum4::Delegpurge.is_v40_only());
    assert_eq!(cb_op_name(11), "CB_SEQUENCE");
    assert_eq!(cb_op_name(10044), "CB_ILLEGAL");
    assert_eq!(cb_op_name(2), "UNKNOWN");
    assert_eq!((NFS4_PROGRAM, NFS_V4, NFS4_CALLBACK_VERSION, CB_COMPOUND), (100003, 4, 1, 1));
}

#[test]
fn special_stateids_are_those_of_rfc_8881_section_8_2_3() {
    assert_eq!(encode(&Stateid4::ANONYMOUS), vec![0; 16]);
    assert_eq!(encode(&Stateid4::BYPASS), vec![0xff; 16]);
    assert_eq!(encode(&Stateid4::CURRENT), [&[0, 0, 0, 1][..], &[0; 12]].concat());
    assert_eq!(encode(&Stateid4::INVALID), [&[0xff; 4][..], &[0; 12]].concat());
    for s in [Stateid4::ANONYMOUS, Stateid4::BYPASS, Stateid4::CURRENT, Stateid4::INVALID] {
        assert!(s.is_special());
    }
    assert!(!Stateid4::new(1, [1; 12]).is_special());
    assert!(Stateid4::CURRENT.is_current() && !Stateid4::ANONYMOUS.is_current());
}

#[test]
fn a_failed_operation_built_by_a_server_has_the_rfcs_error_body() {
    assert_eq!(encode(&NfsResOp::error(OpNum4::Setattr, NfsErr4::Perm)), vec![0, 0, 0, 34, 0, 0, 0, 1, 0, 0, 0, 0]);
    let denied = NfsResOp::error(OpNum4::Lock, NfsErr4::Denied);
    assert_eq!(denied.status(), NfsStat4::Denied);
    assert_eq!(xdr::decode_exact::<NfsResOp>(&encode(&denied)), Ok(denied));
    let illegal = NfsResOp::error(OpNum4::Illegal, NfsErr4::OpIllegal);
    assert_eq!(encode(&illegal), vec![0, 0, 0x27, 0x3c, 0, 0, 0x27, 0x3c]);
    assert_eq!(NfsResOp::error(OpNum4::Getfh, NfsErr4::NoFileHandle).status(), NfsStat4::NoFileHandle);
}
