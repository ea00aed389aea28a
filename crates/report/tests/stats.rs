//! Latency statistics, recorder merging, ramp reset, bandwidth sampling and group_reporting.

mod common;

use std::time::{Duration, Instant};

use report::{group_results, to_fio_json, Dir, JobRecorder, LatencyStat, RunResult, DEFAULT_PERCENTILES};
use serde_json::Value;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn percentiles_of_one_to_one_hundred_follow_fios_first_bucket_reaching_rule() {
    let mut s = LatencyStat::new();
    for v in 1..=100 {
        s.record(v);
    }
    let got: Vec<u64> = s.percentiles(&DEFAULT_PERCENTILES).into_iter().map(|(_, v)| v).collect();
    // p → the first value whose running count reaches p% of 100 samples.
    assert_eq!(got, [1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 100, 100, 100, 100]);
}

#[test]
fn mean_and_sample_stddev_match_hand_computed_values() {
    let mut s = LatencyStat::new();
    for v in 1..=100 {
        s.record(v);
    }
    assert_eq!((s.min(), s.max(), s.count()), (1, 100, 100));
    assert!(close(s.mean(), 50.5, 1e-12));
    // Σ(i − 50.5)² = n(n²−1)/12 = 83325; / (n − 1) = 841.666…
    assert!(close(s.stddev(), (83_325.0f64 / 99.0).sqrt(), 1e-9));

    let mut t = LatencyStat::new();
    for v in [10_000, 20_000, 30_000, 40_000] {
        t.record(v);
    }
    assert!(close(t.mean(), 25_000.0, 1e-9));
    // Σ(x − 25000)² = 2 × (15000² + 5000²) = 5×10⁸; / 3.
    assert!(close(t.stddev(), (5.0e8f64 / 3.0).sqrt(), 1e-6));
}

#[test]
fn percentiles_of_large_values_are_within_hdr_precision_and_inside_min_max() {
    let mut s = LatencyStat::new();
    for v in [10_000, 20_000, 30_000, 40_000] {
        s.record(v);
    }
    let p = s.percentiles(&[25.0, 50.0, 75.0, 100.0]);
    for ((_, got), want) in p.iter().zip([10_000u64, 20_000, 30_000, 40_000]) {
        assert!(got.abs_diff(want) * 1000 <= want, "{got} vs {want}");
        assert!((10_000..=40_000).contains(got));
    }
}

#[test]
fn bins_count_every_sample_once() {
    let mut s = LatencyStat::new();
    for v in 0..5000u64 {
        s.record(v * 977 % 3_000_000);
    }
    let bins = s.bins();
    assert_eq!(bins.iter().map(|b| b.1).sum::<u64>(), 5000);
    assert!(bins.windows(2).all(|w| w[0].0 < w[1].0));
}

fn recorder(seed: u64, start: Instant) -> JobRecorder {
    let mut r = JobRecorder::new(start);
    for i in 0..300 {
        let x = (i * 2_654_435_761u64 + seed * 97) % 1_000_003;
        let dir = if x.is_multiple_of(3) { Dir::Write } else { Dir::Read };
        r.record_depth((x % 70) as u32);
        r.record_io(dir, 4096 * (1 + x % 4), x % 500, 1000 + x * 13, start + Duration::from_micros(x * 3));
        if x.is_multiple_of(7) {
            r.record_sync(x * 11);
        }
    }
    r.record_error(if seed == 2 { 5 } else { 0 });
    r
}

/// The json+ report of `r` inside `run`, without the fields that depend on the wall clock.
fn stable_json(run: &RunResult, r: &JobRecorder) -> Value {
    let mut run = run.clone();
    run.jobs[0].recorder = r.clone();
    let mut v = to_fio_json(&run, true);
    for k in ["timestamp", "timestamp_ms", "time"] {
        v.as_object_mut().map(|o| o.shift_remove(k));
    }
    v["jobs"][0].as_object_mut().map(|o| o.shift_remove("elapsed"));
    v
}

#[test]
fn merge_is_associative() {
    let start = Instant::now();
    let (a, b, c) = (recorder(1, start), recorder(2, start), recorder(3, start));
    let mut left = a.clone();
    left.merge(&b);
    left.merge(&c);
    let mut bc = b.clone();
    bc.merge(&c);
    let mut right = a.clone();
    right.merge(&bc);
    let run = common::fixture_like_run();
    assert_eq!(stable_json(&run, &left), stable_json(&run, &right));
    assert_eq!(left.first_error(), 5);
}

