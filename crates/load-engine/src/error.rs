//! The engine's errors: each names the job or file it concerns.

use nfs_client::ClientError;

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The job cannot run as specified (a combination fio would also refuse, or that we cannot honour).
    #[error("{0}")]
    Usage(String),
    /// Preparing a file failed.
    #[error("file '{name}': {source}")]
    File {
        name: String,
        #[source]
        source: ClientError,
    },
    /// The server wrote less than asked while laying out a file.
    #[error("file '{name}': server wrote {written} of {asked} bytes at offset {offset}")]
    ShortWrite { name: String, offset: u64, asked: u64, written: u64 },
    /// The server's write verifier changed during every pass of laying out a file (it keeps restarting;
    /// each pass re-sends the data a restart may have lost).
    #[error(
        "file '{name}': the server's write verifier changed during every pass of laying it out (it keeps restarting)"
    )]
    VerifierChanged { name: String },
    /// A job's task ended abnormally (a panic): a bug, reported as such.
    #[error("{0}")]
    Task(String),
    /// Another client of a many-clients run could not go on (its own error is in its own report).
    #[error("another client failed before group {group} could start")]
    Peer { group: u32 },
    /// A local file or directory of the file engine could not be used (`what` names it).
    #[error("{what}: {source}")]
    Local {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// `direct=1` on a file system that refuses O_DIRECT.
    #[error("direct=1: the file system of '{path}' ({fs}) refuses O_DIRECT; use direct=0 (buffered) there")]
    DirectRefused { path: String, fs: String },
    /// Resolving the job directory failed.
    #[error("directory '{path}': {source}")]
    Directory {
        path: String,
        #[source]
        source: ClientError,
    },
}

impl EngineError {
    pub(crate) fn file(name: &str, source: ClientError) -> Self {
        EngineError::File { name: name.to_string(), source }
    }
}

/// The errno-like code fio puts in a job's `error` field for a failed I/O.
pub fn errno_of(error: &ClientError) -> i32 {
    match error {
        // RFC 1813 §2.6: nfsstat3 values are the errno values of the same names.
        ClientError::Nfs { status, .. } => (*status as u32).min(i32::MAX as u32) as i32,
        ClientError::TimedOut { .. } => 110, // ETIMEDOUT
        _ => EIO,
    }
}

/// fio's `error` for a verify failure: EILSEQ.
pub const EILSEQ: i32 = 84;

/// fio's `error` for a failed I/O without a more precise code: EIO.
pub const EIO: i32 = 5;
