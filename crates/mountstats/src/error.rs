//! The one error of this crate: text that is not mountstats at the top level.

use thiserror::Error;

/// Longest excerpt of an offending line quoted in a message.
const EXCERPT_CHARS: usize = 80;

/// What makes a whole text unreadable as `/proc/self/mountstats`. Inside an NFS section, lines that
/// cannot be understood are skipped instead (their numbers land in [`crate::NfsStats::skipped_lines`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// A line that is neither a `device ...` header nor an indented line of the section above it.
    #[error("mountstats line {line}: not part of any mount section: {text:?}")]
    UnexpectedLine { line: usize, text: String },
    /// A `device ...` header without ` mounted on ` or ` with fstype `.
    #[error("mountstats line {line}: a device line without {missing:?}: {text:?}")]
    BadDeviceLine { line: usize, missing: &'static str, text: String },
    /// Reading `/proc/self/mountstats` failed ([`crate::read_self`] only).
    #[error("reading {path}: {message}")]
    Read { path: String, message: String },
}

/// The first [`EXCERPT_CHARS`] characters of `line`, for a message.
pub(crate) fn excerpt(line: &str) -> String {
    match line.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}...", &line[..end]),
        None => line.to_string(),
    }
}
