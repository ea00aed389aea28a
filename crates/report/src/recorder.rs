//! [`JobRecorder`]: everything one worker measures, on the hot path, without locks. One per worker;
//! merged at the end ([`JobRecorder::merge`]) for numjobs clones and group_reporting.

use std::time::{Duration, Instant};

use crate::latency::LatencyStat;
use crate::rate::{summed_stats, RateSeries, RunningStat};
use crate::Dir;

/// Per-direction counters and latency distributions.
#[derive(Clone, Debug, Default)]
pub(crate) struct DirStats {
    pub(crate) bytes: u64,
    pub(crate) ios: u64,
    pub(crate) short: u64,
    pub(crate) dropped: u64,
    pub(crate) slat: LatencyStat,
    pub(crate) clat: LatencyStat,
    pub(crate) lat: LatencyStat,
}

impl DirStats {
    fn merge(&mut self, o: &DirStats) {
        self.bytes += o.bytes;
        self.ios += o.ios;
        self.short += o.short;
        self.dropped += o.dropped;
        self.slat.merge(&o.slat);
        self.clat.merge(&o.clat);
        self.lat.merge(&o.lat);
    }
}

/// Counts for fio's `latency_ns` / `latency_us` / `latency_ms` maps (completion latency, as fio's
/// `io_u_mark_latency`): 10 ns buckets, 10 µs buckets, 12 ms buckets.
#[derive(Clone, Debug, Default)]
pub(crate) struct LatBuckets {
    pub(crate) n: [u64; 10],
    pub(crate) u: [u64; 10],
    pub(crate) m: [u64; 12],
}

/// Upper bounds (exclusive) of fio's ns and µs latency buckets: 2, 4, 10, 20, 50, 100, 250, 500, 750, 1000.
const LAT_EDGES: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];

impl LatBuckets {
    fn mark(&mut self, ns: u64) {
        let idx = |v: u64| LAT_EDGES.iter().position(|&e| v < e);
        if ns < 1000 {
            self.n[idx(ns).unwrap_or(9)] += 1;
        } else if ns < 1_000_000 {
            self.u[idx(ns / 1000).unwrap_or(9)] += 1;
        } else {
            let ms = ns / 1_000_000;
            let i = match ms {
                0..=999 => idx(ms).unwrap_or(9),
                1000..=1999 => 10,
                _ => 11,
            };
            self.m[i] += 1;
        }
    }

    fn merge(&mut self, o: &LatBuckets) {
        add_all(&mut self.n, &o.n);
        add_all(&mut self.u, &o.u);
        add_all(&mut self.m, &o.m);
    }
}

