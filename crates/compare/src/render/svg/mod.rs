//! Inline SVG charts for the HTML report: bars ([`bar_chart`]) and lines ([`line_chart`]), with what they
//! share here — the case palette, axis scales with 1-2-5 ticks, labels that fit, a wrapping legend.
//! Every coordinate written is finite (NaN and infinities are filtered or clamped before they reach an
//! attribute), and every bar is a `rect class="bar"` with a solid palette fill and crisp edges, so a
//! screenshot shows exactly the palette colour inside it (the browser test counts those pixels).

mod bars;
mod lines;

pub use bars::{bar_chart, Bar, BarChart, BarSeries};
pub use lines::{line_chart, Line, LineChart, Point};

use super::html_escape as esc;
use std::fmt::Write;

/// One colour per case, in plan order (Tableau 10: distinct, and readable on white).
pub const PALETTE: [&str; 10] =
    ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];

/// Left margin (y tick labels and the axis title), right and top margins of every chart.
const LEFT: f64 = 70.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 14.0;
/// Height of the plotting area.
const PLOT_H: f64 = 220.0;
/// Rough advance of one character at the charts' 12 px sans-serif, for fitting labels.
const CHAR_W: f64 = 6.8;
/// Names longer than this are cut (with "…") in labels and legends; the full name stays in a tooltip.
const MAX_NAME: usize = 32;

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
    /// The position of `v` on this scale (finite for any finite input).
    fn map(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log10 => v.max(1e-9).log10(),
            Scale::Log2 => v.max(1e-9).log2(),
            Scale::Nines => -(1.0 - (v / 100.0).clamp(0.0, 0.999_999)).log10(),
        }
    }
}

/// A 1-2-5 step and the axis top for values up to `max`.
pub fn nice_scale(max: f64) -> (f64, f64) {
    // Beyond ±1e300 the powers of ten below would overflow or vanish.
    if !(max.is_finite() && (1e-300..1e300).contains(&max)) {
        return (1.0, 1.0);
    }
    // The smallest 1-2-5 step that needs at most 8 intervals.
    let raw = max / 8.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw * 0.999).unwrap_or(10.0 * mag);
    (step, (max / step - 1e-9).ceil().max(1.0) * step)
}

/// Ticks of a log axis covering the positive values: 1-2-5 steps over up to three decades, powers of ten
/// beyond; returns (ticks, axis bottom, axis top).
fn log_ticks(values: &[f64]) -> (Vec<f64>, f64, f64) {
    let pos = values.iter().copied().filter(|v| (1e-300..1e300).contains(v));
    let (min, max) = pos.fold((f64::INFINITY, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if max <= 0.0 {
        return (vec![1.0, 10.0], 1.0, 10.0);
    }
    let (d0, d1) = (min.log10().floor() as i32, max.log10().ceil().max(min.log10().floor() + 1.0) as i32);
    let mults: &[f64] = if d1 - d0 <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    let all: Vec<f64> = (d0..=d1).flat_map(|d| mults.iter().map(move |m| m * 10f64.powi(d))).collect();
    let lo = all.iter().copied().filter(|t| *t <= min * 1.0001).fold(10f64.powi(d0), f64::max);
    let hi = all.iter().copied().find(|t| *t >= max * 0.9999).unwrap_or(10f64.powi(d1));
    let hi = if hi > lo { hi } else { lo * 2.0 };
    let ticks = all.into_iter().filter(|t| *t >= lo * 0.9999 && *t <= hi * 1.0001).collect();
    (ticks, lo, hi)
}

/// The smallest and largest finite value, widened when they are equal.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) =
        values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if !(lo.is_finite() && hi.is_finite()) {
        (0.0, 1.0)
    } else if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, hi + 1.0)
    }
}

/// A tick label: 250k, 4.5k, 12, 0.25.
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

/// A name cut to `max` characters, with "…" when it was longer.
fn shorten(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        return name.to_string();
    }
    let cut: String = name.chars().take(max.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// Width of a label at the charts' font size, roughly.
fn text_w(text: &str) -> f64 {
    text.chars().count() as f64 * CHAR_W
}

/// The opening tag of a chart: `kind` names it for tests and styles, `title` for screen readers.
fn open_svg(kind: &str, title: &str, w: f64, h: f64) -> String {
    format!(
        "<svg class=\"chart\" data-chart=\"{}\" viewBox=\"0 0 {w:.0} {h:.0}\" width=\"100%\" style=\"max-width:{w:.0}px\" role=\"img\" aria-label=\"{}\">",
        esc(kind),
        esc(title)
    )
}

/// Horizontal grid lines with their labels at the left, for ticks already mapped to y positions.
fn y_grid(s: &mut String, w: f64, ticks: impl Iterator<Item = (f64, String)>) {
    for (y, label) in ticks {
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{label}</text>",
            w - RIGHT,
            LEFT - 6.0,
            y + 4.0
        );
    }
}

/// The y axis title, written upwards along the left edge.
fn y_title(s: &mut String, label: &str) {
    let mid = TOP + PLOT_H / 2.0;
    let _ = write!(
        s,
        "<text x=\"14\" y=\"{mid:.1}\" class=\"axis\" transform=\"rotate(-90 14 {mid:.1})\" text-anchor=\"middle\">{}</text>",
        esc(label)
    );
}

/// An entry of a legend: a case with its colour, or a case that did not run.
#[derive(Clone, Copy, Debug)]
enum Key<'a> {
    Case(&'a str, &'a str),
    NotRun(&'a str),
}

