//! Inline SVG charts for the HTML report: grouped bars with error bars, and line charts on linear, log
//! or "nines" axes. Every bar is a `rect class="bar"` with a solid palette fill and crisp edges, so a
//! screenshot shows exactly the palette colour inside it (the browser test counts those pixels).

use super::html_escape as esc;

/// One colour per case, in plan order (Tableau 10).
pub const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

const W: f64 = 960.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 20.0;

/// A value with an optional interval.
#[derive(Clone, Copy, Debug)]
pub struct Bar {
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

/// One series of bars: a case's value in each group (`None`: the case has no value there).
#[derive(Clone, Debug)]
pub struct BarSeries {
    pub name: String,
    pub color: &'static str,
    pub bars: Vec<Option<Bar>>,
}

/// Grouped bars: `groups` along x, one bar per series in each group, a legend, y from 0.
pub fn bar_chart(
    kind: &str,
    title: &str,
    groups: &[String],
    series: &[BarSeries],
    y_label: &str,
    percent: bool,
) -> String {
    let h = 320.0;
    let plot_h = h - TOP - 70.0;
    let max = series
        .iter()
        .flat_map(|s| s.bars.iter().flatten())
        .map(|b| b.interval.map_or(b.value, |(_, hi)| hi.max(b.value)))
        .filter(|v| v.is_finite())
        .fold(0.0_f64, f64::max);
    let (step, top) = nice_scale(max);
    let y = |v: f64| TOP + plot_h - (v.clamp(0.0, top) / top) * plot_h;
    let mut s = open_svg(kind, title, h);
    for i in 0..=((top / step).round() as usize) {
        let v = step * i as f64;
        let label = if percent { format!("{:.0}%", v * 100.0) } else { tick_label(v) };
        s += &format!(
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{label}</text>",
            W - RIGHT,
            LEFT - 6.0,
            y(v) + 4.0,
            y = y(v)
        );
    }
    s += &format!(
        "<text x=\"16\" y=\"{:.1}\" class=\"axis\" transform=\"rotate(-90 16 {:.1})\" text-anchor=\"middle\">{}</text>",
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        esc(y_label)
    );
    let n = groups.len().max(1) as f64;
    let group_w = (W - LEFT - RIGHT) / n;
    let bar_w = (group_w * 0.8 / series.len().max(1) as f64).min(60.0);
    for (g, name) in groups.iter().enumerate() {
        let gx = LEFT + group_w * g as f64;
        let used = bar_w * series.len() as f64;
        let x0 = gx + (group_w - used) / 2.0;
        for (k, ser) in series.iter().enumerate() {
            let Some(Some(bar)) = ser.bars.get(g) else { continue };
            if !bar.value.is_finite() {
                continue;
            }
            let x = x0 + bar_w * k as f64;
            let (yt, yb) = (y(bar.value), y(0.0));
            s += &format!(
                "<rect class=\"bar\" data-case=\"{}\" x=\"{x:.1}\" y=\"{yt:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" shape-rendering=\"crispEdges\"><title>{}: {}</title></rect>",
                esc(&ser.name),
                bar_w - 2.0,
                (yb - yt).max(0.0),
                ser.color,
                esc(&ser.name),
                tick_label(bar.value)
            );
            if let Some((lo, hi)) = bar.interval.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && hi > lo) {
                let cx = x + (bar_w - 2.0) / 2.0;
                s += &format!(
                    "<path class=\"err\" d=\"M{cx:.1} {:.1}V{:.1}M{:.1} {:.1}h8M{:.1} {:.1}h8\"/>",
                    y(hi),
                    y(lo),
                    cx - 4.0,
                    y(hi),
                    cx - 4.0,
                    y(lo)
                );
            }
        }
        s += &format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"group\" text-anchor=\"middle\">{}</text>",
            gx + group_w / 2.0,
            TOP + plot_h + 18.0,
            esc(name)
        );
    }
    s += &legend(series.iter().map(|s| (s.name.as_str(), s.color)), h - 22.0);
    s += "</svg>";
    s
}

/// A point of a line: x, y and y's interval.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// A line: the points of one case.
#[derive(Clone, Debug)]
pub struct Line {
    pub name: String,
    pub color: &'static str,
    pub points: Vec<Point>,
}

/// How an axis maps values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log10,
    Log2,
    /// Percentiles: position -log10(1 - p/100), so 90, 99, 99.9 are evenly spaced.
    Nines,
}

impl Scale {
    fn map(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log10 => v.max(1e-9).log10(),
            Scale::Log2 => v.max(1e-9).log2(),
            Scale::Nines => -(1.0 - (v / 100.0).min(0.999_999)).log10(),
        }
    }
}

