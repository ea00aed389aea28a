#![no_main]
//! The NFS client's RPC-over-RDMA reply reassembly (crates/nfs-client/src/rdma/reply.rs) on hostile
//! received messages: transport header, RDMA_ERROR, Write and Reply chunks returned with lengths that do
//! not fit what the call offered.
//!
//! Input: the Write chunk buffer offered and the Reply chunk buffer offered (two big-endian words, each
//! `u32::MAX` for none, otherwise its size modulo 2 MiB), then the received message. Must not panic.
use libfuzzer_sys::fuzz_target;
use nfs_client::reassemble_reply_for_fuzzing;
use nfsbench_fuzz::split_word;

fn offered(word: u32) -> Option<usize> {
    (word != u32::MAX).then_some(word as usize % (2 << 20))
}

fuzz_target!(|data: &[u8]| {
    let Some((write, rest)) = split_word(data) else { return };
    let Some((reply, message)) = split_word(rest) else { return };
    let _ = reassemble_reply_for_fuzzing(message, offered(write), offered(reply));
});
