//! Grouped bar charts: groups (workloads) along x, one bar per series (case) in each group, value labels
//! above the bars, 95% error bars, a 1-2-5 axis from 0 and a legend. With a single group the bars are
//! labelled with their series' names instead.

use super::{esc, legend, open_svg, shorten, text_w, y_grid, y_title, Key, LEFT, MAX_NAME, PLOT_H, RIGHT, TOP};
use crate::render::format::number;
use std::fmt::Write;

/// A value with its interval, when there is one.
#[derive(Clone, Copy, Debug)]
pub struct Bar {
    pub value: f64,
    pub interval: Option<(f64, f64)>,
}

impl Bar {
    /// The top of the bar or of its error bar, whichever is higher (0 when nothing finite).
    fn reach(&self) -> f64 {
        let hi = self.interval.map_or(self.value, |(_, hi)| hi);
        [self.value, hi].into_iter().filter(|v| v.is_finite()).fold(0.0, f64::max)
    }
}

/// One series of bars: a case's value in each group (`None`: no value there).
#[derive(Clone, Debug)]
pub struct BarSeries {
    pub name: String,
    pub color: &'static str,
    pub bars: Vec<Option<Bar>>,
}

/// What to draw.
#[derive(Clone, Copy, Debug)]
pub struct BarChart<'a> {
    /// `data-chart` of the SVG.
    pub kind: &'a str,
    /// Its accessible title.
    pub title: &'a str,
    /// Width of the view box (the page shows it at that many CSS pixels at most).
    pub width: f64,
    pub groups: &'a [String],
    pub series: &'a [BarSeries],
    pub y_label: &'a str,
    /// Values are fractions, shown as percentages.
    pub percent: bool,
    /// Cases that did not run, named in the legend as "not supported yet".
    pub not_run: &'a [&'a str],
}

/// The chart as an `<svg class="chart">`.
pub fn bar_chart(c: &BarChart) -> String {
    let w = c.width;
    let fmt = |v: f64| if c.percent { format!("{:.0}%", v * 100.0) } else { number(v) };
    let n_series = c.series.len().max(1) as f64;
    let group_w = (w - LEFT - RIGHT) / c.groups.len().max(1) as f64;
    let slot = (group_w * 0.84 / n_series).min(104.0);
    let bar_w = (slot * 0.8).max(2.0);
    let bars = || c.series.iter().flat_map(|s| s.bars.iter().flatten());
    // Value labels lie flat when they fit over their bar, upright otherwise; room is left above for them.
    let widest = bars().map(|b| text_w(&fmt(b.value))).fold(0.0, f64::max);
    let upright = widest > slot;
    let label_room = if upright { widest + 8.0 } else { 18.0 };
    let max = bars().map(|b| b.reach()).fold(0.0, f64::max);
    let (step, top) = super::nice_scale(max * PLOT_H / (PLOT_H - label_room).max(PLOT_H / 3.0));
    let y = |v: f64| TOP + PLOT_H - (v.clamp(0.0, top) / top) * PLOT_H;
    // Under the bars: the groups' names, or the series' names when there is one group (slanted if long).
    let one_group = c.groups.len() == 1;
    let full: Vec<&str> = if one_group {
        c.series.iter().map(|s| s.name.as_str()).collect()
    } else {
        c.groups.iter().map(|g| g.as_str()).collect()
    };
    let room = if one_group { slot } else { group_w };
    let slant = full.iter().any(|n| text_w(n) > room - 4.0);
    // Slanted names are cut shorter; a grouped chart's names are cut to their group's width instead.
    let keep = if slant && one_group {
        24
    } else if one_group {
        MAX_NAME
    } else {
        ((room - 8.0) / super::CHAR_W).max(4.0) as usize
    };
    let names: Vec<String> = full.iter().map(|n| shorten(n, keep)).collect();
    let longest = names.iter().map(|n| text_w(n)).fold(0.0, f64::max);
    let slant = slant && longest > room - 4.0;
    let names_h = if slant { 14.0 + longest * 0.5 } else { 20.0 };
    let mut keys: Vec<Key> = c.series.iter().map(|s| Key::Case(&s.name, s.color)).collect();
    keys.extend(c.not_run.iter().map(|n| Key::NotRun(n)));
    let legend_y = TOP + PLOT_H + names_h + 18.0;
    let (legend_svg, legend_h) = legend(&keys, w, legend_y);
    let h = legend_y + legend_h;

    let mut s = open_svg(c.kind, c.title, w, h);
    let steps = (top / step).round().clamp(1.0, 50.0) as usize;
    y_grid(
        &mut s,
        w,
        (0..=steps).map(|i| {
            let v = step * i as f64;
            (y(v), if c.percent { format!("{:.0}%", v * 100.0) } else { super::tick_label(v) })
        }),
    );
    y_title(&mut s, c.y_label);
    let _ = write!(
        s,
        "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"base\"/>",
        w - RIGHT,
        y(0.0),
        y(0.0)
    );
    for (g, group) in c.groups.iter().enumerate() {
        let gx = LEFT + group_w * g as f64;
        let x0 = gx + (group_w - slot * n_series) / 2.0;
        for (k, ser) in c.series.iter().enumerate() {
            let cx = x0 + slot * (k as f64 + 0.5);
            if one_group {
                let (name, shown) = (full.get(k).copied().unwrap_or(""), names.get(k).map_or("", |n| n.as_str()));
                name_label(&mut s, cx, TOP + PLOT_H + 16.0, (name, shown), slant);
            }
            let Some(Some(bar)) = ser.bars.get(g) else { continue };
            if !bar.value.is_finite() {
                continue;
            }
            let (yt, yb) = (y(bar.value), y(0.0));
            let _ = write!(
                s,
                "<rect class=\"bar\" data-case=\"{}\" x=\"{:.1}\" y=\"{yt:.1}\" width=\"{bar_w:.1}\" height=\"{:.1}\" fill=\"{}\" shape-rendering=\"crispEdges\"><title>{} — {}: {}</title></rect>",
                esc(&ser.name),
                cx - bar_w / 2.0,
                (yb - yt).max(0.0),
                ser.color,
                esc(&ser.name),
                esc(group),
                fmt(bar.value)
            );
            let mut label_y = yt;
            if let Some((lo, hi)) = bar.interval.filter(|(lo, hi)| lo.is_finite() && hi.is_finite() && hi > lo) {
                let cap = (bar_w * 0.3).min(6.0);
                let _ = write!(
                    s,
                    "<path class=\"err\" d=\"M{cx:.1} {:.1}V{:.1}M{:.1} {:.1}h{:.1}M{:.1} {:.1}h{:.1}\"/>",
                    y(hi),
                    y(lo),
                    cx - cap,
                    y(hi),
                    2.0 * cap,
                    cx - cap,
                    y(lo),
                    2.0 * cap
                );
                label_y = label_y.min(y(hi));
            }
            let _ = if upright {
                write!(
                    s,
                    "<text x=\"{cx:.1}\" y=\"{:.1}\" class=\"value\" transform=\"rotate(-90 {cx:.1} {:.1})\" dy=\"4\">{}</text>",
                    label_y - 4.0,
                    label_y - 4.0,
                    fmt(bar.value)
                )
            } else {
                write!(
                    s,
                    "<text x=\"{cx:.1}\" y=\"{:.1}\" class=\"value\" text-anchor=\"middle\">{}</text>",
                    label_y - 5.0,
                    fmt(bar.value)
                )
            };
        }
        if !one_group {
            let shown = names.get(g).map_or("", |n| n.as_str());
            name_label(&mut s, gx + group_w / 2.0, TOP + PLOT_H + 16.0, (group, shown), slant);
        }
    }
    s += &legend_svg;
    s += "</svg>";
    s
}

