//! One latency distribution: an HDR histogram (nanoseconds, 3 significant digits) for percentiles and
//! json+ bins, plus exact integer moments (count, min, max, Σx, Σx²) for min/max/mean/stddev.
//!
//! Keeping the moments as integers makes [`LatencyStat::merge`] exactly associative and commutative,
//! which fio's floating-point running mean is not.

use hdrhistogram::Histogram;

/// Largest latency the histogram resolves: one hour. Larger samples land in the top bucket (their exact
/// value still counts in min/max/mean/stddev).
pub const HIST_MAX_NS: u64 = 3_600_000_000_000;
/// Significant decimal digits the histogram keeps (relative bucket width ≤ 1/1024 above 2048 ns).
pub const HIST_SIGFIG: u8 = 3;

/// Why moments and buckets do not make a distribution ([`LatencyStat::from_parts`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InconsistentDistribution {
    /// A count of 0 with some other figure set.
    #[error("an empty distribution with non-zero moments or buckets")]
    EmptyNotZero,
    #[error("min {min} > max {max}")]
    MinAboveMax { min: u64, max: u64 },
    /// Σx below count × min or above count × max.
    #[error("sum {sum} outside count × [min, max]")]
    SumOutOfRange { sum: u128 },
    #[error("histogram value {value} above the histogram's maximum {HIST_MAX_NS}")]
    ValueAboveMax { value: u64 },
    #[error("histogram bucket {value} with count 0")]
    EmptyBucket { value: u64 },
    #[error("histogram values not ascending at {value}")]
    NotAscending { value: u64 },
    #[error("histogram counts overflow")]
    CountsOverflow,
    #[error("histogram counts sum to {total}, not to the sample count {count}")]
    CountsMismatch { total: u64, count: u64 },
    #[error("cannot allocate a histogram")]
    NoHistogram,
    /// Two listed values are one bucket of the histogram (so one was not a bucket value).
    #[error("two histogram values fall in the same bucket")]
    SharedBucket,
}

/// A latency distribution in nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct LatencyStat {
    /// Allocated on the first sample, so idle directions cost nothing.
    hist: Option<Histogram<u64>>,
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: u128,
}

fn new_histogram() -> Option<Histogram<u64>> {
    Histogram::new_with_bounds(1, HIST_MAX_NS, HIST_SIGFIG).ok()
}

/// Adds `theirs` into `mine`. Both have the same bounds, so `add` cannot fail; should it ever, the buckets
/// are re-recorded one by one.
fn add_histogram(mine: &mut Histogram<u64>, theirs: &Histogram<u64>) {
    if mine.add(theirs).is_err() {
        for v in theirs.iter_recorded() {
            mine.saturating_record_n(v.value_iterated_to(), v.count_at_value());
        }
    }
}

impl LatencyStat {
    /// An empty distribution.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one sample.
    pub fn record(&mut self, ns: u64) {
        self.record_n(ns, 1);
    }

    /// Adds `n` samples of the same value.
    pub fn record_n(&mut self, ns: u64, n: u64) {
        if n == 0 {
            return;
        }
        if self.hist.is_none() {
            self.hist = new_histogram();
        }
        if let Some(h) = self.hist.as_mut() {
            // Clamped here rather than by the histogram: its counts array reaches past HIST_MAX_NS (to the
            // end of the top power-of-two bucket), and every bucket must stay at or below HIST_MAX_NS for
            // the byte form of crate::job_codec to be checkable.
            h.saturating_record_n(ns.min(HIST_MAX_NS), n);
        }
        if self.count == 0 || ns < self.min {
            self.min = ns;
        }
        self.max = self.max.max(ns);
        self.count += n;
        let v = u128::from(ns);
        self.sum = self.sum.saturating_add(v * u128::from(n));
        self.sum_sq = self.sum_sq.saturating_add(v * v * u128::from(n));
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &LatencyStat) {
        if other.count == 0 {
            return;
        }
        match (self.hist.as_mut(), other.hist.as_ref()) {
            (Some(mine), Some(theirs)) => add_histogram(mine, theirs),
            (None, Some(theirs)) => self.hist = Some(theirs.clone()),
            _ => {}
        }
        self.min = if self.count == 0 { other.min } else { self.min.min(other.min) };
        self.max = self.max.max(other.max);
        self.count += other.count;
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_sq = self.sum_sq.saturating_add(other.sum_sq);
    }

