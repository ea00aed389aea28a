//! Means with 95% confidence intervals, and ratios between cases with theirs.
//!
//! - A cell's figure: the mean of its repetitions ± t(0.975, n−1) · s / √n (Student's t: few runs).
//! - A ratio of case B to baseline A: repetitions are interleaved (rep k runs every case back to back), so
//!   B's and A's k-th runs share the machine's state and are paired: r_k = B_k / A_k. The interval is taken
//!   on ln r_k (ratios are multiplicative) and mapped back: the point is the geometric mean of the r_k.
//!   When it straddles 1 the verdict is "no difference"; with one repetition there is no interval.
//! - A wire baseline's figure: the median of its repetitions, with a distribution-free interval of the
//!   median from order statistics (one far-off sample, such as a first round trip paying for a cold
//!   path, moves neither).

use crate::results::{Estimate, Spread, Verdict};

/// Two-sided 95% quantiles of Student's t for 1..=30 degrees of freedom.
const T_975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// t(0.975, df); the normal 1.96 past the table (df > 30 differs by < 2%).
pub fn t_975(df: usize) -> f64 {
    match df {
        0 => f64::NAN,
        1..=30 => T_975[df - 1],
        _ => 1.96,
    }
}

/// Mean and 95% interval of `samples` (non-finite samples are left out).
pub fn estimate(samples: &[f64]) -> Estimate {
    let xs: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    let n = xs.len();
    if n == 0 {
        return Estimate::default();
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Estimate { mean, lo: mean, hi: mean, n: 1 };
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let half = t_975(n - 1) * (var / n as f64).sqrt();
    Estimate { mean, lo: mean - half, hi: mean + half, n: n as u32 }
}

/// [`estimate`] of a quantity that cannot be negative (bandwidth, IOPS, latency, CPU): its interval
/// stops at 0.
pub fn estimate_nonnegative(samples: &[f64]) -> Estimate {
    let e = estimate(samples);
    Estimate { lo: e.lo.max(0.0), ..e }
}

/// The median of `samples` with the interval [x(j), x(n+1−j)] of order statistics that covers the median
/// with at least 95% probability (the largest such j; binomial with p = 1/2), or the whole range when
/// no j does (n < 6), with its coverage: 1 − 2·P(Bin(n, ½) < j).
pub fn median_interval(samples: &[f64]) -> Spread {
    let mut xs: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        return Spread::default();
    }
    let median = if n % 2 == 1 { xs[n / 2] } else { (xs[n / 2 - 1] + xs[n / 2]) / 2.0 };
    // P(Bin(n, 1/2) <= k) for k = 0..n.
    let mut cdf = Vec::with_capacity(n + 1);
    let (mut term, mut sum) = (0.5f64.powi(n as i32), 0.0);
    for k in 0..=n {
        sum += term;
        cdf.push(sum);
        term = term * (n - k) as f64 / (k + 1) as f64;
    }
    // Coverage of [x(j), x(n+1-j)] is 1 - 2 P(Bin <= j-1).
    let coverage = |j: usize| 1.0 - 2.0 * cdf[j - 1];
    let j = (1..=n.div_ceil(2)).rev().find(|&j| coverage(j) >= 0.95).unwrap_or(1);
    Spread { median, lo: xs[j - 1], hi: xs[n - j], n: n as u32, coverage: if n == 1 { 0.0 } else { coverage(j) } }
}

/// The paired ratio of `case` to `baseline` (same length, rep k with rep k), with its interval and
/// verdict. Pairs with a non-positive member are left out.
pub fn paired_ratio(case: &[f64], baseline: &[f64]) -> (Estimate, Verdict) {
    let logs: Vec<f64> = case
        .iter()
        .zip(baseline)
        .filter(|(c, b)| **c > 0.0 && **b > 0.0 && c.is_finite() && b.is_finite())
        .map(|(c, b)| (c / b).ln())
        .collect();
    let e = estimate(&logs);
    if e.n == 0 {
        return (Estimate::default(), Verdict::NoDifference);
    }
    let ratio = Estimate { mean: e.mean.exp(), lo: e.lo.exp(), hi: e.hi.exp(), n: e.n };
    (ratio, verdict(&ratio))
}

