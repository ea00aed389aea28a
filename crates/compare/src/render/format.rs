//! Number formatting and the per-case lines (why not measured, the kernel's negotiation and counters)
//! shared by the outputs.

use crate::plan::Case;
use crate::results::{
    CaseRow, Cell, Estimate, KernelCounters, LatencyRatio, Metric, Negotiation, Ratio, Report, Spread, Verdict,
};
use crate::size::format_size;

/// A figure with sensible digits: 4343, 287.2k, 12.5, 0.083.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 100_000.0 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 0.1 || a == 0.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// "4343 [4210, 4476]", or "4343" with one repetition.
pub fn estimate(e: &Estimate) -> String {
    if e.n == 0 {
        return "-".into();
    }
    if e.n < 2 {
        return number(e.mean);
    }
    format!("{} [{}, {}]", number(e.mean), number(e.lo), number(e.hi))
}

/// "4343 MB/s [4210, 4476]".
pub fn headline(metric: Metric, e: &Estimate) -> String {
    if e.n < 2 {
        return format!("{} {}", number(e.mean), metric.unit());
    }
    format!("{} {} [{}, {}]", number(e.mean), metric.unit(), number(e.lo), number(e.hi))
}

/// "1.49× [1.46, 1.52]".
pub fn ratio(r: &Estimate) -> String {
    if r.n == 0 {
        return "-".into();
    }
    if r.n < 2 {
        return format!("{:.2}×", r.mean);
    }
    format!("{:.2}× [{:.2}, {:.2}]", r.mean, r.lo, r.hi)
}

/// "rdma vs tcp: seq-read-1m 1.49× [1.46, 1.52]", with " — no difference" when the interval straddles 1.
pub fn ratio_statement(r: &Ratio) -> String {
    let tail = match (r.verdict, r.ratio.n) {
        (_, n) if n < 2 => " — one repetition: no interval",
        (Verdict::NoDifference, _) => " — no difference",
        _ => "",
    };
    format!("{} vs {}: {} {}{tail}", r.case, r.baseline, r.workload, ratio(&r.ratio))
}

/// "rdma vs tcp: rand-read-4k clat mean 0.82× [0.79, 0.85], stdev 0.60× [0.52, 0.70]", each with " (no
/// difference)" when its interval straddles 1; lower is better.
pub fn latency_statement(r: &LatencyRatio) -> String {
    let word = |v: Verdict, e: &Estimate| match (v, e.n) {
        (_, n) if n < 2 => "",
        (Verdict::NoDifference, _) => " (no difference)",
        _ => "",
    };
    let tail = if r.mean.n < 2 { " — one repetition: no interval" } else { "" };
    format!(
        "{} vs {}: {} clat mean {}{}, clat stdev {}{}{tail}",
        r.case,
        r.baseline,
        r.workload,
        ratio(&r.mean),
        word(r.mean_verdict, &r.mean),
        ratio(&r.stdev),
        word(r.stdev_verdict, &r.stdev)
    )
}

/// "0.42" or "-" for a missing efficiency; as a percentage "42%".
pub fn percent(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map_or_else(|| "-".into(), |x| format!("{:.0}%", x * 100.0))
}

/// The cell's 99th percentile of completion latency, µs (NaN when unknown).
pub fn p99(c: &Cell) -> f64 {
    c.clat_percentiles_us.iter().find(|(p, _)| *p == 99.0).map_or(f64::NAN, |(_, v)| *v)
}

/// The cell's ratio against the baseline as a table entry: "1.49× [1.46, 1.52]", "baseline" or "-".
pub fn vs_baseline(report: &Report, case: &str, workload: &str) -> String {
    match report.ratios.iter().find(|r| r.case == case && r.workload == workload) {
        Some(r) => ratio(&r.ratio),
        None if case == report.baseline_case => "baseline".into(),
        None => "-".into(),
    }
}

/// "default" or "1MiB/64KiB" for a case's rsize/wsize.
pub fn io_sizes(c: &Case) -> String {
    match (c.rsize, c.wsize) {
        (None, None) => "default".to_string(),
        (r, w) => format!("{}/{}", r.map_or("-".into(), format_size), w.map_or("-".into(), format_size)),
    }
}

/// "-" or "128/4KiB" for a case's RDMA credits/inline threshold.
pub fn rdma_settings(c: &Case) -> String {
    match (c.rdma_credits, c.rdma_inline) {
        (None, None) => "-".to_string(),
        (cr, i) => format!(
            "{}/{}",
            cr.map_or("default".into(), |v| v.to_string()),
            i.map_or("default".into(), |v| format_size(v.into()))
        ),
    }
}

