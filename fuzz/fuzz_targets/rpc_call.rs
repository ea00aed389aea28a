#![no_main]
//! A record-marked byte stream of RPC calls (any program), as a server receives it.
use libfuzzer_sys::fuzz_target;
use nfsbench::inspect::decode_call;
use onc_rpc::{split_records, RecordLimits};

fuzz_target!(|data: &[u8]| {
    let Ok(records) = split_records(data, RecordLimits::default()) else { return };
    for record in &records {
        let Ok(decoded) = decode_call(record) else { continue };
        let bytes = decoded.encode();
        let again = decode_call(&bytes).expect("re-encoded call decodes");
        assert_eq!(again, decoded);
        assert_eq!(again.encode(), bytes);
    }
});
