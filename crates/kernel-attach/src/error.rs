//! Why a block target could not be attached, read or detached; every message names the URL, option,
//! command, path or target concerned.

use std::path::PathBuf;
use std::time::Duration;

use crate::target::Kind;

/// Longest excerpt of a file's content or a tool's output quoted in a message.
const EXCERPT_CHARS: usize = 120;

#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error("'{url}' is not a block target URL ({why}); expected KIND://HOST[:PORT]/NAME")]
    BadUrl { url: String, why: String },
    #[error("'{scheme}' in '{url}' is not a block transport: the kernel engine attaches nvme-tcp://, nvme-rdma://, iscsi:// or iser://")]
    UnknownScheme { url: String, scheme: String },
    #[error("'{kind}' is not a block transport: nvme-tcp, nvme-rdma, iscsi or iser")]
    UnknownKind { kind: String },
    #[error("'{name}' in '{url}' is not a {kind} target name: {why}")]
    BadName { url: String, kind: Kind, name: String, why: String },
    #[error("resolving '{host}' for {kind}: {source}")]
    Resolve {
        host: String,
        kind: Kind,
        #[source]
        source: std::io::Error,
    },
    #[error("'{option}' is not an option of {kind} (accepted: {accepted})")]
    UnknownOption { kind: Kind, option: String, accepted: String },
    #[error("{kind} option '{option}': {why}")]
    BadOption { kind: Kind, option: String, why: String },
    #[error("starting {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// The tool's own last words (stderr, else stdout), as a user running it by hand would see them.
    #[error("`{}` failed ({}): {message}", .argv.join(" "), status_text(*.status))]
    Refused { argv: Vec<String>, status: Option<i32>, message: String },
    #[error("reading {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: expected {expected}, found {}", .path.display(), excerpt(.found))]
    Garbled { path: PathBuf, expected: String, found: String },
    #[error("{target}: {what}")]
    NotFound { target: String, what: String },
    #[error("{target}: {holder} is up but no block device appeared within {} s ({looked})", .waited.as_secs())]
    NoBlockDevice { target: String, holder: String, looked: String, waited: Duration },
    #[error("{target}: {} says {found}, not {expected}", .path.display())]
    WrongTransport { target: String, path: PathBuf, expected: String, found: String },
    #[error("{target} is already attached ({held}): detach it, or sweep it if a killed run left it")]
    AlreadyAttached { target: String, held: String },
    #[error("{target}: more than one new controller matches ({candidates}) and nvme connect named none of them")]
    Ambiguous { target: String, candidates: String },
    #[error("attaching {kind} targets needs root (running as uid {uid})")]
    NeedsRoot { kind: Kind, uid: u32 },
    #[error("attaching {kind} targets needs {tool} (Debian package {package}); looked in {looked}")]
    MissingTool { kind: Kind, tool: &'static str, package: &'static str, looked: String },
    #[error("attaching {kind} targets needs iscsid running ({looked}): start it with `systemctl start iscsid` (Debian package open-iscsi)")]
    IscsidNotRunning { kind: Kind, looked: String },
    #[error("sweeping {target}: undid [{}], could not undo [{}]", .undone.join("; "), .failed.join("; "))]
    Sweep { target: String, undone: Vec<String>, failed: Vec<String> },
}

/// How a command ended, for a message.
pub(crate) fn status_text(status: Option<i32>) -> String {
    match status {
        Some(code) => format!("exit status {code}"),
        None => "killed by a signal".to_string(),
    }
}

/// A quoted, bounded excerpt of untrusted text (file content, a tool's output).
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{:?}...", &text[..end]),
        None => format!("{text:?}"),
    }
}
