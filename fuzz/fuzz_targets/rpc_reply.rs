#![no_main]
//! prog, vers, proc (three big-endian words) then a record-marked stream of replies to that procedure.
use libfuzzer_sys::fuzz_target;
use nfsbench::inspect::{decode_reply, CallKey};
use nfsbench_fuzz::split_word;
use onc_rpc::{split_records, RecordLimits};

fuzz_target!(|data: &[u8]| {
    let Some((prog, rest)) = split_word(data) else { return };
    let Some((vers, rest)) = split_word(rest) else { return };
    let Some((proc, rest)) = split_word(rest) else { return };
    let key = CallKey { prog, vers, proc };
    let Ok(records) = split_records(rest, RecordLimits::default()) else { return };
    for record in &records {
        let Ok(decoded) = decode_reply(record, key) else { continue };
        let bytes = decoded.encode();
        let again = decode_reply(&bytes, key).expect("re-encoded reply decodes");
        assert_eq!(again, decoded);
        assert_eq!(again.encode(), bytes);
    }
});
