//! report.html: one self-contained page — inline CSS and SVG, no scripts, nothing fetched — with the facts
//! of the run and its notes, the ratios against the baseline, a bar chart per workload, latency percentile
//! curves, efficiency against the wire, CPU per GB, scaling curves, and the tables behind them. Every text
//! taken from the report is escaped. The charts are drawn by [`super::svg`]; the sections with charts are
//! in `html/charts.rs`.

mod charts;

use super::format::{
    estimate, io_sizes, kernel_counters_line, latency_statement, negotiation_line, not_measured, number, p99, percent,
    ratio, rdma_settings,
};
use super::html_escape as esc;
use super::svg::PALETTE;
use crate::results::{Cell, Report, Verdict};
use std::fmt::Write;

const STYLE: &str = "*{box-sizing:border-box}\
body{margin:0;background:#fff;color:#1f2328;line-height:1.45;font-family:system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans','DejaVu Sans',Arial,sans-serif}\
main{max-width:1200px;margin:0 auto;padding:24px 16px 40px}\
h1{font-size:1.7em;margin:0 0 10px}h2{font-size:1.3em;margin:34px 0 8px;padding-bottom:4px;border-bottom:1px solid #d8dee4}\
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 14px}.facts dt{color:#57606a}.facts dd{margin:0}\
.notes{background:#fff8db;border:1px solid #f0d36b;border-left:6px solid #e0a800;border-radius:4px;padding:10px 16px;margin:14px 0}\
.notes strong{display:block;margin-bottom:2px}.notes ul{margin:0;padding-left:20px}.notes li{margin:2px 0}\
nav{font-size:.9em;margin:10px 0}nav a{color:#0969da;text-decoration:none;margin-right:14px}\
.lead{color:#57606a;margin:4px 0 12px}.muted{color:#6e7781}\
ul.ratios{list-style:none;padding:0;margin:0}ul.ratios li{padding:2px 0}\
.num{font-variant-numeric:tabular-nums;font-weight:600}\
.v{display:inline-block;padding:0 8px;border-radius:10px;font-size:.85em;font-weight:600;margin-left:4px}\
.v.higher{background:#dafbe1;color:#116329}.v.lower{background:#ffebe9;color:#a40e26}.v.same{background:#eaeef2;color:#57606a}\
.charts{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:8px 24px}\
figure{margin:6px 0 14px;min-width:0}figcaption{font-weight:600;margin-bottom:2px}figcaption span{font-weight:400;color:#57606a}\
svg.chart{display:block;width:100%;height:auto;overflow:visible}\
svg .grid{stroke:#e8e8e8}svg .base{stroke:#8c959f}svg text{font-family:inherit}\
svg .tick{font-size:11px;fill:#57606a}svg .axis,svg .name,svg .legend{font-size:12px;fill:#1f2328}\
svg .notrun{fill:#6e7781;font-style:italic}svg .value{font-size:11px;fill:#1f2328}\
svg .err{stroke:#1f2328;stroke-width:1.4;fill:none}svg .line{fill:none;stroke-width:2.2}\
.scroll{overflow-x:auto}table{border-collapse:collapse;margin:6px 0 14px;font-size:13px}\
th,td{border:1px solid #d8dee4;padding:4px 8px;text-align:left;vertical-align:top}th{background:#f6f8fa;font-weight:600}\
td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}td.k{white-space:nowrap}tr.first td{border-top:2px solid #afb8c1}tr.unsupported td{color:#6e7781;background:#fafbfc}\
.reason{font-style:italic}.sw{display:inline-block;width:10px;height:10px;margin-right:6px;vertical-align:baseline}\
.sw.none{border:1px solid #999;background:repeating-linear-gradient(45deg,#fff 0 2px,#bbb 2px 3px)}\
code{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:12px}.tag{font-size:.8em;color:#57606a;border:1px solid #d0d7de;border-radius:8px;padding:0 6px;margin-left:6px}\
footer{margin-top:28px;color:#6e7781;font-size:.85em}";

/// The whole page.
pub fn to_html(report: &Report) -> String {
    let title = if report.title.is_empty() { "nfsbench compare" } else { &report.title };
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>{}</title><style>{STYLE}</style></head><body><main>\n",
        esc(title)
    );
    header(&mut s, report, title);
    ratios(&mut s, report);
    charts::results(&mut s, report);
    charts::latency(&mut s, report);
    charts::efficiency(&mut s, report);
    charts::cpu(&mut s, report);
    charts::scaling(&mut s, report);
    cases_table(&mut s, report);
    cells_table(&mut s, report);
    s += "<footer>Written by nfsbench compare. Each cell's fio JSON is linked from the last table.</footer>\n</main></body></html>\n";
    s
}

/// The colour of a case: its place among the plan's cases (the same in every chart and table).
fn color(report: &Report, case: &str) -> &'static str {
    let i = report.cases.iter().position(|c| c.case.name == case).unwrap_or(0);
    PALETTE[i % PALETTE.len()]
}

/// The cases that ran, in plan order.
fn ran(report: &Report) -> Vec<&str> {
    report.cases.iter().filter(|c| not_measured(c).is_none()).map(|c| c.case.name.as_str()).collect()
}

