//! report.html: one self-contained page (inline CSS and SVG, no scripts, nothing fetched) with the
//! ratios, grouped bars with error bars per metric, latency percentile curves, efficiency against the
//! wire, CPU, scaling curves, and the tables behind them.

use super::format::{estimate, io_sizes, number, p99, percent, ratio_statement, rdma_settings};
use super::html_escape as esc;
use super::svg::{bar_chart, line_chart, Bar, BarSeries, Line, Scale, PALETTE};
use crate::model::{Cell, Estimate, Metric, Report, Verdict, WorkloadRow};
use crate::summarize::cell_headline;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:24px auto;max-width:1200px;\
color:#222;background:#fff;padding:0 16px}h1{font-size:1.6em;margin-bottom:4px}h2{margin-top:32px;border-bottom:1px solid #ddd;\
padding-bottom:4px}h3{margin:18px 0 4px}.facts{color:#555}.notes{background:#fff6d6;border-left:4px solid #e0a800;padding:8px 16px}\
table{border-collapse:collapse;margin:8px 0;font-size:.9em}td,th{border:1px solid #ddd;padding:4px 8px;text-align:right}\
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}table.text td,table.text th,table.cells td:nth-child(2){text-align:left}.higher{color:#1a7f37}.lower{color:#b3261e}.same{color:#777}\
svg.chart{max-width:960px;display:block;margin:8px 0 20px}svg .grid{stroke:#e5e5e5}svg .tick{font-size:11px;fill:#555}\
svg .axis,svg .legend,svg .group{font-size:12px;fill:#333}svg .err{stroke:#222;stroke-width:1.5;fill:none}\
svg .line{fill:none;stroke-width:2}.unsupported{color:#777;font-style:italic}code{font-size:.95em}";

/// The whole page.
pub fn to_html(report: &Report) -> String {
    let mut s = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style></head><body>\n",
        esc(&report.title)
    );
    s += &format!("<h1>{}</h1>\n<p class=\"facts\">{}<br>{}<br>{} · {:.0} s · {} repetition{} per cell · ratios against <b>{}</b></p>\n",
        esc(&report.title), esc(&report.target), esc(&report.machine), esc(&report.started), report.duration_s,
        report.reps, if report.reps == 1 { "" } else { "s" }, esc(&report.baseline_case));
    if !report.notes.is_empty() {
        s += "<div class=\"notes\"><ul>";
        for n in &report.notes {
            s += &format!("<li>{}</li>", esc(n));
        }
        s += "</ul></div>\n";
    }
    s += &ratios(report);
    s += &headline_charts(report);
    s += &latency_charts(report);
    s += &efficiency(report);
    s += &cpu(report);
    s += &scaling(report);
    s += &tables(report);
    s += "</body></html>\n";
    s
}

/// The colour of a case: its place among the plan's cases.
fn color(report: &Report, case: &str) -> &'static str {
    let i = report.cases.iter().position(|c| c.case.name == case).unwrap_or(0);
    PALETTE[i % PALETTE.len()]
}

/// The cases that ran, in plan order.
fn ran(report: &Report) -> Vec<&str> {
    report.cases.iter().filter(|c| c.unsupported.is_none()).map(|c| c.case.name.as_str()).collect()
}

fn find<'a>(report: &'a Report, case: &str, workload: &str) -> Option<&'a Cell> {
    report.cells.iter().find(|c| c.case == case && c.workload == workload)
}

/// One bar series per case that ran, its value in each workload from `value`.
fn case_series(report: &Report, workloads: &[&WorkloadRow], value: impl Fn(&Cell) -> Option<Bar>) -> Vec<BarSeries> {
    ran(report)
        .iter()
        .map(|case| BarSeries {
            name: case.to_string(),
            color: color(report, case),
            bars: workloads.iter().map(|w| find(report, case, &w.name).and_then(&value)).collect(),
        })
        .collect()
}

fn bar(e: &Estimate) -> Bar {
    Bar { value: e.mean, interval: (e.n > 1).then_some((e.lo, e.hi)) }
}

fn ratios(report: &Report) -> String {
    if report.ratios.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Ratios</h2>\n<ul>");
    for r in &report.ratios {
        let (class, word) = match (r.verdict, r.ratio.n) {
            (_, n) if n < 2 => ("same", "no interval (1 run)"),
            (Verdict::Higher, _) => ("higher", "higher"),
            (Verdict::Lower, _) => ("lower", "lower"),
            (Verdict::NoDifference, _) => ("same", "no difference"),
        };
        let text = ratio_statement(r);
        let text = text.split(" — ").next().unwrap_or(&text);
        s += &format!("<li>{} <span class=\"{class}\">({word}, {})</span></li>", esc(text), r.metric.unit());
    }
    s += "</ul>\n";
    s
}

/// Grouped bars per metric: the workloads with that metric as groups, the cases as bars.
fn headline_charts(report: &Report) -> String {
    let mut s = String::from("<h2>Results</h2>\n<p>Mean of the repetitions; error bars are 95% intervals.</p>\n");
    for metric in [Metric::Bandwidth, Metric::Iops] {
        let workloads: Vec<_> = report.workloads.iter().filter(|w| w.metric == metric).collect();
        if workloads.is_empty() {
            continue;
        }
        let groups: Vec<String> = workloads.iter().map(|w| w.name.clone()).collect();
        let series = case_series(report, &workloads, |c| Some(bar(&cell_headline(metric, c))));
        let title = match metric {
            Metric::Bandwidth => "Bandwidth",
            Metric::Iops => "I/Os per second",
        };
        s += &format!("<h3>{title}</h3>\n");
        s += &bar_chart(&format!("headline-{}", metric.unit()), title, &groups, &series, metric.unit(), false);
    }
    s
}

fn latency_charts(report: &Report) -> String {
    let mut s = String::from(
        "<h2>Completion latency</h2>\n<p>Percentiles of the repetitions' latency histograms merged.</p>\n",
    );
    let ticks: Vec<(f64, String)> = [50.0, 90.0, 99.0, 99.9, 99.99].iter().map(|p| (*p, format!("p{p}"))).collect();
    for w in &report.workloads {
        let lines: Vec<Line> = ran(report)
            .iter()
            .filter_map(|case| {
                let c = find(report, case, &w.name)?;
                let points =
                    c.clat_percentiles_us.iter().filter(|(p, _)| *p >= 50.0).map(|(p, v)| (*p, *v, None)).collect();
                Some(Line { name: case.to_string(), color: color(report, case), points })
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        s += &format!("<h3>{} <small>({})</small></h3>\n", esc(&w.name), esc(&w.description));
        s += &line_chart(
            "latency",
            &w.name,
            &lines,
            (Scale::Nines, &ticks, "percentile"),
            (Scale::Log10, "completion latency, µs"),
        );
    }
    s
}

fn efficiency(report: &Report) -> String {
    let mut s = String::from("<h2>Efficiency against the wire</h2>\n");
    let workloads: Vec<_> = report.workloads.iter().filter(|w| w.metric == Metric::Bandwidth).collect();
    let any = report.cells.iter().any(|c| c.efficiency.is_some());
    if any && !workloads.is_empty() {
        s += "<p>Each case's bandwidth as a fraction of its transport's own streaming bandwidth over as many connections, measured in the same run.</p>\n";
        let groups: Vec<String> = workloads.iter().map(|w| w.name.clone()).collect();
        let series = case_series(report, &workloads, |c| c.efficiency.map(|e| Bar { value: e, interval: None }));
        s += &bar_chart("efficiency", "Efficiency", &groups, &series, "of wire bandwidth", true);
    }
    if report.wire.is_empty() {
        s += "<p>No wire baselines were measured.</p>\n";
    } else {
        s += "<table><tr><th>path</th><th>bandwidth MB/s</th><th>round trip µs</th></tr>";
        for b in &report.wire {
            s += &format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&b.description),
                number(b.bandwidth_mbs),
                number(b.round_trip_us)
            );
        }
        s += "</table>\n";
    }
    s
}

fn cpu(report: &Report) -> String {
    let groups: Vec<String> = report.workloads.iter().map(|w| w.name.clone()).collect();
    if report.cells.is_empty() {
        return String::new();
    }
    let workloads: Vec<&WorkloadRow> = report.workloads.iter().collect();
    let series = case_series(report, &workloads, |c| Some(bar(&c.host_cpu_per_gb)));
    let mut s = String::from(
        "<h2>CPU</h2>\n<p>Host-wide CPU-seconds per GB moved: all processes, kernel threads, irq and softirq.</p>\n",
    );
    s += &bar_chart("cpu", "CPU per GB", &groups, &series, "CPU-s per GB", false);
    s
}

fn scaling(report: &Report) -> String {
    if report.sweeps.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Scaling</h2>\n");
    for sweep in &report.sweeps {
        let mut xs: Vec<(f64, String)> = sweep.points.iter().map(|p| (p.x, p.label.clone())).collect();
        xs.sort_by(|a, b| a.0.total_cmp(&b.0));
        xs.dedup_by(|a, b| a.0 == b.0);
        let pow2 = xs.iter().all(|(x, _)| *x >= 1.0 && (*x as u64).is_power_of_two());
        let lines: Vec<Line> = ran(report)
            .iter()
            .filter_map(|case| {
                let points: Vec<_> = sweep
                    .points
                    .iter()
                    .filter(|p| p.case == *case)
                    .map(|p| (p.x, p.value.mean, (p.value.n > 1).then_some((p.value.lo, p.value.hi))))
                    .collect();
                (!points.is_empty()).then(|| Line { name: case.to_string(), color: color(report, case), points })
            })
            .collect();
        s += &format!("<h3>{} over {}</h3>\n", esc(&sweep.workload), esc(&sweep.parameter));
        let scale = if pow2 { Scale::Log2 } else { Scale::Linear };
        s += &line_chart(
            "scaling",
            &sweep.workload,
            &lines,
            (scale, &xs, &sweep.parameter),
            (Scale::Linear, sweep.metric.unit()),
        );
    }
    s
}

fn tables(report: &Report) -> String {
    let mut s = String::from("<h2>Test cases</h2>\n<table class=\"text\"><tr><th>case</th><th>vers</th><th>proto</th><th>nconnect</th><th>remoteports</th><th>rsize/wsize</th><th>credits/inline</th><th>mount options</th><th>transport</th></tr>");
    for c in &report.cases {
        let (io, rdma) = (io_sizes(&c.case), rdma_settings(&c.case));
        let transport = match &c.unsupported {
            Some(why) => format!("<span class=\"unsupported\">{}</span>", esc(why)),
            None => esc(&c.transport),
        };
        s += &format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{io}</td><td>{rdma}</td><td><code>{}</code></td><td>{transport}</td></tr>",
            esc(&c.case.name), esc(&c.case.vers), esc(&c.case.proto), c.case.nconnect, esc(c.case.remoteports.as_deref().unwrap_or("-")), esc(&c.mount_options)
        );
    }
    s += "</table>\n<h2>Cells</h2>\n<table class=\"cells\"><tr><th>case</th><th>workload</th><th>MB/s [95% CI]</th><th>IOPS [95% CI]</th><th>clat mean µs</th><th>p99 µs</th><th>host CPU-s/GB</th><th>host CPU-s per 10⁶ I/O</th><th>client CPU-s/GB</th><th>server CPU-s/GB</th><th>of wire</th><th>fio JSON</th></tr>";
    for c in &report.cells {
        let p99 = p99(c);
        let links: Vec<String> =
            c.files.iter().enumerate().map(|(i, f)| format!("<a href=\"{}\">{}</a>", esc(f), i + 1)).collect();
        s += &format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&c.case), esc(&c.workload), estimate(&c.bandwidth_mbs), estimate(&c.iops), number(c.clat_mean_us.mean), number(p99),
            estimate(&c.host_cpu_per_gb), number(c.host_cpu_per_mio.mean), number(c.client_cpu_per_gb.mean),
            c.server_cpu_per_gb.as_ref().map_or("-".into(), |e| number(e.mean)), percent(c.efficiency), links.join(" ")
        );
    }
    s += "</table>\n";
    s
}
