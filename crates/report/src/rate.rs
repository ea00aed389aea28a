//! Bandwidth and IOPS samples the way fio takes them: every `bw_avg_time` / `iops_avg_time` (500 ms by
//! default) a job's rate over that interval becomes one sample (KiB/s for bandwidth, I/Os per second for
//! IOPS); intervals with nothing completed give no sample, and the last, unfinished interval gives none.
//!
//! The recorder keeps per-interval byte and I/O counts (a few bytes per second of run time) and the
//! statistics are computed at report time. When jobs are merged (numjobs clones, group_reporting) each keeps
//! its own series and the per-job statistics are then *summed*, field by field, exactly as fio's
//! `sum_stat(.., pure_sum = true)` does for `bw_stat` / `iops_stat`: the group's `bw_mean` is the sum of the
//! members' means, i.e. the aggregate bandwidth.

use std::time::Duration;

use crate::Dir;

/// fio's default `bw_avg_time` and `iops_avg_time`.
pub const SAMPLE_INTERVAL: Duration = Duration::from_millis(500);

/// fio's `struct io_stat` for bandwidth/IOPS samples: min, max, Welford mean and S.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningStat {
    /// Smallest sample (0 when there is none).
    pub min: u64,
    /// Largest sample.
    pub max: u64,
    /// Number of samples.
    pub samples: u64,
    /// Mean of the samples.
    pub mean: f64,
    /// Σ(x − mean)², Welford's S.
    pub s: f64,
}

impl Default for RunningStat {
    fn default() -> Self {
        Self { min: 0, max: 0, samples: 0, mean: 0.0, s: 0.0 }
    }
}

impl RunningStat {
    /// Adds one sample (fio's `add_stat_sample`).
    pub fn add(&mut self, value: u64) {
        if self.samples == 0 || value < self.min {
            self.min = value;
        }
        self.max = self.max.max(value);
        let v = value as f64;
        let delta = v - self.mean;
        if delta != 0.0 {
            self.mean += delta / (self.samples as f64 + 1.0);
            self.s += delta * (v - self.mean);
        }
        self.samples += 1;
    }

    /// Field-by-field sum, fio's group rule for bandwidth and IOPS (`sum_stat` with `pure_sum`).
    pub fn sum_into(&mut self, other: &RunningStat) {
        if other.samples == 0 {
            return;
        }
        if self.samples == 0 {
            *self = *other;
            return;
        }
        self.min += other.min;
        self.max += other.max;
        self.samples += other.samples;
        self.mean += other.mean;
        self.s += other.s;
    }

    /// sqrt(S / (N − 1)), 0 below two samples (fio's `calc_lat`).
    pub fn stddev(&self) -> f64 {
        if self.samples < 2 {
            return 0.0;
        }
        (self.s / (self.samples as f64 - 1.0)).max(0.0).sqrt()
    }
}

/// Most intervals a series keeps (about 58 days at 500 ms); later completions are not sampled.
pub(crate) const MAX_INTERVALS: usize = 10_000_000;

/// One job's completed bytes and I/Os per sample interval, per direction.
#[derive(Clone, Debug, Default)]
pub(crate) struct RateSeries {
    /// Bytes completed per interval, per direction (`Dir::index`).
    pub(crate) bytes: [Vec<u64>; 2],
    /// I/Os completed per interval; the same length as `bytes` of the same direction.
    pub(crate) ios: [Vec<u64>; 2],
    /// How long this job ran, if the engine said so with `JobRecorder::finish`.
    pub(crate) end: Option<Duration>,
}

fn interval_index(offset: Duration) -> usize {
    let idx = offset.as_nanos() / SAMPLE_INTERVAL.as_nanos();
    usize::try_from(idx).unwrap_or(usize::MAX)
}

impl RateSeries {
    /// Counts one completion `offset` after the job's start.
    pub(crate) fn record(&mut self, dir: Dir, bytes: u64, offset: Duration) {
        let k = interval_index(offset);
        // A completion absurdly far in the future (clock bug) must not allocate without bound.
        if k >= MAX_INTERVALS {
            return;
        }
        let d = dir.index();
        if self.bytes[d].len() <= k {
            self.bytes[d].resize(k + 1, 0);
            self.ios[d].resize(k + 1, 0);
        }
        self.bytes[d][k] += bytes;
        self.ios[d][k] += 1;
    }

    /// (bandwidth KiB/s, IOPS) statistics of this series, given the job's run time when `end` is unknown.
    fn stats(&self, dir: Dir, runtime: Duration) -> (RunningStat, RunningStat) {
        let end = self.end.unwrap_or(runtime);
        let ms = SAMPLE_INTERVAL.as_millis() as u64;
        let mut bw = RunningStat::default();
        let mut iops = RunningStat::default();
        let d = dir.index();
        for (k, (&b, &n)) in self.bytes[d].iter().zip(&self.ios[d]).enumerate() {
            // fio allows LOG_MSEC_SLACK (1 ms) of early wake-up before an interval counts as complete.
            let interval_end = SAMPLE_INTERVAL * (k as u32 + 1);
            if interval_end > end + Duration::from_millis(1) {
                break;
            }
            if b > 0 {
                bw.add(b * 1000 / ms / 1024);
            }
            if n > 0 {
                iops.add(n * 1000 / ms);
            }
        }
        (bw, iops)
    }
}

/// Bandwidth and IOPS statistics of several series, summed as fio sums group members.
pub(crate) fn summed_stats(series: &[RateSeries], dir: Dir, runtime: Duration) -> (RunningStat, RunningStat) {
    let mut bw = RunningStat::default();
    let mut iops = RunningStat::default();
    for s in series {
        let (b, i) = s.stats(dir, runtime);
        bw.sum_into(&b);
        iops.sum_into(&i);
    }
    (bw, iops)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_stat_matches_hand_computed_mean_and_sample_stddev() {
        let mut s = RunningStat::default();
        for v in [2, 4, 4, 4, 5, 5, 7, 9] {
            s.add(v);
        }
        assert_eq!((s.min, s.max, s.samples), (2, 9, 8));
        assert!((s.mean - 5.0).abs() < 1e-12);
        // Σ(x−5)² = 32, sample variance 32/7.
        assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn series_drops_empty_and_unfinished_intervals() {
        let mut s = RateSeries::default();
        let ms = Duration::from_millis;
        s.record(Dir::Read, 512 * 1024, ms(100)); // interval 0: 512 KiB in 0.5 s = 1024 KiB/s
        s.record(Dir::Read, 1024 * 1024, ms(1200)); // interval 2 (interval 1 empty): 2048 KiB/s
        s.record(Dir::Read, 4096, ms(1600)); // interval 3 unfinished at 1.7 s
        let (bw, iops) = s.stats(Dir::Read, ms(1700));
        assert_eq!((bw.samples, bw.min, bw.max), (2, 1024, 2048));
        assert_eq!((iops.samples, iops.min, iops.max), (2, 2, 2));
    }
}
