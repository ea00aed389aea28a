#![no_main]
//! An RPC-over-RDMA v1 transport header as received in a Send (RFC 8166 §4), and the checks a
//! responder runs before following any chunk.
use libfuzzer_sys::fuzz_target;
use nfsbench_fuzz::assert_round_trip;
use rpcrdma_proto::{peek, validate_call, ChunkPolicy, DecodeLimits, RdmaHeader};
use xdr::XdrEncode;

fuzz_target!(|data: &[u8]| {
    let _ = peek(data);
    let limits = DecodeLimits::default();
    let Ok((header, rest)) = RdmaHeader::decode(data, &limits) else { return };
    let _ = validate_call(&header, rest.len(), &ChunkPolicy::default());
    assert_eq!(header.encoded_len(), data.len() - rest.len());
    assert_round_trip!(header, |h| h.to_xdr_bytes(), |b| RdmaHeader::decode(b, &limits).ok().map(|(h, _)| h));
});
