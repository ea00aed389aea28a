#![no_main]
//! RFC 8797 connection private data: anything that decodes re-encodes to the same first 8 bytes' meaning.
use libfuzzer_sys::fuzz_target;
use rpcrdma_proto::{effective_thresholds, ConnectPrivate, InlineThresholds};

fuzz_target!(|data: &[u8]| {
    let ours = InlineThresholds::default();
    let t = effective_thresholds(ours, Some(data));
    assert!(t.send <= ours.send && t.recv <= ours.recv, "negotiation raised a threshold");
    if let Some(p) = ConnectPrivate::decode(data) {
        assert_eq!(ConnectPrivate::decode(&p.encode()), Some(p));
    }
});
