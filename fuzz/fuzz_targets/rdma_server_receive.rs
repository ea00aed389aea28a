#![no_main]
//! What nfsbench's RPC-over-RDMA server (crates/server-rdma) makes of a hostile received message:
//! classification (ERR_VERS, ERR_CHUNK, drop, close, or a call) and, for a call, the layout of its Read
//! chunks and the assembly buffer. Input: the received message. Must not panic, and allocations stay
//! within the chunk policy (1 MiB + 4 KiB per call).
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = server_rdma::receive_for_fuzzing(data);
});
