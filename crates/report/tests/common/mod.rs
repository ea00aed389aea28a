//! A synthetic run shaped like the fio fixture (randrw with fsync, one job, description, options).
#![allow(dead_code)]

use std::time::{Duration, Instant, SystemTime};

use report::{CpuUsage, Dir, JobRecorder, JobResult, RunResult};

pub fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// 1 s of 4 KiB random reads and writes at depth 1 with an fsync every 16 writes, completions spread
/// evenly, latencies from a few µs to ~5 ms.
pub fn fixture_like_recorder(start: Instant) -> JobRecorder {
    let mut r = JobRecorder::new(start);
    let n = 2000u64;
    for i in 0..n {
        let at = start + Duration::from_micros(i * 1_000_000 / n);
        let dir = if i.is_multiple_of(2) { Dir::Read } else { Dir::Write };
        let clat = 1_500 + (i * 7_919) % 90_000 + if i.is_multiple_of(500) { 4_800_000 } else { 0 };
        r.record_depth(1);
        r.record_io(dir, 4096, 40 + i % 13, clat, at);
        if dir == Dir::Write && i % 32 == 1 {
            r.record_sync(30_000 + (i * 131) % 700_000);
        }
    }
    r
}

pub fn job(name: &str, recorder: JobRecorder, runtime: Duration) -> JobResult {
    JobResult {
        name: name.to_string(),
        groupid: 0,
        jobs: 1,
        error: 0,
        runtime,
        recorder,
        cpu: CpuUsage { usr_pct: 1.7, sys_pct: 38.9, ctx: 11716, majf: 0, minf: 14, ..Default::default() },
        job_options: opts(&[("rw", "randrw"), ("fsync", "16")]),
        description: Some("fixture".to_string()),
        verify_errors: 0,
    }
}

pub fn fixture_like_run() -> RunResult {
    let start = Instant::now();
    let recorder = fixture_like_recorder(start);
    RunResult {
        jobs: vec![job("mixed", recorder, Duration::from_millis(1000))],
        global_options: opts(&[
            ("ioengine", "sync"),
            ("directory", "/tmp/fio"),
            ("size", "8m"),
            ("bs", "4k"),
            ("runtime", "1"),
            ("time_based", "1"),
            ("description", "fixture"),
        ]),
        start_time: SystemTime::now() - Duration::from_secs(2),
        percentile_list: None,
        notes: vec![
            ("target".to_string(), "127.0.0.1:/export".to_string()),
            ("transport".to_string(), "tcp".to_string()),
        ],
    }
}
