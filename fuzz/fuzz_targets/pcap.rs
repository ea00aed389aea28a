#![no_main]
//! A capture file, through TCP reassembly and RPC record splitting, as `nfsbench decode` reads it.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(streams) = capture::tcp_streams_from_bytes(data) else { return };
    for record in nfsbench::inspect::rpc_records(streams).records {
        let _ = record.decode();
    }
});
