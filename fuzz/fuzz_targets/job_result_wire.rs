#![no_main]
//! The byte form of job results that MPI ranks send to rank 0 (crates/report `job_codec`) on arbitrary
//! bytes.
//! Must not panic; every error must print; what decodes must encode to bytes that decode again and
//! re-encode identically (the encoding is canonical), with the same number of jobs.
//!
//! Inputs above 256 KiB are skipped: a decoded message may take up to ~2,200 times its size (one 270 KiB
//! latency histogram per 128 input bytes, `report::job_codec::HIST_INPUT_BYTES`; see the `job_codec`
//! module docs), which on a 1 MiB input could exceed the fuzzers' `-rss_limit_mb=1024` without being a bug.
use libfuzzer_sys::fuzz_target;
use report::job_codec::{decode_jobs, encode_jobs};

fuzz_target!(|data: &[u8]| {
    if data.len() > 256 * 1024 {
        return;
    }
    match decode_jobs(data) {
        Ok(jobs) => {
            let bytes = encode_jobs(&jobs);
            let again = decode_jobs(&bytes).expect("re-encoded job results decode");
            assert_eq!(again.len(), jobs.len());
            assert_eq!(encode_jobs(&again), bytes, "encoding is not stable");
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
