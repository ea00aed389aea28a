//! The one error of this crate: text that is not the /proc file it should be, or a line the kernel
//! prints with numbers that do not read as numbers.

use thiserror::Error;

/// Longest excerpt of an offending line quoted in a message.
const EXCERPT_CHARS: usize = 80;

/// Why a text could not be read as `/proc/fs/cifs/DebugData` or `/proc/fs/cifs/Stats`. `file` is the
/// /proc path the text stands for ([`crate::DEBUG_DATA_PATH`] or [`crate::STATS_PATH`]) and `line`
/// counts from 1. Lines the parsers do not recognise are skipped, not errors.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CifsStatsError {
    /// The first non-empty line is not the one the kernel prints first.
    #[error("{file} line {line}: not {file}: expected {expected:?}, found {text:?}")]
    NotThisFile { file: &'static str, line: usize, expected: &'static str, text: String },
    /// A line the kernel prints with a known layout whose field is missing or is not a number
    /// (or does not fit the kernel's type for it).
    #[error("{file} line {line}: bad {field}: {text:?}")]
    BadField { file: &'static str, line: usize, field: &'static str, text: String },
}

/// The first [`EXCERPT_CHARS`] characters of `line`, for a message (never the whole of a huge line).
pub(crate) fn excerpt(line: &str) -> String {
    match line.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}...", &line[..end]),
        None => line.to_string(),
    }
}

/// Builds [`CifsStatsError::BadField`] for `line` (1-based) of `file`.
pub(crate) fn bad_field(file: &'static str, line: usize, field: &'static str, text: &str) -> CifsStatsError {
    CifsStatsError::BadField { file, line, field, text: excerpt(text) }
}

/// Checks that the first non-empty line of `text` is `expected` (trimmed), naming it otherwise.
pub(crate) fn expect_first_line(text: &str, file: &'static str, expected: &'static str) -> Result<(), CifsStatsError> {
    let first = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty());
    match first {
        Some((_, line)) if line.trim() == expected => Ok(()),
        Some((index, line)) => {
            Err(CifsStatsError::NotThisFile { file, line: index + 1, expected, text: excerpt(line) })
        }
        None => Err(CifsStatsError::NotThisFile { file, line: 1, expected, text: String::new() }),
    }
}
