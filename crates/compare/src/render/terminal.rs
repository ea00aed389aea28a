//! The terminal summary: one table per workload (cases as rows) and the ratio statements.

use super::format::{
    estimate, headline, kernel_counters_line, latency_statement, median_with_interval, negotiation_line, not_measured,
    number, p99, percent, ratio_statement, vs_baseline,
};
use crate::results::Report;
use crate::summarize::cell_headline;

/// The table and statements as printed after a comparison.
pub fn to_terminal(report: &Report) -> String {
    let reps = if report.reps == 1 { "1 repetition".to_string() } else { format!("{} repetitions", report.reps) };
    let mut s = format!("{} — {} — {reps}\n", report.title, report.target);
    let cw = report.cases.iter().map(|c| c.case.name.chars().count()).max().unwrap_or(4).max(16);
    for w in &report.workloads {
        let cells: Vec<_> = report.cells.iter().filter(|c| c.workload == w.name).collect();
        if cells.is_empty() {
            continue;
        }
        s.push_str(&format!("\n{} ({})\n", w.name, w.description));
        let unit = format!("{} [95% CI]", w.metric.unit());
        let vs_header = format!("vs {}", report.baseline_case);
        s.push_str(&format!(
            "  {:<cw$} {:<30} {:>10} {:>10} {:>10} {:>14} {:>7}  {}\n",
            "case", unit, "clat µs", "stdev µs", "p99 µs", "host CPU-s/GB", "of wire", vs_header
        ));
        for c in cells {
            let p99 = p99(c);
            let vs = vs_baseline(report, &c.case, &w.name);
            s.push_str(&format!(
                "  {:<cw$} {:<30} {:>10} {:>10} {:>10} {:>14} {:>7}  {vs}\n",
                c.case,
                headline(w.metric, &cell_headline(w.metric, c)),
                number(c.clat_mean_us.mean),
                number(c.clat_stdev_us.mean),
                number(p99),
                number(c.host_cpu_per_gb.mean),
                percent(c.efficiency),
            ));
        }
    }
    let unmeasured: Vec<_> = report.cases.iter().filter_map(|c| Some((c, not_measured(c)?))).collect();
    for (c, why) in &unmeasured {
        s.push_str(&format!("\n{}: {why}", c.case.name));
    }
    if !unmeasured.is_empty() {
        s.push('\n');
    }
    let kernel: Vec<_> = report.cases.iter().filter(|c| c.case.is_kernel()).collect();
    if !kernel.is_empty() {
        s.push_str("\nkernel clients (mount.nfs, mount.cifs, nvme connect, iscsiadm), asked vs negotiated:\n");
        for c in kernel {
            s.push_str(&format!("  {:<cw$} asked {}\n", c.case.name, c.mount_options));
            if let Some(n) = &c.negotiation {
                s.push_str(&format!("  {:<cw$} {}\n", "", negotiation_line(n)));
            }
            for cell in report.cells.iter().filter(|x| x.case == c.case.name) {
                if let Some(k) = &cell.kernel {
                    s.push_str(&format!("  {:<cw$} {}: {}\n", "", cell.workload, kernel_counters_line(k)));
                }
            }
        }
    }
    if !report.wire.is_empty() {
        s.push_str("\nwire baselines (same paths, same run; medians over the repetitions [interval]):\n");
        for b in &report.wire {
            s.push_str(&format!(
                "  {:<72} {:>8} MB/s   round trip {} µs\n",
                b.description,
                median_with_interval(b.bandwidth_mbs, b.bandwidth.as_ref()),
                median_with_interval(b.round_trip_us, b.round_trip.as_ref())
            ));
        }
    }
    for sweep in &report.sweeps {
        s.push_str(&format!("\nsweep of {} on {} ({}):\n", sweep.parameter, sweep.workload, sweep.metric.unit()));
        for p in &sweep.points {
            s.push_str(&format!("  {:<cw$} {:>8} {}", p.case, p.label, estimate(&p.value)));
            if let Some(m) = &p.model {
                let flag =
                    if m.flagged { format!("  ← {:.2}× off the model", m.disagreement) } else { String::new() };
                s.push_str(&format!("   model {} ({}){flag}", number(m.value), m.limit));
            }
            s.push('\n');
        }
    }
    if !report.ratios.is_empty() {
        s.push('\n');
        for r in &report.ratios {
            s.push_str(&ratio_statement(r));
            s.push('\n');
        }
        for r in &report.latency_ratios {
            s.push_str(&latency_statement(r));
            s.push('\n');
        }
    }
    for n in &report.notes {
        s.push_str(&format!("\nnote: {n}"));
    }
    if !report.notes.is_empty() {
        s.push('\n');
    }
    s
}