/// The cases that did not run or failed, in plan order.
fn not_run(report: &Report) -> Vec<&str> {
    report.cases.iter().filter(|c| not_measured(c).is_some()).map(|c| c.case.name.as_str()).collect()
}

fn find<'a>(report: &'a Report, case: &str, workload: &str) -> Option<&'a Cell> {
    report.cells.iter().find(|c| c.case == case && c.workload == workload)
}

/// "42.3 s", "2 min 14 s", "1 h 05 min".
fn duration(s: f64) -> String {
    if !(s.is_finite() && s >= 0.0) {
        return "-".into();
    }
    let whole = s.round() as u64;
    match whole {
        _ if s < 60.0 => format!("{s:.1} s"),
        0..=3599 => format!("{} min {} s", whole / 60, whole % 60),
        _ => format!("{} h {:02} min", whole / 3600, whole % 3600 / 60),
    }
}

fn header(s: &mut String, report: &Report, title: &str) {
    let _ = write!(s, "<h1>{}</h1>\n<dl class=\"facts\">", esc(title));
    let reps = match report.reps {
        1 => "1 per cell: no intervals".to_string(),
        n => format!(
            "{n} per cell, interleaved; ratios pair repetition k of each case with repetition k of the baseline"
        ),
    };
    let facts = [
        ("Started", esc(&report.started)),
        ("Duration", duration(report.duration_s)),
        ("Target", esc(&report.target)),
        ("Machine", esc(&report.machine)),
        ("Repetitions", reps),
        ("Baseline", format!("<b>{}</b>", esc(&report.baseline_case))),
    ];
    for (term, value) in facts {
        let _ = write!(s, "<dt>{term}</dt><dd>{value}</dd>");
    }
    s.push_str("</dl>\n");
    if !report.notes.is_empty() {
        s.push_str("<div class=\"notes\"><strong>Read before the figures</strong><ul>");
        for n in &report.notes {
            let _ = write!(s, "<li>{}</li>", esc(n));
        }
        s.push_str("</ul></div>\n");
    }
    let mut nav = vec![("ratios", "Ratios"), ("results", "Results"), ("latency", "Latency")];
    nav.extend([("efficiency", "Efficiency"), ("cpu", "CPU")]);
    if !report.sweeps.is_empty() {
        nav.push(("scaling", "Scaling"));
    }
    nav.extend([("cases", "Test cases"), ("cells", "Cells")]);
    s.push_str("<nav>");
    for (id, name) in nav {
        let _ = write!(s, "<a href=\"#{id}\">{name}</a>");
    }
    s.push_str("</nav>\n");
}

/// One sentence per ratio: "rdma vs tcp — seq-read-1m: 2.39× [2.31, 2.47] higher".
fn ratios(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"ratios\">Ratios</h2>\n");
    if report.ratios.is_empty() {
        s.push_str("<p class=\"muted\">No ratios: no case ran beside the baseline.</p>\n");
        return;
    }
    let _ = write!(
        s,
        "<p class=\"lead\">Each case's headline figure against <b>{}</b>'s, with its 95% interval; \"no difference\" when the interval contains 1.</p>\n<ul class=\"ratios\">",
        esc(&report.baseline_case)
    );
    for r in &report.ratios {
        let (class, word) = match (r.verdict, r.ratio.n) {
            (_, n) if n < 2 => ("same", "no interval (1 run)"),
            (Verdict::Higher, _) => ("higher", "higher"),
            (Verdict::Lower, _) => ("lower", "lower"),
            (Verdict::NoDifference, _) => ("same", "no difference"),
        };
        let _ = write!(
            s,
            "<li><span class=\"sw\" style=\"background:{}\"></span><b>{}</b> vs {} — {} <span class=\"muted\">({})</span>: <span class=\"num\">{}</span> <span class=\"v {class}\">{word}</span></li>",
            color(report, &r.case),
            esc(&r.case),
            esc(&r.baseline),
            esc(&r.workload),
            r.metric.unit(),
            ratio(&r.ratio)
        );
    }
    s.push_str("</ul>\n");
    if !report.latency_ratios.is_empty() {
        s.push_str("<p class=\"lead\">Completion latency against the baseline's: its mean and its standard deviation within a repetition (lower is better; the consistency RDMA is expected to buy).</p>\n<ul class=\"ratios\">");
        for r in &report.latency_ratios {
            let _ = write!(
                s,
                "<li><span class=\"sw\" style=\"background:{}\"></span>{}</li>",
                color(report, &r.case),
                esc(&latency_statement(r))
            );
        }
        s.push_str("</ul>\n");
    }
}

