#![no_main]
//! The NFS client's reply decoders (crates/nfs-client/src/decode.rs) on hostile reply records.
//!
//! Input: procedure, `arg` (the READ count asked for / the WRITE bytes sent) and `payload` (three
//! big-endian words), then the reply record without record marks. `payload == u32::MAX` is a TCP reply
//! (`RpcReply::payload` is `None`); otherwise the last `payload` bytes of the input are the READ data an
//! RPC-over-RDMA transport placed apart from the record. Must not panic; errors must print.
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use nfs_client::{decode_reply_for_fuzzing, RpcReply};
use nfsbench_fuzz::split_word;

fuzz_target!(|data: &[u8]| {
    let Some((proc, rest)) = split_word(data) else { return };
    let Some((arg, rest)) = split_word(rest) else { return };
    let Some((payload_len, rest)) = split_word(rest) else { return };
    let (record, payload) = if payload_len == u32::MAX {
        (rest, None)
    } else {
        let Some(at) = rest.len().checked_sub(payload_len as usize) else { return };
        let (record, payload) = rest.split_at(at);
        (record, Some(Bytes::copy_from_slice(payload)))
    };
    let reply = RpcReply { record: Bytes::copy_from_slice(record), payload };
    if let Err(e) = decode_reply_for_fuzzing(proc, reply, arg) {
        let _ = e.to_string();
    }
});
