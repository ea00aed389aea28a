//! The report's sections with charts: headline bars per workload, latency percentile curves, efficiency
//! against the wire (with the wire baselines), CPU per GB, and scaling sweeps.

use super::{color, esc, find, not_run, ran};
use crate::render::format::median_with_interval;
use crate::render::svg::{bar_chart, line_chart, Bar, BarChart, BarSeries, Line, LineChart, Scale};
use crate::results::{Cell, Estimate, Metric, Report, WorkloadRow};
use crate::summarize::cell_headline;
use std::fmt::Write;

/// View box widths: a chart in the two-column grid, and one across the page.
const HALF: f64 = 572.0;
const WIDE: f64 = 1168.0;

fn bar(e: &Estimate) -> Bar {
    Bar { value: e.mean, interval: (e.n > 1).then_some((e.lo, e.hi)) }
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

fn caption(s: &mut String, w: &WorkloadRow, unit: &str) {
    let _ = write!(
        s,
        "<figure><figcaption>{} <span>— {} · {}</span></figcaption>",
        esc(&w.name),
        esc(&w.description),
        esc(unit)
    );
}

/// Section 3: a chart per workload, a bar per case that ran (its headline mean with the 95% interval).
pub(super) fn results(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"results\">Results</h2>\n");
    if report.workloads.is_empty() {
        s.push_str("<p class=\"muted\">No workloads.</p>\n");
        return;
    }
    let lead =
        if report.reps > 1 { "error bars are 95% intervals (Student's t)" } else { "one repetition: no interval" };
    let _ = write!(s, "<p class=\"lead\">Mean of the repetitions per case; {lead}.</p>\n<div class=\"charts\">");
    let not_run = not_run(report);
    for w in &report.workloads {
        caption(s, w, w.metric.unit());
        if !report.cells.iter().any(|c| c.workload == w.name) {
            s.push_str("<p class=\"muted\">No case produced a result.</p></figure>");
            continue;
        }
        let series = case_series(report, &[w], |c| Some(bar(&cell_headline(w.metric, c))));
        s.push_str(&bar_chart(&BarChart {
            kind: "headline",
            title: &w.name,
            width: HALF,
            groups: std::slice::from_ref(&w.name),
            series: &series,
            y_label: w.metric.unit(),
            percent: false,
            not_run: &not_run,
        }));
        s.push_str("</figure>");
    }
    s.push_str("</div>\n");
}

/// Section 4: completion-latency percentiles per workload, a curve per case, on a nines axis.
pub(super) fn latency(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"latency\">Completion latency</h2>\n<p class=\"lead\">Percentiles of fio's completion latency, the repetitions' histograms merged; percentiles on a \"nines\" axis, µs on a log axis.</p>\n");
    let ticks: Vec<(f64, String)> = [50.0, 90.0, 99.0, 99.9, 99.99].iter().map(|p| (*p, format!("p{p}"))).collect();
    let mut any = false;
    for w in &report.workloads {
        let lines: Vec<Line> = ran(report)
            .iter()
            .filter_map(|case| {
                let c = find(report, case, &w.name)?;
                let points: Vec<_> = c
                    .clat_percentiles_us
                    .iter()
                    .filter(|(p, v)| *p >= 50.0 && p.is_finite() && v.is_finite())
                    .map(|(p, v)| (*p, *v, None))
                    .collect();
                (!points.is_empty()).then(|| Line {
                    name: case.to_string(),
                    color: color(report, case),
                    points,
                    dashed: false,
                })
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        s.push_str(if any { "" } else { "<div class=\"charts\">" });
        any = true;
        caption(s, w, "µs");
        s.push_str(&line_chart(&LineChart {
            kind: "latency",
            title: &w.name,
            width: HALF,
            lines: &lines,
            x_scale: Scale::Nines,
            x_ticks: &ticks,
            x_label: "percentile",
            y_scale: Scale::Log10,
            y_label: "completion latency, µs",
        }));
        s.push_str("</figure>");
    }
    s.push_str(if any { "</div>\n" } else { "<p class=\"muted\">No latency percentiles were recorded.</p>\n" });
}

/// Section 5: each case's bandwidth as a share of its wire, beside the wire baselines.
pub(super) fn efficiency(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"efficiency\">Efficiency against the wire</h2>\n<p class=\"lead\">Each case's mean bandwidth as a share of its transport's own streaming bandwidth over as many connections, measured in the same run.</p>\n<div class=\"charts\"><figure><figcaption>Bandwidth workloads <span>— share of the wire</span></figcaption>");
    let workloads: Vec<&WorkloadRow> = report.workloads.iter().filter(|w| w.metric == Metric::Bandwidth).collect();
    let shown = |c: &Cell| c.efficiency.filter(|e| e.is_finite()).map(|e| Bar { value: e, interval: None });
    if !workloads.is_empty() && report.cells.iter().any(|c| shown(c).is_some()) {
        let groups: Vec<String> = workloads.iter().map(|w| w.name.clone()).collect();
        let series = case_series(report, &workloads, shown);
        s.push_str(&bar_chart(&BarChart {
            kind: "efficiency",
            title: "Efficiency against the wire",
            width: HALF,
            groups: &groups,
            series: &series,
            y_label: "of wire bandwidth",
            percent: true,
            not_run: &not_run(report),
        }));
    } else {
        s.push_str("<p class=\"muted\">No efficiency: no wire baseline matched a bandwidth workload's case.</p>");
    }
    s.push_str(
        "</figure><figure><figcaption>Wire baselines <span>— the transports alone, same run</span></figcaption>",
    );
    if report.wire.is_empty() {
        s.push_str("<p class=\"muted\">No wire baselines were measured.</p></figure></div>\n");
        return;
    }
    s.push_str("<table><tr><th>proto</th><th>conns</th><th>path</th><th>MB/s (median [interval])</th><th>round trip µs (median [interval])</th></tr>");
    for b in &report.wire {
        let _ = write!(
            s,
            "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            b.proto,
            b.connections,
            esc(&b.description),
            median_with_interval(b.bandwidth_mbs, b.bandwidth.as_ref()),
            median_with_interval(b.round_trip_us, b.round_trip.as_ref())
        );
    }
    s.push_str("</table></figure></div>\n");
}