fn cases_table(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"cases\">Test cases</h2>\n<div class=\"scroll\"><table><tr><th>case</th><th>vers</th><th>proto</th><th>nconnect</th><th>remoteports</th><th>rsize/wsize</th><th>credits/inline</th><th>engine</th><th>mount options (asked)</th><th>transport</th></tr>");
    for row in &report.cases {
        let c = &row.case;
        let (class, swatch, transport) = match not_measured(row) {
            Some(why) => (
                " class=\"unsupported\"",
                "<span class=\"sw none\"></span>".to_string(),
                format!("<span class=\"reason\">{}</span>", esc(&why)),
            ),
            None => (
                "",
                format!("<span class=\"sw\" style=\"background:{}\"></span>", color(report, &c.name)),
                match &row.negotiation {
                    Some(n) if !n.differs.is_empty() => {
                        format!(
                            "{}<br><span class=\"reason\">{}</span>",
                            esc(&row.transport),
                            esc(&negotiation_line(n))
                        )
                    }
                    Some(n) => {
                        format!("{}<br><span class=\"muted\">{}</span>", esc(&row.transport), esc(&negotiation_line(n)))
                    }
                    None => esc(&row.transport),
                },
            ),
        };
        let _ = write!(
            s,
            "<tr{class}><td class=\"k\">{swatch}{}{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{transport}</td></tr>",
            esc(&c.name),
            if c.name == report.baseline_case { "<span class=\"tag\">baseline</span>" } else { "" },
            esc(&c.vers),
            c.proto,
            c.nconnect,
            esc(c.remoteports.as_deref().unwrap_or("-")),
            esc(&io_sizes(c)),
            esc(&rdma_settings(c)),
            c.engine,
            esc(&row.mount_options).replace(',', ",<wbr>")
        );
    }
    s.push_str("</table></div>\n");
    let kernel: Vec<&Cell> = report.cells.iter().filter(|c| c.kernel.is_some()).collect();
    if !kernel.is_empty() {
        s.push_str("<p class=\"lead\">The kernel clients' own counters over the measured windows (NFS: /proc/self/mountstats; block: /sys/block/DEV/stat):</p>\n<div class=\"scroll\"><table><tr><th>case</th><th>workload</th><th>RPC statistics</th></tr>");
        for c in kernel {
            if let Some(k) = &c.kernel {
                let _ = write!(
                    s,
                    "<tr><td class=\"k\">{}</td><td class=\"k\">{}</td><td>{}</td></tr>",
                    esc(&c.case),
                    esc(&c.workload),
                    esc(&kernel_counters_line(k))
                );
            }
        }
        s.push_str("</table></div>\n");
    }
}

fn cells_table(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"cells\">Cells</h2>\n");
    if report.cells.is_empty() {
        s.push_str("<p class=\"muted\">No cells: nothing ran.</p>\n");
        return;
    }
    s.push_str("<p class=\"lead\">Means with 95% intervals; CPU in CPU-seconds (host-wide, the client process, the server process) per GB moved.</p>\n<div class=\"scroll\"><table><tr><th>case</th><th>workload</th><th>MB/s [95% CI]</th><th>IOPS [95% CI]</th><th>clat mean µs</th><th>clat stdev µs</th><th>p99 µs</th><th>host CPU-s/GB [95% CI]</th><th>host CPU-s per 10⁶ I/O</th><th>client CPU-s/GB</th><th>server CPU-s/GB</th><th>of wire</th><th>fio JSON</th></tr>");
    // Workload by workload, cases in plan order.
    let place = |c: &Cell| {
        let w = report.workloads.iter().position(|w| w.name == c.workload).unwrap_or(usize::MAX);
        (w, report.cases.iter().position(|k| k.case.name == c.case).unwrap_or(usize::MAX))
    };
    let mut cells: Vec<&Cell> = report.cells.iter().collect();
    cells.sort_by_key(|c| place(c));
    let mut last = None;
    for c in cells {
        let next = last.replace(&c.workload).is_some_and(|w| w != &c.workload);
        let first = if next { " class=\"first\"" } else { "" };
        let links: Vec<String> = c
            .files
            .iter()
            .enumerate()
            .map(|(i, f)| format!("<a href=\"{}\" title=\"{}\">{}</a>", esc(f), esc(f), i + 1))
            .collect();
        let num = |v: String| format!("<td class=\"n\">{v}</td>");
        let _ = write!(
            s,
            "<tr{first}><td class=\"k\"><span class=\"sw\" style=\"background:{}\"></span>{}</td><td class=\"k\">{}</td>{}{}{}{}{}{}{}{}{}{}<td>{}</td></tr>",
            color(report, &c.case),
            esc(&c.case),
            esc(&c.workload),
            num(estimate(&c.bandwidth_mbs)),
            num(estimate(&c.iops)),
            num(number(c.clat_mean_us.mean)),
            num(number(c.clat_stdev_us.mean)),
            num(number(p99(c))),
            num(estimate(&c.host_cpu_per_gb)),
            num(number(c.host_cpu_per_mio.mean)),
            num(number(c.client_cpu_per_gb.mean)),
            num(c.server_cpu_per_gb.as_ref().map_or("-".into(), |e| number(e.mean))),
            num(percent(c.efficiency)),
            links.join(" ")
        );
    }
    s.push_str("</table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(42.26), "42.3 s");
        assert_eq!(duration(134.0), "2 min 14 s");
        assert_eq!(duration(3900.0), "1 h 05 min");
        assert_eq!(duration(f64::NAN), "-");
    }
}