pub(crate) fn add_all(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// fio's 7-slot map for in-flight depth at submission: 1, 2–3, 4–7, 8–15, 16–31, 32–63, ≥64.
fn depth_slot(in_flight: u32) -> usize {
    match in_flight {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// fio's 7-slot map for submit/complete batch sizes: 0, 1–4, 5–8, 9–16, 17–32, 33–64, >64.
fn batch_slot(n: u32) -> usize {
    match n {
        0 => 0,
        1..=4 => 1,
        5..=8 => 2,
        9..=16 => 3,
        17..=32 => 4,
        33..=64 => 5,
        _ => 6,
    }
}

/// The measurements of one job (or, after [`merge`](Self::merge), of several).
#[derive(Clone, Debug)]
pub struct JobRecorder {
    start: Instant,
    pub(crate) dirs: [DirStats; 2],
    pub(crate) sync: LatencyStat,
    pub(crate) lat_buckets: LatBuckets,
    pub(crate) depth_map: [u64; 7],
    pub(crate) submit_map: [u64; 7],
    pub(crate) complete_map: [u64; 7],
    pub(crate) first_error: i32,
    pub(crate) total_errors: u64,
    /// One per original job; `series[0]` receives new samples.
    pub(crate) series: Vec<RateSeries>,
    /// Σ member run times in ms when known (set by `group_results`), for fio's `job_runtime`.
    pub(crate) member_runtime_ms: Option<u64>,
}

impl JobRecorder {
    /// A recorder whose bandwidth/IOPS intervals count from `start`.
    pub fn new(start: Instant) -> Self {
        Self {
            start,
            dirs: Default::default(),
            sync: LatencyStat::new(),
            lat_buckets: LatBuckets::default(),
            depth_map: [0; 7],
            submit_map: [0; 7],
            complete_map: [0; 7],
            first_error: 0,
            total_errors: 0,
            series: vec![RateSeries::default()],
            member_runtime_ms: None,
        }
    }

    /// One completed read or write: `bytes` transferred, submission latency `slat_ns` (I/O created →
    /// sent), completion latency `clat_ns` (sent → reply). Total latency is `slat + clat`. A slat of 0 is a
    /// real sample. Also counts one completion batch of size 1 for `iodepth_complete`.
    pub fn record_io(&mut self, dir: Dir, bytes: u64, slat_ns: u64, clat_ns: u64, completed_at: Instant) {
        let d = &mut self.dirs[dir.index()];
        d.bytes += bytes;
        d.ios += 1;
        d.slat.record(slat_ns);
        d.clat.record(clat_ns);
        d.lat.record(slat_ns.saturating_add(clat_ns));
        self.lat_buckets.mark(clat_ns);
        self.complete_map[batch_slot(1)] += 1;
        let offset = completed_at.saturating_duration_since(self.start);
        if let Some(s) = self.series.first_mut() {
            s.record(dir, bytes, offset);
        }
    }

    /// A read that returned fewer bytes than asked (fio's `short_ios`). Call in addition to `record_io`.
    pub fn record_short(&mut self, dir: Dir) {
        self.dirs[dir.index()].short += 1;
    }

    /// An I/O issued but abandoned (fio's `drop_ios`).
    pub fn record_dropped(&mut self, dir: Dir) {
        self.dirs[dir.index()].dropped += 1;
    }

    /// One fsync/fdatasync/COMMIT and its latency (fio's "sync" section).
    pub fn record_sync(&mut self, lat_ns: u64) {
        self.sync.record(lat_ns);
    }

    /// Called at each submission with the number of I/Os in flight including this one. Feeds
    /// `iodepth_level`, and counts one submission batch of size 1 for `iodepth_submit`.
    pub fn record_depth(&mut self, in_flight: u32) {
        self.depth_map[depth_slot(in_flight)] += 1;
        self.submit_map[batch_slot(1)] += 1;
    }

    /// An error; the first non-zero one is kept as the job's error, all are counted.
    pub fn record_error(&mut self, errno_like: i32) {
        if errno_like == 0 {
            return;
        }
        if self.first_error == 0 {
            self.first_error = errno_like;
        }
        self.total_errors += 1;
    }

    /// End of ramp_time: forget everything recorded so far and count intervals from `start`.
    pub fn reset(&mut self, start: Instant) {
        *self = Self::new(start);
    }

    /// Tells when this job stopped issuing I/O, so the last bandwidth interval is kept only if complete.
    /// Optional: without it the job's reported run time decides.
    pub fn finish(&mut self, end: Instant) {
        let ran = end.saturating_duration_since(self.start);
        if let Some(s) = self.series.first_mut() {
            s.end = Some(ran);
        }
    }

    /// Adds `other`'s measurements (fio's `sum_thread_stats`). Exactly associative: latency moments are
    /// integers, histograms add counts, and bandwidth series are concatenated (summed only at report
    /// time). Order matters only for which error counts as first.
    pub fn merge(&mut self, other: &JobRecorder) {
        self.start = self.start.min(other.start);
        for (a, b) in self.dirs.iter_mut().zip(&other.dirs) {
            a.merge(b);
        }
        self.sync.merge(&other.sync);
        self.lat_buckets.merge(&other.lat_buckets);
        add_all(&mut self.depth_map, &other.depth_map);
        add_all(&mut self.submit_map, &other.submit_map);
        add_all(&mut self.complete_map, &other.complete_map);
        if self.first_error == 0 {
            self.first_error = other.first_error;
        }
        self.total_errors += other.total_errors;
        self.series.extend(other.series.iter().cloned());
        self.member_runtime_ms = self.member_runtime_ms.zip(other.member_runtime_ms).map(|(a, b)| a + b);
    }

    /// When interval counting starts.
    pub fn start(&self) -> Instant {
        self.start
    }

    /// Bytes completed in `dir`.
    pub fn io_bytes(&self, dir: Dir) -> u64 {
        self.dirs[dir.index()].bytes
    }

    /// I/Os completed in `dir`.
    pub fn total_ios(&self, dir: Dir) -> u64 {
        self.dirs[dir.index()].ios
    }

    /// Submission latency in `dir`.
    pub fn slat(&self, dir: Dir) -> &LatencyStat {
        &self.dirs[dir.index()].slat
    }

    /// Completion latency in `dir`.
    pub fn clat(&self, dir: Dir) -> &LatencyStat {
        &self.dirs[dir.index()].clat
    }

    /// Total latency (slat + clat) in `dir`.
    pub fn lat(&self, dir: Dir) -> &LatencyStat {
        &self.dirs[dir.index()].lat
    }

    /// fsync/COMMIT latency.
    pub fn sync_lat(&self) -> &LatencyStat {
        &self.sync
    }

    /// The first error recorded, 0 if none.
    pub fn first_error(&self) -> i32 {
        self.first_error
    }

    /// How many errors were recorded.
    pub fn total_errors(&self) -> u64 {
        self.total_errors
    }

    /// Bandwidth samples (KiB/s) and IOPS samples of `dir`, fio-style, for a job that ran `runtime`.
    pub fn rate_stats(&self, dir: Dir, runtime: Duration) -> (RunningStat, RunningStat) {
        summed_stats(&self.series, dir, runtime)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_follow_fio_edges() {
        let mut b = LatBuckets::default();
        for ns in [0, 1, 2, 999, 1000, 1999, 999_999, 1_000_000, 999_999_999, 1_000_000_000, 2_000_000_000] {
            b.mark(ns);
        }
        assert_eq!(b.n, [2, 1, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(b.u, [2, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        assert_eq!(b.m, [1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
    }

    #[test]
    fn depth_and_batch_slots_follow_fio_maps() {
        let slots: Vec<usize> = [1, 2, 3, 4, 8, 16, 32, 63, 64, 1000].iter().map(|&d| depth_slot(d)).collect();
        assert_eq!(slots, [0, 1, 1, 2, 3, 4, 5, 5, 6, 6]);
        let slots: Vec<usize> = [0, 1, 4, 5, 9, 17, 33, 64, 65].iter().map(|&d| batch_slot(d)).collect();
        assert_eq!(slots, [0, 1, 1, 2, 3, 4, 5, 5, 6]);
    }
}
