//! nfsbench's embedded NFS server (NFSv3, NFSv4.1 and NFSv4.2), sans I/O: an RPC call record in, a reply
//! record out.
//!
//! - [`Server::handle`] takes one complete RPC record (record marking already removed by the transport)
//!   and the connection it came on, and returns the [`Reply`] to send (or nothing, for a record that is
//!   not an answerable call). It serves NFSv3 (program 100003 v3), NFSv4.1/4.2 (100003 v4, `v4/`: COMPOUND,
//!   sessions, the exports as one pseudo file system, opens, locks, grace and reclaim, callbacks through
//!   [`Server::set_backchannel`] and [`Server::handle_reply`], housekeeping in [`Server::tick`]; settings
//!   in [`Nfs4Config`]), MOUNT v3 (100005 v3) and the port mapper's GETPORT / rpcbind GETADDR for our own
//!   programs (100000 v2-v4), so clients need no rpcbind.
//! - Exports ([`ExportConfig`]) map a path to a [`backend::Backend`] with access rules: read-only,
//!   allowed client networks, root/all squash, "secure" source ports.
//! - Non-idempotent NFSv3 calls go through a duplicate request cache, so a retransmitted CREATE/REMOVE/
//!   RENAME/WRITE gets the original reply; NFSv4.1 has its session slots' reply caches instead.
//! - READ and READLINK data stays apart from the reply's inline bytes as [`Payload`]s whose data
//!   ([`PayloadData`]) is a list of `Bytes` slices: the `mem:` backend hands out slices of its
//!   reference-counted pages (copied on write while a reply holds them), so no layer copies READ data
//!   before a transport sends it (TCP: iovecs; RDMA: gather writes). The `dir:` backend reads into a
//!   buffer of its own ([`Served::copied`]).
//! - Per-procedure counters and latency are kept for `nfsbench serve` to print, and the payload bytes
//!   served beside those copied on the way ([`Server::payload_bytes`]: "bytes copied per byte served").
//! - File handles (`handle.rs`) are tagged with a keyed hash so clients cannot forge them. For exports whose
//!   files outlive the process (`dir:`) they are made from what the file system keeps (file system id, inode
//!   number, birth time) and tagged with a key kept in a state directory (`state.rs`, see
//!   [`Server::with_state_dir`]), so they stay valid when the server restarts (what a hard mount relies on);
//!   the `dir:` backend finds files it has not seen since it started by a bounded search. `mem:` exports'
//!   handles die with the process (STALE after a restart). The write verifier changes on every start either
//!   way, so clients re-send uncommitted writes.
//! - WRITE (and a SETATTR of the size) by a caller that is not root after squashing clears set-user-ID, and
//!   set-group-ID with group execute, as knfsd does.
//!
//! Transports (TCP now, RPC-over-RDMA later) own sockets and threads and call into this crate; a
//! transport runs [`Server::handle`] on a blocking pool when [`Server::may_block`] says so.

pub mod backend;

use std::net::IpAddr;
use std::sync::Arc;

/// An IP network in CIDR form ("10.0.0.0/8", "::1/128"); a bare address is a /32 or /128.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpNet {
    pub addr: IpAddr,
    pub prefix_len: u8,
}

/// How client identities are mapped (exports(5) semantics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Squash {
    /// Identities are taken as sent.
    None,
    /// uid 0 / gid 0 become the anonymous ids (the default, as in exports(5)).
    #[default]
    Root,
    /// Every identity becomes the anonymous ids.
    All,
}

/// One exported tree.
#[derive(Clone)]
pub struct ExportConfig {
    /// The path clients mount ("/export"). Absolute, no trailing slash except "/".
    pub path: String,
    pub backend: Arc<dyn backend::Backend>,
    pub read_only: bool,
    /// Clients allowed to mount and use the export; empty = everyone.
    pub clients: Vec<IpNet>,
    pub squash: Squash,
    pub anon_uid: u32,
    pub anon_gid: u32,
    /// Require a client source port below 1024 (exports(5) "secure").
    pub secure: bool,
}

impl std::fmt::Debug for ExportConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExportConfig")
            .field("path", &self.path)
            .field("backend", &self.backend.describe())
            .field("read_only", &self.read_only)
            .field("clients", &self.clients)
            .field("squash", &self.squash)
            .field("anon_uid", &self.anon_uid)
            .field("anon_gid", &self.anon_gid)
            .field("secure", &self.secure)
            .finish()
    }
}

/// Server-wide settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub exports: Vec<ExportConfig>,
    /// Largest READ/WRITE payload offered in FSINFO (rtmax/wtmax) and accepted.
    pub max_io_size: u32,
    /// Entries kept in the duplicate request cache.
    pub drc_entries: usize,
    /// The ports our programs listen on, for GETPORT/GETADDR answers: (TCP port, RDMA port if any).
    pub tcp_port: u16,
    pub rdma_port: Option<u16>,
}

mod access;
mod connection;
mod dispatch;
mod drc;
mod exports;
mod handle;
mod mount;
mod payload;
mod portmap;
mod reply;
mod reply_bound;
mod rpc;
mod server;
mod siphash;
mod state;
mod stats;
#[cfg(test)]
mod tests;
mod v4;

pub use connection::{BackChannelError, BackwardCalls, BackwardReply, ConnectionId, ConnectionInfo, TransportKind};
pub use payload::{PayloadData, Served};
pub use reply::{Payload, PayloadIter, Payloads, Pieces, Reply};
pub use server::{ConfigError, Server};
pub use state::{default_state_dir, KEY_FILE};
pub use stats::PayloadBytes;
pub use v4::state::{ChannelLimits, StateLimits};
pub use v4::Nfs4Config;
