#![no_main]
//! The first byte picks a chunk size; the rest is a record-marked stream fed to the incremental decoder
//! in chunks of that size. It must produce exactly what a one-shot split of the whole stream produces.
use libfuzzer_sys::fuzz_target;
use onc_rpc::{split_records, RecordDecoder, RecordLimits};

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, stream)) = data.split_first() else { return };
    let limits = RecordLimits { max_record: 64 * 1024, max_fragments: 64 };
    let mut decoder = RecordDecoder::new(limits);
    let mut incremental = Vec::new();
    let mut failed = false;
    for piece in stream.chunks(usize::from(chunk).max(1)) {
        if decoder.push(piece).is_err() {
            failed = true;
            break;
        }
        while let Some(r) = decoder.pop() {
            incremental.push(r);
        }
    }
    match split_records(stream, limits) {
        Ok(all) if !failed => assert_eq!(all, incremental),
        Ok(_) => panic!("incremental decoder failed where the one-shot split succeeded"),
        Err(_) => assert!(failed || decoder.finish().is_err(), "one-shot split failed, incremental did not"),
    }
});
