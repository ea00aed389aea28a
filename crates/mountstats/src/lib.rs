//! `/proc/self/mountstats` read into typed mounts: what a Linux NFS mount really negotiated and what
//! its RPC client counted — the check to make before trusting a figure measured on a kernel mount.
//!
//! - [`parse`] takes the whole text (every `device ... mounted on ... with fstype ...` section) and
//!   returns one [`Mount`] each; NFS ones carry [`NfsStats`]: the negotiated `opts:`, `age:`,
//!   `caps:`, `nfsv4:`, `sec:`, the named `events:` and `bytes:` [`Counters`], one [`Transport`] per
//!   `xprt:` line (tcp, udp, rdma with its [`RdmaCounters`], local) and the per-op [`OpStats`]. Field
//!   names and orders follow the kernel functions that print them (named in each module). Garbled
//!   text gives a [`ParseError`] naming the line, or, inside an NFS section, the line is skipped and
//!   its number kept; nothing panics, and memory stays within a copy of the input.
//! - [`Mount::find`] and [`Mount::option`] look a mount and a negotiated option up.
//! - [`Mount::delta`] turns two readings into a [`MountWindow`]: counter growth per op, per transport
//!   and for events/bytes, with the derived figures (retransmissions, average RTT, execution and
//!   queue time per op; average backlog per send).
//! - [`check_options`] puts a mount.nfs option string beside what the kernel negotiated: one
//!   [`OptionCheck`] per asked option with a [`Verdict`]; [`differs`] says whether any differs.
//!
//! Sans-I/O: everything takes text, except [`read_self`], which reads /proc/self/mountstats.

mod counters;
mod error;
mod mount;
mod options;
mod parse;
mod transport;
mod window;

pub use counters::{Counters, BYTE_NAMES, EVENT_NAMES, FSCACHE_NAMES};
pub use error::ParseError;
pub use mount::{Mount, MountOption, NfsStats, OpStats, RpcInfo};
pub use options::{check_options, differs, OptionCheck, Verdict};
pub use parse::parse;
pub use transport::{RdmaCounters, Transport};
pub use window::{MountWindow, OpWindow, TransportWindow};

/// Where the running process's mounts and their statistics are.
pub const SELF_PATH: &str = "/proc/self/mountstats";

/// Reads and parses [`SELF_PATH`].
pub fn read_self() -> Result<Vec<Mount>, ParseError> {
    let bytes = std::fs::read(SELF_PATH)
        .map_err(|e| ParseError::Read { path: SELF_PATH.to_string(), message: e.to_string() })?;
    parse(&String::from_utf8_lossy(&bytes))
}