/// A line chart; `x_ticks` are (value, label); y ticks are chosen here.
pub fn line_chart(
    kind: &str,
    title: &str,
    lines: &[Line],
    x: (Scale, &[(f64, String)], &str),
    y: (Scale, &str),
) -> String {
    let (x_scale, x_ticks, x_label) = x;
    let (y_scale, y_label) = y;
    let h = 340.0;
    let plot_h = h - TOP - 80.0;
    let pts = || lines.iter().flat_map(|l| l.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let xs: Vec<f64> = pts().map(|p| x_scale.map(p.0)).chain(x_ticks.iter().map(|t| x_scale.map(t.0))).collect();
    let (x_min, x_max) = bounds(&xs);
    let y_values: Vec<f64> =
        pts().flat_map(|p| [p.1, p.2.map_or(p.1, |i| i.1)]).filter(|v| *v > 0.0 || y_scale == Scale::Linear).collect();
    let (y_ticks, y_min, y_max) = match y_scale {
        Scale::Log10 => log_ticks(&y_values),
        _ => {
            let (step, top) = nice_scale(y_values.iter().copied().fold(0.0, f64::max));
            let ticks = (0..=((top / step).round() as usize)).map(|i| step * i as f64).collect();
            (ticks, 0.0, top)
        }
    };
    let px = |v: f64| LEFT + (x_scale.map(v) - x_min) / (x_max - x_min).max(1e-9) * (W - LEFT - RIGHT - 10.0) + 5.0;
    let py = |v: f64| {
        let m = y_scale.map(v);
        let (lo, hi) = (y_scale.map(y_min), y_scale.map(y_max));
        TOP + plot_h - ((m - lo) / (hi - lo).max(1e-9)).clamp(0.0, 1.0) * plot_h
    };
    let mut s = open_svg(kind, title, h);
    for t in &y_ticks {
        s += &format!(
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 6.0,
            py(*t) + 4.0,
            tick_label(*t),
            y = py(*t)
        );
    }
    for (v, label) in x_ticks {
        s += &format!(
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{TOP}\" y2=\"{:.1}\" class=\"grid\"/><text x=\"{x:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            TOP + plot_h,
            TOP + plot_h + 16.0,
            esc(label),
            x = px(*v)
        );
    }
    s += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">{}</text>",
        LEFT + (W - LEFT) / 2.0,
        TOP + plot_h + 36.0,
        esc(x_label)
    );
    s += &format!(
        "<text x=\"16\" y=\"{:.1}\" class=\"axis\" transform=\"rotate(-90 16 {:.1})\" text-anchor=\"middle\">{}</text>",
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        esc(y_label)
    );
    for line in lines {
        let ok: Vec<_> = line
            .points
            .iter()
            .filter(|p| p.0.is_finite() && p.1.is_finite() && (p.1 > 0.0 || y_scale == Scale::Linear))
            .collect();
        if ok.is_empty() {
            continue;
        }
        let d: Vec<String> = ok
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{}{:.1} {:.1}", if i == 0 { "M" } else { "L" }, px(p.0), py(p.1)))
            .collect();
        s += &format!(
            "<path class=\"line\" data-case=\"{}\" d=\"{}\" stroke=\"{}\"/>",
            esc(&line.name),
            d.join(""),
            line.color
        );
        for p in ok {
            s += &format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"{}\"><title>{}: {}</title></circle>",
                px(p.0),
                py(p.1),
                line.color,
                esc(&line.name),
                tick_label(p.1)
            );
            if let Some((lo, hi)) = p.2.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && hi > lo) {
                s +=
                    &format!("<path class=\"err\" d=\"M{x:.1} {:.1}V{:.1}\"/>", py(hi), py(lo.max(y_min)), x = px(p.0));
            }
        }
    }
    s += &legend(lines.iter().map(|l| (l.name.as_str(), l.color)), h - 20.0);
    s += "</svg>";
    s
}

fn open_svg(kind: &str, title: &str, h: f64) -> String {
    format!(
        "<svg class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {W} {h}\" width=\"100%\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(kind),
        esc(title)
    )
}

fn legend<'a>(items: impl Iterator<Item = (&'a str, &'a str)>, y: f64) -> String {
    let mut s = String::new();
    let mut x = LEFT;
    for (name, color) in items {
        let shown: String = name.chars().take(28).collect();
        s += &format!(
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{color}\"/><text x=\"{:.1}\" y=\"{y:.1}\" class=\"legend\">{}</text>",
            y - 10.0,
            x + 16.0,
            esc(&shown)
        );
        x += 30.0 + 7.0 * shown.chars().count() as f64;
    }
    s
}

/// A 1-2-5 step and the axis top for values up to `max`.
pub fn nice_scale(max: f64) -> (f64, f64) {
    if !(max.is_finite() && max > 0.0) {
        return (1.0, 1.0);
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    (step, (max / step).ceil() * step)
}

/// Powers of ten covering the positive values (at least one decade).
fn log_ticks(values: &[f64]) -> (Vec<f64>, f64, f64) {
    let pos: Vec<f64> = values.iter().copied().filter(|v| v.is_finite() && *v > 0.0).collect();
    if pos.is_empty() {
        return (vec![1.0, 10.0], 1.0, 10.0);
    }
    let lo = 10f64.powf(pos.iter().copied().fold(f64::INFINITY, f64::min).log10().floor());
    let mut hi = 10f64.powf(pos.iter().copied().fold(0.0, f64::max).log10().ceil());
    if hi <= lo {
        hi = lo * 10.0;
    }
    let mut ticks = Vec::new();
    let mut t = lo;
    while t <= hi * 1.0001 {
        ticks.push(t);
        t *= 10.0;
    }
    (ticks, lo, hi)
}

fn bounds(values: &[f64]) -> (f64, f64) {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if finite.is_empty() {
        return (0.0, 1.0);
    }
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, hi + 1.0)
    }
}

/// A tick or value label: 250k, 4.5k, 12, 0.25.
pub fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e4 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = if v.abs() >= 100.0 { format!("{v:.0}") } else { format!("{v:.2}") };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_are_nice_and_empty_input_is_harmless() {
        assert_eq!(nice_scale(4343.0), (1000.0, 5000.0));
        assert_eq!(nice_scale(0.0), (1.0, 1.0));
        assert_eq!(nice_scale(f64::NAN), (1.0, 1.0));
        assert_eq!(tick_label(250_000.0), "250k");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(log_ticks(&[150.0, 2500.0]).0, vec![100.0, 1000.0, 10000.0]);
        let empty = bar_chart("x", "t", &[], &[], "MB/s", false);
        let lines = line_chart("y", "t", &[], (Scale::Nines, &[], "p"), (Scale::Log10, "µs"));
        for svg in [empty, lines] {
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        }
    }
}
