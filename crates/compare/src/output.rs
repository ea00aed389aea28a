//! Writing a comparison's files: report.html, results.md, results.csv, reps.csv and report.json (the
//! report's data, re-renderable); the fio JSON of every repetition is already under cells/.

use crate::execute::Finished;
use crate::render;
use std::path::{Path, PathBuf};

/// Write every file into `dir`; returns the HTML report's path.
pub fn write_all(dir: &Path, finished: &Finished) -> Result<PathBuf, String> {
    let report = &finished.report;
    let json = serde_json::to_string_pretty(report).map_err(|e| format!("encoding report.json: {e}"))?;
    let files = [
        ("report.html", render::html::to_html(report)),
        ("results.md", render::markdown::to_markdown(report)),
        ("results.csv", render::csv::results_csv(report)),
        ("reps.csv", render::csv::reps_csv(&finished.outcomes)),
        ("report.json", json),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("writing {}: {e}", path.display()))?;
    }
    Ok(dir.join("report.html"))
}
