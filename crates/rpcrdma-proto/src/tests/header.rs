use xdr::{XdrEncode, XdrError, XdrWriter};

use super::{encode, sample_headers, seg, words};
use crate::{
    error_reply, peek, peek_err_vers, version_error_reply, ChunkLists, DecodeLimits, ErrorResponse, RdmaBody,
    RdmaErrorBody, RdmaHeader, RdmaProc, ReadChunk, RpcRdmaError, WriteChunk,
};

fn decode(buf: &[u8]) -> Result<(RdmaHeader, &[u8]), RpcRdmaError> {
    RdmaHeader::decode(buf, &DecodeLimits::default())
}

#[test]
fn empty_rdma_msg_header_is_28_bytes_byte_for_byte() {
    let h = RdmaHeader::msg(0x0102_0304, 128, ChunkLists::default());
    let bytes = encode(&h);
    assert_eq!(bytes.len(), RdmaHeader::MIN_LEN);
    assert_eq!(bytes, words(&[0x0102_0304, 1, 128, 0, 0, 0, 0]));
    assert_eq!(h.encoded_len(), 28);
}

#[test]
fn error_replies_are_28_bytes_for_err_vers_and_20_for_err_chunk() {
    let vers = encode(&RdmaHeader::error(7, 64, RdmaErrorBody::SUPPORTED_VERSIONS));
    assert_eq!(vers, words(&[7, 1, 64, 4, 1, 1, 1]));
    let chunk = encode(&RdmaHeader::error(7, 64, RdmaErrorBody::Chunk));
    assert_eq!(chunk, words(&[7, 1, 64, 4, 2]));
}

#[test]
fn write_call_with_one_read_chunk_has_the_rfc_layout() {
    let chunks = ChunkLists {
        reads: crate::smallvec![ReadChunk {
            position: 136,
            segments: crate::smallvec![seg(0xAA, 4096, 0x0000_0001_0000_2000)]
        }],
        ..Default::default()
    };
    let bytes = encode(&RdmaHeader::msg(9, 128, chunks));
    assert_eq!(bytes, words(&[9, 1, 128, 0, 1, 136, 0xAA, 4096, 1, 0x2000, 0, 0, 0]));
}

#[test]
fn read_call_with_write_list_and_reply_chunk_has_the_rfc_layout() {
    let chunks = ChunkLists {
        writes: crate::smallvec![WriteChunk {
            segments: crate::smallvec![seg(0xBB, 8192, 0x10), seg(0xBC, 4096, 0x20)]
        }],
        reply: Some(WriteChunk { segments: crate::smallvec![seg(0xCC, 1024, 0x30)] }),
        ..Default::default()
    };
    let bytes = encode(&RdmaHeader::msg(9, 128, chunks));
    let expected = words(&[
        9, 1, 128, 0, // fixed fields, RDMA_MSG
        0, // no read list
        1, 2, 0xBB, 8192, 0, 0x10, 0xBC, 4096, 0, 0x20, 0, // one write chunk of two segments, end of list
        1, 1, 0xCC, 1024, 0, 0x30, // reply chunk of one segment
    ]);
    assert_eq!(bytes, expected);
}

#[test]
fn every_form_round_trips_and_reports_its_encoded_length() {
    for h in sample_headers() {
        let bytes = encode(&h);
        assert_eq!(h.encoded_len(), bytes.len(), "{h:?}");
        let (back, rest) = decode(&bytes).unwrap();
        assert_eq!(back, h);
        assert!(rest.is_empty());
        assert_eq!(encode(&back), bytes);
    }
}

#[test]
fn rdma_msg_decode_returns_the_inline_rpc_message_borrowed() {
    let h = RdmaHeader::msg(0x55, 32, ChunkLists::default());
    let rpc = words(&[0x55, 0, 2, 100_003, 3, 0]);
    let mut w = XdrWriter::new();
    h.encode(&mut w);
    w.put_raw(&rpc);
    let buf = w.into_vec();
    let (back, rest) = decode(&buf).unwrap();
    assert_eq!(back, h);
    assert_eq!(rest, &rpc[..]);
    assert_eq!(rest.as_ptr(), buf[28..].as_ptr(), "the RPC message must be borrowed, not copied");
}

#[test]
fn consecutive_read_segments_with_one_position_form_one_chunk() {
    let buf = words(&[
        1, 1, 128, 0, //
        1, 100, 0xA, 10, 0, 0, //
        1, 100, 0xB, 20, 0, 0, //
        1, 200, 0xC, 30, 0, 0, //
        0, 0, 0,
    ]);
    let (h, _) = decode(&buf).unwrap();
    let reads = &h.chunks().unwrap().reads;
    assert_eq!(reads.len(), 2);
    assert_eq!(reads[0], ReadChunk { position: 100, segments: crate::smallvec![seg(0xA, 10, 0), seg(0xB, 20, 0)] });
    assert_eq!(reads[1], ReadChunk { position: 200, segments: crate::smallvec![seg(0xC, 30, 0)] });
    assert_eq!(reads[0].byte_len(), 30);
    assert_eq!(encode(&h), buf, "re-encoding must reproduce the flat list");
}

