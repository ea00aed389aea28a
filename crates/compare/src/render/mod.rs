//! The outputs of a comparison: the terminal summary, results.md, results.csv / reps.csv and the
//! self-contained report.html.

pub mod csv;
pub mod format;
pub mod html;
pub mod markdown;
pub mod svg;
pub mod terminal;

/// Text for HTML and SVG: & < > " ' escaped.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
