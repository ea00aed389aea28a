//! results.md: the comparison as Markdown, pasteable into a blog post or an issue.

use super::format::{
    estimate, io_sizes, kernel_counters_line, latency_statement, median_with_interval, not_measured, number, p99,
    percent, ratio_statement, vs_baseline,
};
use crate::results::Report;
use crate::summarize::cell_headline;

/// The whole report in Markdown.
pub fn to_markdown(report: &Report) -> String {
    let mut s = format!("# {}\n\n", report.title);
    s.push_str(&format!(
        "- Target: {}\n- Machine: {}\n- Started: {} ({:.0} s)\n- Repetitions per cell: {}; intervals are 95% \
         (Student's t); ratios pair repetition k of each case with repetition k of `{}`\n",
        report.target, report.machine, report.started, report.duration_s, report.reps, report.baseline_case
    ));
    for n in &report.notes {
        s.push_str(&format!("- **Note:** {n}\n"));
    }
    if !report.ratios.is_empty() {
        s.push_str("\n## Ratios\n\n");
        for r in &report.ratios {
            s.push_str(&format!("- {}\n", ratio_statement(r)));
        }
        for r in &report.latency_ratios {
            s.push_str(&format!("- {}\n", latency_statement(r)));
        }
    }
    s.push_str("\n## Results\n");
    for w in &report.workloads {
        s.push_str(&format!("\n### {} — {}\n\n", w.name, w.description));
        s.push_str(&format!(
            "| case | {} [95% CI] | clat mean µs | clat stdev µs | p99 µs | host CPU-s/GB | host CPU-s per 10⁶ I/O | client CPU-s/GB | \
             server CPU-s/GB | of wire | vs {} |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
            w.metric.unit(),
            report.baseline_case
        ));
        for c in report.cells.iter().filter(|c| c.workload == w.name) {
            let p99 = p99(c);
            let vs = vs_baseline(report, &c.case, &w.name);
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {vs} |\n",
                c.case,
                estimate(&cell_headline(w.metric, c)),
                number(c.clat_mean_us.mean),
                number(c.clat_stdev_us.mean),
                number(p99),
                estimate(&c.host_cpu_per_gb),
                number(c.host_cpu_per_mio.mean),
                number(c.client_cpu_per_gb.mean),
                c.server_cpu_per_gb.as_ref().map_or("-".into(), |e| number(e.mean)),
                percent(c.efficiency),
            ));
        }
    }
    s.push_str("\n## Test cases\n\n| case | vers | proto | nconnect | remoteports | rsize/wsize | mount options | transport |\n");
    s.push_str("|---|---|---|---|---|---|---|---|\n");
    for c in &report.cases {
        let io = io_sizes(&c.case);
        let transport = not_measured(c).unwrap_or_else(|| c.transport.clone());
        if c.case.kind != crate::plan::CaseKind::Nfs {
            // An SMB or block case has no NFS version or connections: its kind stands in the proto column.
            s.push_str(&format!(
                "| {} | - | {} | - | - | - | `{}` | {transport} |\n",
                c.case.name, c.case.kind, c.mount_options
            ));
            continue;
        }
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {io} | `{}` | {transport} |\n",
            c.case.name,
            c.case.vers,
            c.case.proto,
            c.case.nconnect,
            c.case.remoteports.as_deref().unwrap_or("-"),
            c.mount_options
        ));
    }
    let kernel: Vec<_> = report.cases.iter().filter(|c| c.case.is_kernel()).collect();
    if !kernel.is_empty() {
        s.push_str(
            "\n## Kernel clients: asked vs negotiated\n\nEach NFS case was mounted with mount.nfs, each SMB case with \
             mount.cifs, each block case attached by the kernel's initiator (nvme connect, iscsiadm); the negotiated \
             options are the kernel's own (/proc/self/mountstats, /proc/fs/cifs, sysfs).\n\n| case | asked | \
             negotiated | transports | \
             differs from asked |\n|---|---|---|---|---|\n",
        );
        for c in &kernel {
            let (negotiated, transports, differs) = match &c.negotiation {
                Some(n) => (
                    format!("`{}`", n.negotiated),
                    n.transports.to_string(),
                    if n.differs.is_empty() { "no".to_string() } else { format!("**{}**", n.differs.join("; ")) },
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            s.push_str(&format!(
                "| {} | `{}` | {negotiated} | {transports} | {differs} |\n",
                c.case.name, c.mount_options
            ));
        }
        s.push_str("\n| case | workload | the kernel client's counters over the measured windows |\n|---|---|---|\n");
        for c in report.cells.iter().filter(|c| c.kernel.is_some()) {
            if let Some(k) = &c.kernel {
                s.push_str(&format!("| {} | {} | {} |\n", c.case, c.workload, kernel_counters_line(k)));
            }
        }
    }
    if !report.wire.is_empty() {
        s.push_str(
            "\n## Wire baselines\n\nMedians over the repetitions, with the interval of the median (95% from 6 \
             repetitions on, the whole range below).\n\n| path | bandwidth MB/s | round trip µs |\n|---|---|---|\n",
        );
        for b in &report.wire {
            s.push_str(&format!(
                "| {} | {} | {} |\n",
                b.description,
                median_with_interval(b.bandwidth_mbs, b.bandwidth.as_ref()),
                median_with_interval(b.round_trip_us, b.round_trip.as_ref())
            ));
        }
    }
    for sweep in &report.sweeps {
        s.push_str(&format!(
            "\n## Sweep of {} on {} ({})\n\n| case | {} | {} [95% CI] |\n|---|---|---|\n",
            sweep.parameter,
            sweep.workload,
            sweep.metric.unit(),
            sweep.parameter,
            sweep.metric.unit()
        ));
        for p in &sweep.points {
            s.push_str(&format!("| {} | {} | {} |\n", p.case, p.label, estimate(&p.value)));
        }
    }
    s
}