/// A name under the axis (its full form as a tooltip), centred on `x`, or slanted down to the left when
/// it does not fit.
fn name_label(s: &mut String, x: f64, y: f64, (name, shown): (&str, &str), slant: bool) {
    let place = if slant {
        format!("text-anchor=\"end\" transform=\"rotate(-30 {x:.1} {y:.1})\"")
    } else {
        "text-anchor=\"middle\"".to_string()
    };
    let _ = write!(
        s,
        "<text x=\"{x:.1}\" y=\"{y:.1}\" class=\"name\" {place}><title>{}</title>{}</text>",
        esc(name),
        esc(shown)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(groups: &[String], series: &[BarSeries]) -> String {
        bar_chart(&BarChart {
            kind: "t",
            title: "t",
            width: 560.0,
            groups,
            series,
            y_label: "MB/s",
            percent: false,
            not_run: &["v4"],
        })
    }

    #[test]
    fn odd_values_draw_no_nan_and_no_negative_sizes() {
        let groups = vec!["w".to_string()];
        for value in [0.0, f64::NAN, f64::INFINITY, -5.0, 1e12, 1e305, 1e-320] {
            let bar = Bar { value, interval: Some((value, f64::NAN)) };
            let series = vec![BarSeries { name: "x".repeat(200), color: "#4e79a7", bars: vec![Some(bar)] }];
            let svg = chart(&groups, &series);
            assert!(!svg.contains("NaN") && !svg.contains("inf") && !svg.contains("=\"-"), "{svg}");
        }
        let empty = chart(&[], &[]);
        assert!(empty.contains("not supported yet") && !empty.contains("NaN"));
    }

    #[test]
    fn one_bar_per_series_in_each_group_with_its_value() {
        let groups = vec!["a".to_string(), "b".to_string()];
        let bar = |v| Some(Bar { value: v, interval: Some((v * 0.9, v * 1.1)) });
        let series = vec![
            BarSeries { name: "tcp".into(), color: "#4e79a7", bars: vec![bar(3000.0), None] },
            BarSeries { name: "rdma".into(), color: "#f28e2b", bars: vec![bar(4343.0), bar(12.5)] },
        ];
        let svg = chart(&groups, &series);
        assert_eq!(svg.matches("class=\"bar\"").count(), 3);
        assert!(svg.contains(">4343</text>") && svg.contains(">12.5</text>") && svg.contains("class=\"err\""));
    }
}
