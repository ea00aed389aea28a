#![no_main]
//! A procedure number (big-endian word) then that procedure's XDR body.
use libfuzzer_sys::fuzz_target;
use nfs3_proto::Nfs3Call;
use nfsbench_fuzz::{assert_round_trip, split_word};
use xdr::XdrEncode;

fuzz_target!(|data: &[u8]| {
    let Some((proc, body)) = split_word(data) else { return };
    let Ok(value) = Nfs3Call::decode(proc, body) else { return };
    assert_round_trip!(value, |v| v.to_xdr_bytes(), |b| Nfs3Call::decode(proc, b).ok());
});