#[test]
fn read_segments_sharing_a_position_apart_stay_apart_and_reencode_identically() {
    let buf = words(&[1, 1, 128, 1, 1, 0, 0xA, 8, 0, 0, 1, 8, 0xB, 4, 0, 0, 1, 0, 0xC, 4, 0, 0, 0, 0, 0]);
    let (h, _) = decode(&buf).unwrap();
    let positions: Vec<u32> = h.chunks().unwrap().reads.iter().map(|c| c.position).collect();
    assert_eq!(positions, [0, 8, 0]);
    assert_eq!(encode(&h), buf);
}

#[test]
fn rdma_msgp_is_rejected_as_obsolete_and_answered_with_err_chunk() {
    let buf = words(&[1, 1, 128, 2, 8, 1024, 0, 0, 0]);
    let err = decode(&buf).unwrap_err();
    assert_eq!(err, RpcRdmaError::ObsoleteProcedure { procedure: 2 });
    assert_eq!(err.response(), ErrorResponse::Reply(RdmaErrorBody::Chunk));
}

#[test]
fn rdma_done_is_rejected_as_obsolete_and_dropped_silently() {
    let buf = words(&[1, 1, 128, 3]);
    let err = decode(&buf).unwrap_err();
    assert_eq!(err, RpcRdmaError::ObsoleteProcedure { procedure: 3 });
    assert_eq!(err.response(), ErrorResponse::Drop);
    assert_eq!(error_reply(&buf, &err, 64), None);
}

#[test]
fn unknown_procedure_is_answered_with_err_chunk_carrying_the_xid() {
    let buf = words(&[0xFEED, 1, 128, 5, 0, 0, 0]);
    let err = decode(&buf).unwrap_err();
    assert_eq!(err, RpcRdmaError::UnknownProcedure { procedure: 5 });
    let reply = error_reply(&buf, &err, 64).unwrap();
    assert_eq!(reply, RdmaHeader::error(0xFEED, 64, RdmaErrorBody::Chunk));
}

#[test]
fn version_two_is_refused_but_peek_still_reads_the_fixed_fields_for_err_vers() {
    let buf = words(&[0xABCD, 2, 32, 0, 0xFFFF_FFFF]);
    let err = decode(&buf).unwrap_err();
    assert_eq!(err, RpcRdmaError::VersionMismatch { vers: 2 });
    let p = peek(&buf).unwrap();
    assert_eq!((p.xid, p.vers, p.credits, p.procedure), (0xABCD, 2, 32, 0));
    assert!(!p.is_supported_version());
    assert_eq!(p.proc_kind(), Some(RdmaProc::Msg));
    let expected = RdmaHeader::error(0xABCD, 64, RdmaErrorBody::Vers { low: 1, high: 1 });
    assert_eq!(version_error_reply(&buf, 64).unwrap(), expected);
    assert_eq!(error_reply(&buf, &err, 64).unwrap(), expected);
    assert_eq!(version_error_reply(&words(&[1, 1, 1, 0]), 64), None, "version 1 needs no ERR_VERS");
}

#[test]
fn err_vers_range_is_readable_from_a_reply_of_any_version() {
    assert_eq!(peek_err_vers(&words(&[5, 2, 1, 4, 1, 2, 3])), Some((2, 3)));
    assert_eq!(peek_err_vers(&words(&[5, 1, 1, 4, 2])), None);
    assert_eq!(peek_err_vers(&words(&[5, 1, 1, 0, 1, 2, 3])), None);
    assert_eq!(peek_err_vers(&words(&[5, 1, 1, 4, 1, 2])), None);
}

#[test]
fn unknown_error_code_is_a_bad_discriminant() {
    let err = decode(&words(&[1, 1, 1, 4, 3])).unwrap_err();
    assert!(matches!(err, RpcRdmaError::Xdr(XdrError::BadDiscriminant { what: "rpc_rdma_errcode", value: 3, .. })));
    assert_eq!(err.response(), ErrorResponse::Reply(RdmaErrorBody::Chunk));
}

#[test]
fn list_discriminator_other_than_zero_or_one_is_rejected() {
    let err = decode(&words(&[1, 1, 1, 0, 2, 0, 0])).unwrap_err();
    assert!(matches!(err, RpcRdmaError::Xdr(XdrError::BadDiscriminant { what: "bool", value: 2, offset: 16 })));
}

#[test]
fn error_reply_needs_an_xid() {
    let err = RpcRdmaError::Xdr(XdrError::UnexpectedEnd { offset: 0, needed: 4, remaining: 3 });
    assert_eq!(error_reply(&[0, 0, 1], &err, 8), None);
    assert_eq!(error_reply(&[0, 0, 0, 9], &err, 8), Some(RdmaHeader::error(9, 8, RdmaErrorBody::Chunk)));
}

#[test]
fn procedure_and_chunks_accessors_follow_the_body() {
    let h = RdmaHeader::nomsg(1, 1, ChunkLists::default());
    assert_eq!(h.procedure(), RdmaProc::NoMsg);
    assert!(h.chunks().unwrap().is_empty());
    let e = RdmaHeader::error(1, 1, RdmaErrorBody::Chunk);
    assert_eq!(e.procedure(), RdmaProc::Error);
    assert!(e.chunks().is_none());
    assert!(matches!(e.body, RdmaBody::Error(RdmaErrorBody::Chunk)));
    for v in 0..6 {
        assert_eq!(RdmaProc::from_u32(v).map(RdmaProc::as_u32), (v < 5).then_some(v));
    }
}
