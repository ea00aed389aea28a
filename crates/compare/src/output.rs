//! Writing a comparison's files: report.html, results.md, results.csv, reps.csv and report.json (the
//! report's data, re-renderable); the fio JSON of every repetition is already under cells/.

use crate::execute::Finished;
use crate::render;
use std::path::{Path, PathBuf};

/// A file of the comparison that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("encoding report.json: {0}")]
    Encode(#[source] serde_json::Error),
    #[error("writing {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Write every file into `dir`; returns the HTML report's path.
pub fn write_all(dir: &Path, finished: &Finished) -> Result<PathBuf, OutputError> {
    let report = &finished.report;
    let json = serde_json::to_string_pretty(report).map_err(OutputError::Encode)?;
    let files = [
        ("report.html", render::html::to_html(report)),
        ("results.md", render::markdown::to_markdown(report)),
        ("results.csv", render::csv::results_csv(report)),
        ("reps.csv", render::csv::reps_csv(&finished.outcomes)),
        ("report.json", json),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|source| OutputError::Write { path: path.clone(), source })?;
    }
    Ok(dir.join("report.html"))
}