/// Section 6: host-wide CPU per GB, per workload and case.
pub(super) fn cpu(s: &mut String, report: &Report) {
    s.push_str("<h2 id=\"cpu\">CPU</h2>\n");
    if report.cells.is_empty() || report.workloads.is_empty() {
        s.push_str("<p class=\"muted\">No CPU figures: nothing ran.</p>\n");
        return;
    }
    s.push_str("<p class=\"lead\">CPU-seconds per GB moved, host-wide: all processes, kernel threads, irq and softirq (client and server share this host when the server is embedded).</p>\n");
    let workloads: Vec<&WorkloadRow> = report.workloads.iter().collect();
    let groups: Vec<String> = workloads.iter().map(|w| w.name.clone()).collect();
    let series = case_series(report, &workloads, |c| Some(bar(&c.host_cpu_per_gb)));
    s.push_str(&bar_chart(&BarChart {
        kind: "cpu",
        title: "Host CPU per GB",
        width: WIDE,
        groups: &groups,
        series: &series,
        y_label: "host CPU-s per GB",
        percent: false,
        not_run: &not_run(report),
    }));
}

/// One line per case that ran of `sweep`'s points that `pick` gives a point for: the measurements, or
/// (`model`) `nfsbench model`'s curve, dashed and named "CASE model".
fn sweep_lines(report: &Report, sweep: &crate::results::Sweep, model: bool) -> Vec<Line> {
    ran(report)
        .iter()
        .filter_map(|case| {
            let mut points: Vec<_> = sweep
                .points
                .iter()
                .filter(|p| p.case == *case)
                .filter_map(|p| match (model, &p.model) {
                    (true, Some(m)) => Some((p.x, m.value, None)),
                    (true, None) => None,
                    (false, _) => Some((p.x, p.value.mean, (p.value.n > 1).then_some((p.value.lo, p.value.hi)))),
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            (!points.is_empty()).then(|| Line {
                name: if model { format!("{case} model") } else { case.to_string() },
                color: color(report, case),
                points,
                dashed: model,
            })
        })
        .collect()
}

/// Section 7: a line chart per sweep, x on a log2 axis when its values are powers of two.
pub(super) fn scaling(s: &mut String, report: &Report) {
    if report.sweeps.is_empty() {
        return;
    }
    s.push_str("<h2 id=\"scaling\">Scaling</h2>\n<p class=\"lead\">The headline figure as one parameter varies; error bars are 95% intervals.</p>\n<div class=\"charts\">");
    for sweep in &report.sweeps {
        let mut xs: Vec<(f64, String)> =
            sweep.points.iter().filter(|p| p.x.is_finite()).map(|p| (p.x, p.label.clone())).collect();
        xs.sort_by(|a, b| a.0.total_cmp(&b.0));
        xs.dedup_by(|a, b| a.0 == b.0);
        let pow2 = xs.iter().all(|(x, _)| *x >= 1.0 && x.fract() == 0.0 && (*x as u64).is_power_of_two());
        let mut lines = sweep_lines(report, sweep, false);
        lines.extend(sweep_lines(report, sweep, true));
        let _ = write!(
            s,
            "<figure><figcaption>{} <span>— over {} · {}</span></figcaption>",
            esc(&sweep.workload),
            esc(&sweep.parameter),
            sweep.metric.unit()
        );
        s.push_str(&line_chart(&LineChart {
            kind: "scaling",
            title: &format!("{} over {}", sweep.workload, sweep.parameter),
            width: HALF,
            lines: &lines,
            x_scale: if pow2 { Scale::Log2 } else { Scale::Linear },
            x_ticks: &xs,
            x_label: &sweep.parameter,
            y_scale: Scale::Linear,
            y_label: sweep.metric.unit(),
        }));
        s.push_str("</figure>");
    }
    s.push_str("</div>\n");
}