/// A legend wrapped into rows within `w`, its first row's baseline at `y`: the cases with their colours,
/// then one grey hatched swatch "not supported yet:" followed by the cases that did not run. Returns the
/// SVG and its height.
fn legend(keys: &[Key], w: f64, y: f64) -> (String, f64) {
    // Flattened: (swatch, the full name for the tooltip, the text shown).
    let mut items: Vec<(Swatch, &str, String)> = Vec::new();
    for key in keys {
        match key {
            Key::Case(name, color) => items.push((Swatch::Color(color), name, shorten(name, MAX_NAME))),
            // The first case that did not run shares its line with the swatch, so that they wrap together.
            Key::NotRun(name) if !items.iter().any(|i| matches!(i.0, Swatch::Hatched)) => {
                items.push((Swatch::Hatched, name, format!("not supported yet: {}", shorten(name, MAX_NAME))))
            }
            Key::NotRun(name) => items.push((Swatch::None, name, shorten(name, MAX_NAME))),
        }
    }
    let last = items.len().saturating_sub(1);
    let mut s = String::new();
    let (mut x, mut row) = (LEFT, 0.0);
    for (k, (swatch, name, text)) in items.iter().enumerate() {
        let listed = matches!(swatch, Swatch::None);
        let more = k != last && matches!(items.get(k + 1), Some((Swatch::None, ..)));
        let text = if more { format!("{text},") } else { text.clone() };
        let pad = if listed { 0.0 } else { 18.0 };
        // The grey italic names run narrower than the estimate for upright text.
        let item_w = pad + text_w(&text) * if listed { 0.95 } else { 1.0 } + if listed { 4.0 } else { 16.0 };
        if x > LEFT && x + item_w > w - RIGHT {
            (x, row) = (LEFT, row + 1.0);
        }
        let ty = y + row * 18.0;
        let _ = match swatch {
            Swatch::Color(color) => {
                write!(s, "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"{color}\"/>", ty - 10.0)
            }
            Swatch::Hatched => write!(
                s,
                "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"12\" height=\"12\" fill=\"#fff\" stroke=\"#999\"/><path d=\"M{x:.1} {:.1}l12 -12M{x:.1} {:.1}l6 -6M{:.1} {:.1}l6 -6\" stroke=\"#999\"/>",
                ty - 10.0,
                ty + 2.0,
                ty - 4.0,
                x + 6.0,
                ty + 2.0
            ),
            Swatch::None => Ok(()),
        };
        let class = if matches!(swatch, Swatch::Color(_)) { "legend" } else { "legend notrun" };
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{ty:.1}\" class=\"{class}\"><title>{}</title>{}</text>",
            x + pad,
            esc(name),
            esc(&text)
        );
        x += item_w;
    }
    let rows = if items.is_empty() { 0.0 } else { row + 1.0 };
    (s, rows * 18.0)
}

/// What stands before a legend's text.
#[derive(Clone, Copy, Debug)]
enum Swatch<'a> {
    Color(&'a str),
    /// Grey hatching: the cases after it did not run.
    Hatched,
    None,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_are_nice_and_empty_input_is_harmless() {
        assert_eq!(nice_scale(4343.0), (1000.0, 5000.0));
        assert_eq!(nice_scale(6520.0), (1000.0, 7000.0));
        let (step, top) = nice_scale(0.52);
        assert!((step - 0.1).abs() < 1e-12 && (top - 0.6).abs() < 1e-12);
        assert_eq!(nice_scale(1000.0), (200.0, 1000.0));
        assert_eq!(nice_scale(0.0), (1.0, 1.0));
        assert_eq!(nice_scale(f64::NAN), (1.0, 1.0));
        assert_eq!(tick_label(250_000.0), "250k");
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(log_ticks(&[150.0, 2500.0]), (vec![100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0], 100.0, 5000.0));
        assert_eq!(log_ticks(&[2.0, 2.0e6]).0, vec![1.0, 10.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e7]);
        assert_eq!(log_ticks(&[]).0, vec![1.0, 10.0]);
        assert_eq!((nice_scale(1e-320), nice_scale(1e305)), ((1.0, 1.0), (1.0, 1.0)));
        assert!(log_ticks(&[1e-320, 1e305, 5.0]).0.iter().all(|t| t.is_finite() && *t > 0.0));
        assert_eq!(bounds([f64::NAN, 3.0].into_iter()), (2.0, 4.0));
        assert_eq!(shorten("abcdef", 4), "abc…");
    }

    #[test]
    fn the_nines_scale_spaces_each_nine_evenly() {
        let d = |a: f64, b: f64| Scale::Nines.map(b) - Scale::Nines.map(a);
        assert!((d(90.0, 99.0) - 1.0).abs() < 1e-9 && (d(99.0, 99.9) - 1.0).abs() < 1e-9);
        assert!(Scale::Nines.map(100.0).is_finite() && Scale::Log10.map(0.0).is_finite());
    }

    #[test]
    fn a_long_legend_wraps_into_rows() {
        let names: Vec<String> = (0..10).map(|i| format!("v3-rdma-nconnect4-remoteports-{i}")).collect();
        let keys: Vec<Key> = names.iter().map(|n| Key::Case(n, PALETTE[0])).collect();
        let (_, h) = legend(&keys, 600.0, 10.0);
        assert!(h >= 18.0 * 5.0, "{h}");
        assert_eq!(legend(&[], 600.0, 10.0).1, 0.0);
        let (svg, h) = legend(&[Key::Case("tcp", PALETTE[0]), Key::NotRun("v41-a"), Key::NotRun("v41-b")], 600.0, 10.0);
        assert_eq!(h, 18.0);
        assert_eq!(svg.matches("not supported yet:").count(), 1);
        assert!(svg.contains(">not supported yet: v41-a,</text>") && svg.contains(">v41-b</text>"));
    }
}
