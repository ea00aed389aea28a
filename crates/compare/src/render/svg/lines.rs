//! Line charts: one polyline per series (case) with its points marked and optional error bars, on linear,
//! log or "nines" axes — latency percentile curves and scaling sweeps.

use super::{bounds, esc, legend, log_ticks, nice_scale, open_svg, tick_label, y_grid, y_title, Key, Scale};
use super::{LEFT, PLOT_H, RIGHT, TOP};
use std::fmt::Write;

/// A point of a line: x, y and y's interval.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// A line: the points of one case, in the order they are joined.
#[derive(Clone, Debug)]
pub struct Line {
    pub name: String,
    pub color: &'static str,
    pub points: Vec<Point>,
    /// Drawn dashed with hollow points: a prediction, not a measurement.
    pub dashed: bool,
}

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct LineChart<'a> {
    /// `data-chart` of the SVG.
    pub kind: &'a str,
    /// Its accessible title.
    pub title: &'a str,
    /// Width of the view box.
    pub width: f64,
    pub lines: &'a [Line],
    pub x_scale: Scale,
    /// Where the x axis is labelled: (value, label).
    pub x_ticks: &'a [(f64, String)],
    pub x_label: &'a str,
    /// `Linear` (from 0) or `Log10`.
    pub y_scale: Scale,
    pub y_label: &'a str,
}

/// The chart as an `<svg class="chart">`.
pub fn line_chart(c: &LineChart) -> String {
    let w = c.width;
    let log_y = c.y_scale == Scale::Log10;
    // The points that can be drawn: finite, and positive on a log axis.
    let drawable = |p: &&Point| p.0.is_finite() && p.1.is_finite() && (p.1 > 0.0 || !log_y);
    let pts = || c.lines.iter().flat_map(|l| l.points.iter()).filter(drawable);
    let (x_min, x_max) = bounds(pts().map(|p| p.0).chain(c.x_ticks.iter().map(|t| t.0)).map(|v| c.x_scale.map(v)));
    let y_values: Vec<f64> = pts()
        .flat_map(|p| [p.1, p.2.map_or(p.1, |i| i.1), p.2.map_or(p.1, |i| i.0)])
        .filter(|v| v.is_finite() && (*v > 0.0 || !log_y))
        .collect();
    let (y_ticks, y_lo, y_hi) = if log_y {
        log_ticks(&y_values)
    } else {
        let (step, top) = nice_scale(y_values.iter().copied().fold(0.0, f64::max) * 1.05);
        let n = (top / step).round().clamp(1.0, 50.0) as usize;
        ((0..=n).map(|i| step * i as f64).collect(), 0.0, top)
    };
    let plot_w = w - LEFT - RIGHT - 24.0;
    let px = |v: f64| LEFT + 12.0 + ((c.x_scale.map(v) - x_min) / (x_max - x_min)).clamp(0.0, 1.0) * plot_w;
    let (m_lo, m_hi) = (c.y_scale.map(y_lo), c.y_scale.map(y_hi));
    let py = |v: f64| TOP + PLOT_H - ((c.y_scale.map(v) - m_lo) / (m_hi - m_lo).max(1e-9)).clamp(0.0, 1.0) * PLOT_H;
    let keys: Vec<Key> = c.lines.iter().map(|l| Key::Case(&l.name, l.color)).collect();
    let legend_y = TOP + PLOT_H + 56.0;
    let (legend_svg, legend_h) = legend(&keys, w, legend_y);
    let h = legend_y + legend_h.max(4.0);

    let mut s = open_svg(c.kind, c.title, w, h);
    y_grid(&mut s, w, y_ticks.iter().map(|t| (py(*t), tick_label(*t))));
    for (v, label) in c.x_ticks.iter().filter(|t| t.0.is_finite()) {
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{TOP}\" y2=\"{:.1}\" class=\"grid\"/><text x=\"{x:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            TOP + PLOT_H,
            TOP + PLOT_H + 16.0,
            esc(label),
            x = px(*v)
        );
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"axis\" text-anchor=\"middle\">{}</text>",
        LEFT + (w - LEFT - RIGHT) / 2.0,
        TOP + PLOT_H + 36.0,
        esc(c.x_label)
    );
    y_title(&mut s, c.y_label);
    for line in c.lines {
        let ok: Vec<&Point> = line.points.iter().filter(drawable).collect();
        if ok.is_empty() {
            continue;
        }
        let d: String = ok
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{}{:.1} {:.1}", if i == 0 { "M" } else { "L" }, px(p.0), py(p.1)))
            .collect();
        let dash = if line.dashed { " stroke-dasharray=\"6 4\"" } else { "" };
        let _ = write!(
            s,
            "<path class=\"line\" data-case=\"{}\" d=\"{d}\" stroke=\"{}\"{dash}/>",
            esc(&line.name),
            line.color
        );
        for p in ok {
            let (x, y) = (px(p.0), py(p.1));
            if let Some((lo, hi)) = p.2.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && hi > lo) {
                let _ = write!(
                    s,
                    "<path class=\"err\" d=\"M{x:.1} {:.1}V{:.1}M{:.1} {:.1}h8M{:.1} {:.1}h8\" stroke=\"{}\"/>",
                    py(hi),
                    py(lo),
                    x - 4.0,
                    py(hi),
                    x - 4.0,
                    py(lo),
                    line.color
                );
            }
            let fill = if line.dashed { "none\" stroke=\"".to_string() + line.color } else { line.color.to_string() };
            let _ = write!(
                s,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"{}\"><title>{}: {}</title></circle>",
                fill,
                esc(&line.name),
                tick_label(p.1)
            );
        }
    }
    s += &legend_svg;
    s += "</svg>";
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(lines: &[Line], x_scale: Scale, y_scale: Scale) -> String {
        let ticks: Vec<(f64, String)> = [50.0, 99.0, 99.99].iter().map(|p| (*p, format!("p{p}"))).collect();
        line_chart(&LineChart {
            kind: "t",
            title: "t",
            width: 560.0,
            lines,
            x_scale,
            x_ticks: &ticks,
            x_label: "percentile",
            y_scale,
            y_label: "µs",
        })
    }

    #[test]
    fn odd_points_draw_no_nan() {
        let points = vec![
            (50.0, 0.0, None),
            (99.0, f64::NAN, Some((f64::NAN, 1.0))),
            (99.9, 1e305, None),
            (100.0, 5.0, Some((4.0, 6.0))),
        ];
        let lines = vec![Line { name: "a<b".into(), color: "#4e79a7", points, dashed: false }];
        for (xs, ys) in [(Scale::Nines, Scale::Log10), (Scale::Log2, Scale::Linear), (Scale::Linear, Scale::Linear)] {
            for svg in [chart(&lines, xs, ys), chart(&[], xs, ys)] {
                assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
            }
        }
        assert!(chart(&lines, Scale::Nines, Scale::Log10).contains("a&lt;b"));
    }

    #[test]
    fn a_log_axis_spans_the_values() {
        let points = vec![(50.0, 210.0, None), (99.0, 480.0, None), (99.99, 1210.0, None)];
        let svg =
            chart(&[Line { name: "tcp".into(), color: "#4e79a7", points, dashed: false }], Scale::Nines, Scale::Log10);
        assert!(svg.contains(">200</text>") && svg.contains(">2000</text>") && !svg.contains(">100</text>"));
    }
}
