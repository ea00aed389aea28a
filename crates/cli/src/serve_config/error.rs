//! Why `nfsbench serve` refuses its configuration: a flag's text (the grammars of
//! [`spec`](super::spec)), the TOML file, or the limits it sets. Every message is one line naming the
//! text, flag or key at fault; users and tests read them, so their wording is part of the interface.
//!
//! Context is added from the inside out: a client network's error inside an export's `clients` inside
//! the file reads "serve.toml: exports[0]: clients: client '10.0.0.0/40' has a bad prefix length …".

use std::io;

use super::spec::MAX_TIMEOUT;
use super::{MAX_IO_SIZE, MIN_IO_SIZE, RECORD_HEADROOM};

/// Why a flag, the configuration file or its limits are refused; the Display is the one-line message.
#[derive(Debug, thiserror::Error)]
pub enum ServeConfigError {
    // Sizes ("512MiB") and timeouts.
    #[error("size '{0}' does not start with a number")]
    SizeWithoutNumber(String),
    #[error("size '{0}' has an unknown unit (use K, M, G, T or KiB, MiB, GiB, TiB)")]
    SizeUnit(String),
    #[error("size '{0}' is too large")]
    SizeTooLarge(String),
    /// A timeout's seconds: these messages complete "timeout 5 s …".
    #[error("is not a number")]
    SecondsNotANumber,
    #[error("is negative")]
    SecondsNegative,
    #[error("is over {} hours", MAX_TIMEOUT.as_secs() / 3600)]
    SecondsTooLong,

    // Backends and exports.
    #[error("backend '{backend}': {reason}")]
    BackendSize { backend: String, reason: Box<ServeConfigError> },
    #[error("backend '{0}': a RAM disk of size 0 holds nothing")]
    EmptyRamDisk(String),
    #[error("backend '{0}' needs a directory: dir:DIR")]
    DirWithoutPath(String),
    #[error("unknown backend '{0}' (expected mem[:SIZE] or dir:DIR)")]
    UnknownBackend(String),
    #[error("'{0}' is not PATH=BACKEND (e.g. /export=mem:1GiB)")]
    NotPathEqualsBackend(String),
    #[error("export path '{0}' is not absolute")]
    RelativeExportPath(String),
    #[error("export path '{0}' is not normalised (no trailing '/', '//', '.' or '..')")]
    UnnormalisedExportPath(String),

    // Addresses and client networks.
    #[error("'{0}' is not ADDR:PORT (e.g. 127.0.0.1:2049)")]
    NotAddrPort(String),
    #[error("'{text}' does not resolve: {error}")]
    Unresolved { text: String, error: io::Error },
    #[error("'{0}' resolves to no address")]
    NoAddress(String),
    #[error("client '{0}' is not an IP address or CIDR network")]
    NotANetwork(String),
    #[error("client '{text}' has a bad prefix length (0..={max} for {family})")]
    PrefixLength { text: String, max: u8, family: &'static str },

    // `[limits]`: each message starts with its key.
    #[error("max_io_size: {0} is outside {MIN_IO_SIZE}..={MAX_IO_SIZE}")]
    IoSizeOutOfRange(u64),
    #[error("max_record: {record} leaves no room for a {max_io}-byte WRITE (needs max_io_size + {RECORD_HEADROOM})")]
    RecordBelowIoSize { record: u64, max_io: u64 },
    #[error("{key}: must be at least 1")]
    LimitZero { key: &'static str },
    #[error("{key}: {value} is too large")]
    LimitTooLarge { key: &'static str, value: u64 },
    #[error("max_server_in_flight_bytes: {budget} is less than one record (max_record {record})")]
    BudgetBelowRecord { budget: usize, record: usize },
    /// A setting outside its range (`[nfs4]`).
    #[error("{key}: {value} is outside {range}")]
    OutOfRange { key: &'static str, value: u64, range: String },

    // The file, and where in it.
    /// The file is not TOML of the documented shape (unknown key, wrong type, bad value); `at` is the
    /// line and column of the fault when the parser knows it.
    #[error("{file}{}: {message}", .at.map(|(line, column)| format!(":{line}:{column}")).unwrap_or_default())]
    Syntax { file: String, at: Option<(usize, usize)>, message: String },
    #[error("{file}: {error}")]
    Read { file: String, error: io::Error },
    #[error("{file}: listeners[{index}]: {reason}")]
    Listener { file: String, index: usize, reason: Box<ServeConfigError> },
    #[error("{file}: exports[{index}]: {reason}")]
    Export { file: String, index: usize, reason: Box<ServeConfigError> },
    /// One key of an export entry (`path`, `backend`, `clients`).
    #[error("{key}: {reason}")]
    ExportKey { key: &'static str, reason: Box<ServeConfigError> },
    #[error("export path '{0}' appears twice")]
    DuplicateExport(String),
    #[error("{file}: limits.{reason}")]
    Limits { file: String, reason: Box<ServeConfigError> },
    #[error("{file}: nfs4.{reason}")]
    Nfs4 { file: String, reason: Box<ServeConfigError> },
    /// The file named by `--config`.
    #[error("--config {0}")]
    ConfigFlag(Box<ServeConfigError>),
}
