//! The crate's one error type and the place an error points at.

use std::fmt;

/// Where an option (or a job) was given: a line of a job file, or a command-line argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// `line` is 1-based; `file` is the name given for messages (an included file's own path).
    File { file: String, line: usize },
    /// The argument as the user typed it, e.g. `--bs=4q` or `--bs 4q`.
    Arg(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::File { file, line } => write!(f, "job file {file} line {line}"),
            Location::Arg(arg) => f.write_str(arg),
        }
    }
}

/// Everything that can be wrong with a job file or fio-style arguments. Every message names the option
/// (or job) and where it was given.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// An option that is not in nfsbench's set (which is a subset of fio's).
    #[error("{at}: unsupported fio option '{name}'{}", did_you_mean(suggestion))]
    UnsupportedOption { at: Location, name: String, suggestion: Option<&'static str> },
    /// A valid fio value that nfsbench does not implement (`rw=trim`, `verify=sha256`, `size=10z`...).
    #[error("{at}: {option}={value} is not supported by nfsbench: {why}")]
    UnsupportedValue { at: Location, option: &'static str, value: String, why: String },
    /// A value that does not parse as what the option takes.
    #[error("{at}: bad {what} '{value}'{}{}", for_option(at, option), detail_suffix(detail))]
    BadValue { at: Location, option: &'static str, what: &'static str, value: String, detail: String },
    /// A value outside the range fio allows for the option.
    #[error("{at}: {option}={value} is out of range: {rule}")]
    OutOfRange { at: Location, option: &'static str, value: String, rule: String },
    /// An option that needs `=value` was given bare.
    #[error("{at}: option '{option}' needs a value")]
    MissingValue { at: Location, option: String },
    /// A malformed line or argument (no section, bad section header, stray argument...).
    #[error("{at}: {message}")]
    Syntax { at: Location, message: String },
    /// An `include FILE` that could not be read.
    #[error("{at}: cannot read include file '{path}': {source}")]
    Include {
        at: Location,
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A job whose options are each valid but do not make a runnable job together.
    #[error("{at}: job '{job}': {message}")]
    InvalidJob { at: Location, job: String, message: String },
    /// Neither the job file nor the arguments define a job.
    #[error("no job defined: give a job file with a [job] section or --name=JOB on the command line")]
    NoJobs,
}

fn did_you_mean(s: &Option<&'static str>) -> String {
    s.map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default()
}

/// A command-line location already shows the option (`--bs=4q`); a file line does not.
fn for_option(at: &Location, option: &str) -> String {
    match at {
        Location::File { .. } => format!(" for {option}"),
        Location::Arg(_) => String::new(),
    }
}

fn detail_suffix(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    }
}

impl JobError {
    /// Where the error points, when it points somewhere.
    pub fn location(&self) -> Option<&Location> {
        match self {
            JobError::UnsupportedOption { at, .. }
            | JobError::UnsupportedValue { at, .. }
            | JobError::BadValue { at, .. }
            | JobError::OutOfRange { at, .. }
            | JobError::MissingValue { at, .. }
            | JobError::Syntax { at, .. }
            | JobError::Include { at, .. }
            | JobError::InvalidJob { at, .. } => Some(at),
            JobError::NoJobs => None,
        }
    }
}