    /// Number of samples (fio's `N`).
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Smallest sample, 0 when empty.
    pub fn min(&self) -> u64 {
        self.min
    }

    /// Largest sample, 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Exact arithmetic mean, 0.0 when empty.
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.sum as f64 / self.count as f64
    }

    /// Sample standard deviation (divides by N−1, as fio's `calc_lat` does); 0.0 below two samples.
    pub fn stddev(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let n = u128::from(self.count);
        // Var = (nΣx² − (Σx)²) / (n(n−1)), exact while it fits; else the same formula in floating point.
        let exact = n
            .checked_mul(self.sum_sq)
            .zip(self.sum.checked_mul(self.sum))
            .and_then(|(a, b)| a.checked_sub(b))
            .map(|num| num as f64 / (n * (n - 1)) as f64);
        let var = exact.unwrap_or_else(|| {
            let nf = self.count as f64;
            let mean = self.sum as f64 / nf;
            ((self.sum_sq as f64 - nf * mean * mean) / (nf - 1.0)).max(0.0)
        });
        var.sqrt()
    }

    /// The histogram, if any sample was recorded.
    pub fn histogram(&self) -> Option<&Histogram<u64>> {
        self.hist.as_ref()
    }

    /// Percentiles by fio's rule (`calc_clat_percentiles`): walk the buckets in ascending order and give
    /// percentile p the first bucket whose running count reaches p/100 × N. The list is sorted first (as
    /// fio does); entries ≤ 0, > 100 or NaN are dropped. Each value is the bucket's middle value, clamped
    /// to the exact [min, max] (fio does not clamp; HDR buckets are ~60× narrower than fio's anyway).
    pub fn percentiles(&self, list: &[f64]) -> Vec<(f64, u64)> {
        let mut wanted: Vec<f64> = list.iter().copied().filter(|p| *p > 0.0 && *p <= 100.0).collect();
        wanted.sort_by(f64::total_cmp);
        let Some(h) = self.hist.as_ref().filter(|_| self.count > 0) else {
            return Vec::new();
        };
        let n = self.count as f64;
        let mut out = Vec::with_capacity(wanted.len());
        let mut cum = 0u64;
        let mut j = 0;
        for v in h.iter_recorded() {
            cum += v.count_at_value();
            while j < wanted.len() && cum as f64 >= wanted[j] / 100.0 * n {
                let value = h.median_equivalent(v.value_iterated_to()).clamp(self.min, self.max);
                out.push((wanted[j], value));
                j += 1;
            }
        }
        // Rounding can leave 100.0 unplaced only if counts disagree; report the maximum then.
        while j < wanted.len() {
            out.push((wanted[j], self.max));
            j += 1;
        }
        out
    }

    /// The exact moments: (count, min, max, Σx, Σx²).
    pub(crate) fn moments(&self) -> (u64, u64, u64, u128, u128) {
        (self.count, self.min, self.max, self.sum, self.sum_sq)
    }

    /// Every non-empty histogram bucket as (a value inside the bucket, count), ascending. The value is the
    /// bucket's highest equivalent value, capped at [`HIST_MAX_NS`] (which lies in the top bucket), so
    /// recording it again lands in the same bucket.
    pub(crate) fn buckets(&self) -> Vec<(u64, u64)> {
        let Some(h) = self.hist.as_ref() else {
            return Vec::new();
        };
        h.iter_recorded().map(|v| (v.value_iterated_to().min(HIST_MAX_NS), v.count_at_value())).collect()
    }

    /// Rebuilds a distribution from its [`moments`](Self::moments) and [`buckets`](Self::buckets),
    /// checking that they are consistent: bucket values at most [`HIST_MAX_NS`] and strictly ascending,
    /// counts non-zero and summing to `count`, min ≤ max, Σx between count×min and count×max, and all
    /// zero when `count` is 0. The error says which check failed.
    pub(crate) fn from_parts(
        (count, min, max, sum, sum_sq): (u64, u64, u64, u128, u128),
        buckets: &[(u64, u64)],
    ) -> Result<Self, InconsistentDistribution> {
        use InconsistentDistribution as E;
        if count == 0 {
            if min != 0 || max != 0 || sum != 0 || sum_sq != 0 || !buckets.is_empty() {
                return Err(E::EmptyNotZero);
            }
            return Ok(Self::default());
        }
        if min > max {
            return Err(E::MinAboveMax { min, max });
        }
        let (lo, hi) = (u128::from(min) * u128::from(count), u128::from(max) * u128::from(count));
        if sum < lo || sum > hi {
            return Err(E::SumOutOfRange { sum });
        }
        let mut total = 0u64;
        let mut previous: Option<u64> = None;
        for &(value, n) in buckets {
            if value > HIST_MAX_NS {
                return Err(E::ValueAboveMax { value });
            }
            if n == 0 {
                return Err(E::EmptyBucket { value });
            }
            if previous.is_some_and(|p| p >= value) {
                return Err(E::NotAscending { value });
            }
            previous = Some(value);
            total = total.checked_add(n).ok_or(E::CountsOverflow)?;
        }
        if total != count {
            return Err(E::CountsMismatch { total, count });
        }
        let mut h = new_histogram().ok_or(E::NoHistogram)?;
        for &(value, n) in buckets {
            h.saturating_record_n(value, n);
        }
        if h.iter_recorded().count() != buckets.len() {
            return Err(E::SharedBucket);
        }
        Ok(Self { hist: Some(h), count, min, max, sum, sum_sq })
    }

    /// json+ "bins": (bucket value in ns, count) for every non-empty bucket, ascending. The value is the
    /// bucket's middle value (fio's `plat_idx_to_val` also reports the middle of its bucket).
    pub fn bins(&self) -> Vec<(u64, u64)> {
        let Some(h) = self.hist.as_ref() else {
            return Vec::new();
        };
        h.iter_recorded().map(|v| (h.median_equivalent(v.value_iterated_to()), v.count_at_value())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_distribution_reports_zeros_and_no_percentiles() {
        let s = LatencyStat::new();
        assert_eq!((s.count(), s.min(), s.max()), (0, 0, 0));
        assert_eq!(s.mean(), 0.0);
        assert_eq!(s.stddev(), 0.0);
        assert!(s.percentiles(&[50.0]).is_empty());
        assert!(s.bins().is_empty());
    }

    #[test]
    fn values_above_one_hour_are_clamped_into_the_histogram_but_exact_in_max() {
        let mut s = LatencyStat::new();
        s.record(HIST_MAX_NS * 3);
        assert_eq!(s.max(), HIST_MAX_NS * 3);
        assert_eq!(s.count(), 1);
        assert_eq!(s.percentiles(&[50.0])[0].1, HIST_MAX_NS * 3);
    }

    #[test]
    fn values_just_above_one_hour_share_the_top_bucket() {
        // The histogram's counts reach past HIST_MAX_NS; samples there still go to HIST_MAX_NS's bucket,
        // so every bucket value stays at or below it (crate::job_codec relies on that).
        let mut s = LatencyStat::new();
        s.record(HIST_MAX_NS + 100_000_000_000);
        s.record(HIST_MAX_NS);
        assert_eq!(s.bins().len(), 1);
        assert_eq!(s.buckets(), vec![(HIST_MAX_NS, 2)]);
        let again = LatencyStat::from_parts(s.moments(), &s.buckets()).unwrap();
        assert_eq!(again.bins(), s.bins());
    }
}