/// Why a case has no figures: "not supported yet: ..." or "failed: ...".
pub fn not_measured(row: &CaseRow) -> Option<String> {
    match (&row.unsupported, &row.failed) {
        (Some(why), _) => Some(why.clone()),
        (None, Some(why)) => Some(format!("failed: {why}")),
        (None, None) => None,
    }
}

/// A kernel-engine case's negotiation in one line: "negotiated <opts>; 4 transports" and, when the
/// kernel did not grant what was asked, "DIFFERS FROM ASKED: rsize: asked 4194304, negotiated 1048576".
pub fn negotiation_line(n: &Negotiation) -> String {
    let transports = if n.transports == 1 { "1 transport".to_string() } else { format!("{} transports", n.transports) };
    let mut line = format!("negotiated {}; {transports}", n.negotiated);
    if !n.differs.is_empty() {
        line.push_str(&format!("; DIFFERS FROM ASKED: {}", n.differs.join("; ")));
    }
    line
}

/// The kernel client's RPC counters of a cell in one line; for a block case, its device's counters.
pub fn kernel_counters_line(k: &KernelCounters) -> String {
    if let Some(d) = &k.io {
        return format!(
            "{}: {} reads and {} writes, {} MB read and {} MB written; {} ms per I/O",
            d.source,
            d.read_ios,
            d.write_ios,
            number(d.bytes_read as f64 / 1e6),
            number(d.bytes_written as f64 / 1e6),
            number(d.mean_ms)
        );
    }
    let mut line = format!(
        "{} RPCs, {} retransmitted, {} timed out, {} MB sent and {} MB received; per data RPC: RTT {} ms, \
         execute {} ms, backlog {} ms",
        k.rpcs,
        k.retransmissions,
        k.timeouts,
        number(k.bytes_sent as f64 / 1e6),
        number(k.bytes_received as f64 / 1e6),
        number(k.rtt_ms),
        number(k.exec_ms),
        number(k.backlog_ms)
    );
    if let Some(r) = &k.rdma {
        line.push_str(&format!(
            "; RDMA chunks read {} / write {} / reply {}, hardway registrations {}, failed marshals {}, bad replies {}",
            r.read_chunks, r.write_chunks, r.reply_chunks, r.hardway_registrations, r.failed_marshals, r.bad_replies
        ));
    }
    line
}

/// A wire baseline's median with its interval over the repetitions: "2345 [2100, 2400]", or the
/// median alone from one repetition (or a report written before baselines were repeated).
pub fn median_with_interval(median: f64, spread: Option<&Spread>) -> String {
    match spread.filter(|s| s.n >= 2) {
        Some(s) => format!("{} [{}, {}]", number(median), number(s.lo), number(s.hi)),
        None => number(median),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wire_median_shows_its_interval_from_two_repetitions_on() {
        let spread = Spread { median: 10.3, lo: 10.1, hi: 94.8, n: 3, coverage: 0.75 };
        assert_eq!(median_with_interval(10.3, Some(&spread)), "10.3 [10.1, 94.8]");
        assert_eq!(median_with_interval(10.3, Some(&Spread { n: 1, ..spread })), "10.3");
        assert_eq!(median_with_interval(5177.0, None), "5177");
    }

    #[test]
    fn figures_keep_three_significant_digits_or_so() {
        assert_eq!(number(4343.2), "4343");
        assert_eq!(number(287_200.0), "287.2k");
        assert_eq!(number(12.54), "12.5");
        assert_eq!(number(0.0834), "0.083");
        assert_eq!(number(f64::NAN), "-");
        let e = Estimate { mean: 2.0, lo: 1.5, hi: 2.5, n: 3 };
        assert_eq!(estimate(&e), "2.00 [1.50, 2.50]");
        assert_eq!(headline(Metric::Iops, &Estimate { mean: 5.0, lo: 5.0, hi: 5.0, n: 1 }), "5.00 IOPS");
    }

    #[test]
    fn a_ratio_straddling_one_says_no_difference() {
        let r = Ratio {
            case: "rdma".into(),
            baseline: "tcp".into(),
            workload: "seq-read-1m".into(),
            metric: Metric::Bandwidth,
            ratio: Estimate { mean: 1.02, lo: 0.95, hi: 1.1, n: 3 },
            verdict: Verdict::NoDifference,
        };
        assert_eq!(ratio_statement(&r), "rdma vs tcp: seq-read-1m 1.02× [0.95, 1.10] — no difference");
        let higher = Ratio { ratio: Estimate { mean: 2.39, lo: 2.31, hi: 2.47, n: 3 }, verdict: Verdict::Higher, ..r };
        assert_eq!(ratio_statement(&higher), "rdma vs tcp: seq-read-1m 2.39× [2.31, 2.47]");
    }
}