#[test]
fn merged_latencies_equal_recording_everything_in_one_recorder() {
    let start = Instant::now();
    let mut one = JobRecorder::new(start);
    let mut a = JobRecorder::new(start);
    let mut b = JobRecorder::new(start);
    for i in 0..1000u64 {
        let clat = 500 + i * i % 777_777;
        one.record_io(Dir::Read, 512, 7, clat, start);
        let half = if i.is_multiple_of(2) { &mut a } else { &mut b };
        half.record_io(Dir::Read, 512, 7, clat, start);
    }
    a.merge(&b);
    let (x, y) = (one.clat(Dir::Read), a.clat(Dir::Read));
    assert_eq!((x.count(), x.min(), x.max()), (y.count(), y.min(), y.max()));
    assert_eq!(x.mean(), y.mean());
    assert_eq!(x.stddev(), y.stddev());
    assert_eq!(x.percentiles(&DEFAULT_PERCENTILES), y.percentiles(&DEFAULT_PERCENTILES));
    assert_eq!(x.bins(), y.bins());
}

#[test]
fn ramp_reset_forgets_everything_before_it() {
    let t0 = Instant::now();
    let mut r = JobRecorder::new(t0);
    for i in 0..100 {
        r.record_depth(4);
        r.record_io(Dir::Write, 1 << 20, 10, 5_000_000, t0 + Duration::from_millis(i * 10));
        r.record_sync(1_000_000);
    }
    r.record_error(5);
    let t1 = t0 + Duration::from_secs(1);
    r.reset(t1);
    r.record_io(Dir::Read, 4096, 10, 20_000, t1 + Duration::from_millis(100));
    assert_eq!(r.start(), t1);
    assert_eq!((r.total_ios(Dir::Write), r.io_bytes(Dir::Write), r.sync_lat().count()), (0, 0, 0));
    assert_eq!((r.total_ios(Dir::Read), r.first_error()), (1, 0));
    // The bandwidth interval counts from the reset: the read at t1+100 ms is in a full first interval.
    let (bw, _) = r.rate_stats(Dir::Read, Duration::from_millis(600));
    assert_eq!((bw.samples, bw.min), (1, 4096 * 1000 / 500 / 1024));
}

#[test]
fn bandwidth_samples_come_from_completion_times_every_500_ms() {
    let t0 = Instant::now();
    let mut r = JobRecorder::new(t0);
    // 0–0.5 s: 100 × 1 MiB; 0.5–1 s: 300 × 1 MiB; 1–1.5 s: nothing; 1.5–1.7 s: unfinished interval.
    let mut at = |n: u64, from_ms: u64| {
        for i in 0..n {
            r.record_io(Dir::Read, 1 << 20, 0, 1000, t0 + Duration::from_millis(from_ms) + Duration::from_micros(i));
        }
    };
    at(100, 0);
    at(300, 500);
    at(5, 1600);
    let (bw, iops) = r.rate_stats(Dir::Read, Duration::from_millis(1700));
    assert_eq!((bw.samples, bw.min, bw.max), (2, 200 * 1024, 600 * 1024));
    assert!(close(bw.mean, 400.0 * 1024.0, 1e-9));
    assert_eq!((iops.min, iops.max), (200, 600));
    // With finish() the recorder knows the job stopped at 1.7 s, whatever run time is passed later.
    r.finish(t0 + Duration::from_millis(2100));
    assert_eq!(r.rate_stats(Dir::Read, Duration::ZERO).0.samples, 3);
}

#[test]
fn group_reporting_merges_consecutive_jobs_of_a_group_like_fio() {
    let mut run = common::fixture_like_run();
    let start = Instant::now();
    let mut second = common::job("mixed", common::fixture_like_recorder(start), Duration::from_millis(1200));
    second.verify_errors = 3;
    run.jobs.push(second);
    run.jobs.push(common::job("other", common::fixture_like_recorder(start), Duration::from_millis(900)));
    run.jobs[2].groupid = 1;
    // Without group_reporting every job is its own report.
    assert_eq!(group_results(&run).len(), 3);
    run.global_options.push(("group_reporting".into(), String::new()));
    let g = group_results(&run);
    assert_eq!(g.len(), 2);
    assert_eq!((g[0].jobs, g[0].runtime, g[0].verify_errors), (2, Duration::from_millis(1200), 3));
    assert_eq!(g[0].recorder.total_ios(Dir::Read), 2000);
    let v = to_fio_json(&run, false);
    let job = &v["jobs"][0];
    assert_eq!(job["job_runtime"], 2200);
    // bw statistics are summed (fio's pure_sum): two members each averaging 4000 KiB/s.
    assert_eq!(job["read"]["bw_mean"], 8000.0);
    assert_eq!(job["read"]["bw_samples"], 4);
    assert_eq!(job["read"]["runtime"], 1200);
}