/// Higher / Lower when the whole interval is on one side of 1; otherwise (or with n = 1) no difference.
pub fn verdict(ratio: &Estimate) -> Verdict {
    if ratio.n < 2 {
        Verdict::NoDifference
    } else if ratio.lo > 1.0 {
        Verdict::Higher
    } else if ratio.hi < 1.0 {
        Verdict::Lower
    } else {
        Verdict::NoDifference
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn a_median_interval_ignores_one_far_off_sample_and_says_its_coverage() {
        // The 1-connection TCP round trip once read 94.8 µs beside 10.1 µs: one sample far off.
        let s = median_interval(&[10.1, 94.8, 10.3]);
        assert_eq!((s.median, s.lo, s.hi, s.n), (10.3, 10.1, 94.8, 3));
        assert!(close(s.coverage, 0.75), "the range of 3 holds the median with 1 - 2/8: {s:?}");
        // From 6 samples on, [x(1), x(6)] covers 96.9%; at 9, [x(2), x(8)] covers 96.1%.
        let six = median_interval(&[6.0, 1.0, 5.0, 2.0, 4.0, 3.0]);
        assert_eq!((six.median, six.lo, six.hi), (3.5, 1.0, 6.0));
        assert!(close(six.coverage, 1.0 - 2.0 / 64.0));
        let nine = median_interval(&(1..=9).map(f64::from).collect::<Vec<_>>());
        assert_eq!((nine.median, nine.lo, nine.hi), (5.0, 2.0, 8.0));
        assert!(close(nine.coverage, 1.0 - 2.0 * 10.0 / 512.0), "{nine:?}");
        assert_eq!(median_interval(&[7.0]).coverage, 0.0, "one sample: no interval");
        assert_eq!(median_interval(&[]).n, 0);
    }

    #[test]
    fn the_interval_is_students_t_over_the_repetitions() {
        let e = estimate(&[10.0, 12.0, 14.0]);
        assert!(close(e.mean, 12.0));
        // s = 2, n = 3: 4.303 * 2 / sqrt(3)
        assert!(close(e.hi - e.mean, 4.303 * 2.0 / 3f64.sqrt()), "{e:?}");
        assert!(close(e.mean - e.lo, e.hi - e.mean));
        assert_eq!(e.n, 3);
        let wide = estimate_nonnegative(&[1.0, 100.0]);
        assert_eq!(wide.lo, 0.0, "a non-negative quantity's interval stops at 0: {wide:?}");
        assert!(estimate(&[1.0, 100.0]).lo < 0.0);
        let (r, _) = paired_ratio(&[1.1, 3.0], &[1.0, 1.0]);
        assert!(r.lo < 1.0, "a ratio's interval is not clamped: {r:?}");
        let one = estimate(&[5.0]);
        assert_eq!((one.lo, one.hi, one.n), (5.0, 5.0, 1));
        assert_eq!(estimate(&[]).n, 0);
        assert_eq!(estimate(&[f64::NAN, 2.0]).n, 1);
    }

    #[test]
    fn a_steady_doubling_is_higher_and_a_noisy_one_is_no_difference() {
        let (r, v) = paired_ratio(&[20.0, 22.0, 18.0], &[10.0, 11.0, 9.0]);
        assert!(close(r.mean, 2.0) && close(r.lo, 2.0) && close(r.hi, 2.0), "{r:?}");
        assert_eq!(v, Verdict::Higher);
        let (_, v) = paired_ratio(&[5.0, 5.0, 5.0], &[10.0, 11.0, 9.5]);
        assert_eq!(v, Verdict::Lower);
        let (r, v) = paired_ratio(&[12.0, 8.0, 11.0], &[10.0, 10.0, 10.0]);
        assert!(r.lo < 1.0 && r.hi > 1.0, "{r:?}");
        assert_eq!(v, Verdict::NoDifference);
        let (r, v) = paired_ratio(&[30.0], &[10.0]);
        assert!(close(r.mean, 3.0));
        assert_eq!(v, Verdict::NoDifference, "one repetition has no interval");
    }

    #[test]
    fn pairs_with_a_zero_are_left_out() {
        let (r, _) = paired_ratio(&[0.0, 4.0], &[1.0, 2.0]);
        assert_eq!(r.n, 1);
        assert!(close(r.mean, 2.0));
        assert_eq!(paired_ratio(&[], &[]).0.n, 0);
    }
}
