//! The server and its RPC layer (RFC 5531): one call record in, one reply record (or nothing) out.
//!
//! Order of checks, as knfsd: the message header (undecodable → GARBAGE_ARGS when an xid can be read,
//! a REPLY → dropped), RPC version (RPC_MISMATCH 2..2), credential (AUTH_ERROR), program
//! (PROG_UNAVAIL), version (PROG_MISMATCH low..high), then the program's own procedure dispatch
//! (PROC_UNAVAIL, GARBAGE_ARGS, results). NFS (program 100003) has versions 3 and 4 (`crate::v4`: minor
//! versions 1 and 2); MOUNT only version 3.
//!
//! The client's replies to the server's own calls (NFSv4.1 callbacks) come in through
//! [`Server::handle_reply`]; the transports' back channel is given with [`Server::set_backchannel`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use onc_rpc::{AcceptStat, ReplyBody, RpcMessage, MOUNT_PROGRAM, NFS_PROGRAM, PMAP_PROGRAM, RPC_VERSION};
use tracing::{debug, warn};

use crate::drc::Drc;
use crate::exports::{self, Export};
use crate::handle::{random_u64, HandleCodec, HandleKey};
use crate::mount::MountTable;
use crate::portmap::{PMAP_HIGH, PMAP_LOW};
use crate::rpc::{accepted, authenticate, header_only, Outcome};
use crate::stats::{CallRecord, PayloadBytes, Program, RpcEvent, Stats};
use crate::v4::{Nfs4Config, V4Service};
use crate::{dispatch, mount, portmap, BackwardCalls, BackwardReply, ConnectionInfo, Reply, ServerConfig};

/// Smallest READ/WRITE size accepted as `max_io_size`.
const MIN_IO_SIZE: u32 = 4096;
/// Largest `max_io_size` (RFC 5666 clients and the Linux client top out at 1 MiB; we allow more).
const MAX_IO_SIZE: u32 = 16 << 20;
/// NFSv3, and the only MOUNT version served.
const V3: u32 = 3;
/// NFSv4 (minor versions 1 and 2).
const V4: u32 = 4;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("invalid export {path}: {why}")]
    Export { path: String, why: String },
    #[error("invalid server setting {name}: {why}")]
    Setting { name: &'static str, why: String },
    /// The state directory (where the file-handle key of `dir:` exports lives) cannot be used.
    #[error("state directory {path}: {why}")]
    StateDir { path: String, why: String },
}

/// The server: exports, dispatch, duplicate request cache, statistics. Shared between connections (`Arc`).
#[derive(Debug)]
pub struct Server {
    pub(crate) exports: Vec<Export>,
    pub(crate) max_io_size: u32,
    pub(crate) tcp_port: u16,
    pub(crate) rdma_port: Option<u16>,
    pub(crate) handles: HandleCodec,
    pub(crate) drc: Drc,
    pub(crate) stats: Stats,
    pub(crate) mounts: MountTable,
    pub(crate) v4: V4Service,
}

impl Server {
    /// Checks the configuration (export paths, networks, I/O size) and builds the server, with the default
    /// state directory ([`crate::default_state_dir`]): see [`Server::with_state_dir`].
    pub fn new(config: ServerConfig) -> Result<Server, ConfigError> {
        Server::with_state_dir(config, None)
    }

    /// Builds the server; `state_dir` (default: [`crate::default_state_dir`]) holds the key that tags file
    /// handles when an export persists (`dir:`), so that handles stay valid across restarts: it is read or
    /// created there (0600), and the server refuses to start when it cannot be. Exports that do not persist
    /// (`mem:`) get a random identity per server, so their handles of an earlier run are STALE; a server of
    /// such exports alone uses a random key and does not touch the state directory.
    pub fn with_state_dir(config: ServerConfig, state_dir: Option<&Path>) -> Result<Server, ConfigError> {
        Server::with_nfs4(config, state_dir, &Nfs4Config::default())
    }

    /// As [`Server::with_state_dir`], with NFSv4 settings. When some export persists (`dir:`), the state
    /// directory also holds the NFSv4 clients that may reclaim their state after a restart: a server
    /// that finds such a record begins with a grace period.
    pub fn with_nfs4(config: ServerConfig, state_dir: Option<&Path>, nfs4: &Nfs4Config) -> Result<Server, ConfigError> {
        if !(MIN_IO_SIZE..=MAX_IO_SIZE).contains(&config.max_io_size) {
            return Err(ConfigError::Setting {
                name: "max_io_size",
                why: format!("{} is outside {MIN_IO_SIZE}..={MAX_IO_SIZE}", config.max_io_size),
            });
        }
        let exports = exports::build(&config.exports)?;
        let (handles, persistent_dir) = handle_codec(&exports, state_dir)?;
        let v4 = V4Service::new(&exports, &handles, nfs4, persistent_dir.as_deref())?;
        Ok(Server {
            exports,
            max_io_size: config.max_io_size,
            tcp_port: config.tcp_port,
            rdma_port: config.rdma_port,
            handles,
            drc: Drc::new(config.drc_entries),
            stats: Stats::default(),
            mounts: MountTable::default(),
            v4,
        })
    }

    /// The most bytes the reply to `record` can take, when the call alone tells (NFSv3 calls with fixed
    /// or argument-bounded replies; `None` otherwise).
    pub fn reply_bound(&self, record: &[u8]) -> Option<usize> {
        crate::reply_bound::reply_bound(record, self.max_io_size)
    }

    /// Executes one RPC call record; `None`: nothing to send (the record was not an answerable call, or
    /// it retransmits a call still executing).
    pub fn handle(&self, record: &[u8], conn: &ConnectionInfo) -> Option<Reply> {
        let started = Instant::now();
        let (msg, args) = match RpcMessage::decode(record) {
            Ok(decoded) => decoded,
            Err(err) => return self.undecodable(record, conn, &err),
        };
        let xid = msg.xid;
        let Some(call) = msg.as_call() else {
            // RFC 5531 §9: a server answers calls; a stray REPLY is dropped (answering could ping-pong).
            debug!(xid, peer = %conn.peer, "dropping an RPC reply sent to the server");
            self.stats.event(RpcEvent::Dropped);
            return None;
        };
        // RFC 5531 §9: rpcvers must be 2.
        if !call.is_rpc_version_2() {
            warn!(xid, rpcvers = call.rpcvers, peer = %conn.peer, "RPC version mismatch");
            self.stats.event(RpcEvent::RpcMismatch);
            return Some(header_only(xid, ReplyBody::rpc_mismatch()));
        }
        let who = match authenticate(call) {
            Ok(who) => who,
            Err(stat) => {
                warn!(xid, flavor = call.cred.flavor.0, ?stat, peer = %conn.peer, "credential refused");
                self.stats.event(RpcEvent::AuthError);
                return Some(header_only(xid, ReplyBody::auth_error(stat)));
            }
        };
        let (program, outcome) = match (call.prog, call.vers) {
            (NFS_PROGRAM, V3) => (Program::Nfs, dispatch::nfs(self, conn, xid, who, call.proc, args)),
            (NFS_PROGRAM, V4) => {
                (Program::Nfs4, crate::v4::call(self, conn, xid, who, call.proc, args, record.len(), started))
            }
            (MOUNT_PROGRAM, V3) => (Program::Mount, mount::call(self, conn, xid, call.proc, args)),
            (PMAP_PROGRAM, v) if (PMAP_LOW..=PMAP_HIGH).contains(&v) => {
                (Program::Portmap, portmap::call(self, conn, xid, v, call.proc, args))
            }
            (NFS_PROGRAM, _) => (Program::Nfs, Outcome::Refused(AcceptStat::ProgMismatch { low: V3, high: V4 })),
            (MOUNT_PROGRAM, _) => (Program::Mount, Outcome::Refused(AcceptStat::ProgMismatch { low: V3, high: V3 })),
            (PMAP_PROGRAM, _) => {
                (Program::Portmap, Outcome::Refused(AcceptStat::ProgMismatch { low: PMAP_LOW, high: PMAP_HIGH }))
            }
            _ => (Program::Nfs, Outcome::Refused(AcceptStat::ProgUnavail)),
        };
        match outcome {
            Outcome::Done { reply, status } => {
                self.count_payload(&reply);
                let elapsed_ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
                self.stats.record(CallRecord {
                    program,
                    proc: call.proc,
                    status,
                    bytes_in: record.len(),
                    bytes_out: reply.len(),
                    elapsed_ns,
                });
                debug!(xid, prog = call.prog, proc = call.proc, status, elapsed_ns, "call");
                Some(reply)
            }
            Outcome::Replayed(reply) if program == Program::Nfs4 => {
                debug!(xid, peer = %conn.peer, "NFSv4 retry answered from its session slot");
                self.stats.event(RpcEvent::SlotReplay);
                self.count_payload(&reply);
                Some(reply)
            }
            Outcome::Replayed(reply) => {
                debug!(xid, proc = call.proc, peer = %conn.peer, "retransmission answered from the DRC");
                self.stats.event(RpcEvent::DrcReplay);
                self.count_payload(&reply);
                Some(reply)
            }
            Outcome::Drop => {
                debug!(xid, proc = call.proc, peer = %conn.peer, "retransmission of a call in progress dropped");
                self.stats.event(RpcEvent::DrcInProgress);
                None
            }
            Outcome::Refused(stat) => {
                self.stats.event(match stat {
                    AcceptStat::ProgUnavail => RpcEvent::ProgUnavail,
                    AcceptStat::ProgMismatch { .. } => RpcEvent::ProgMismatch,
                    AcceptStat::ProcUnavail => RpcEvent::ProcUnavail,
                    _ => RpcEvent::GarbageArgs,
                });
                debug!(xid, prog = call.prog, vers = call.vers, proc = call.proc, ?stat, "call refused");
                Some(accepted(xid, stat))
            }
        }
    }

    /// A record whose header does not decode: nothing without an xid or for something that says it is a
    /// REPLY; RPC_MISMATCH when a CALL's rpcvers is readable and not 2; GARBAGE_ARGS otherwise.
    fn undecodable(&self, record: &[u8], conn: &ConnectionInfo, err: &onc_rpc::RpcError) -> Option<Reply> {
        let word =
            |i: usize| record.get(i * 4..i * 4 + 4).and_then(|w| <[u8; 4]>::try_from(w).ok()).map(u32::from_be_bytes);
        let Some(xid) = RpcMessage::peek_xid(record) else {
            self.stats.event(RpcEvent::Dropped);
            return None;
        };
        if word(1) == Some(1) {
            self.stats.event(RpcEvent::Dropped);
            return None;
        }
        if word(1) == Some(0) && word(2).is_some_and(|v| v != RPC_VERSION) {
            self.stats.event(RpcEvent::RpcMismatch);
            return Some(header_only(xid, ReplyBody::rpc_mismatch()));
        }
        warn!(xid, peer = %conn.peer, len = record.len(), %err, "undecodable RPC call header");
        self.stats.event(RpcEvent::GarbageArgs);
        Some(accepted(xid, AcceptStat::GarbageArgs))
    }

    /// Takes a reply the client sent on `conn` to one of the server's own calls (an NFSv4.1 callback):
    /// [`BackwardReply::Matched`] when it answered one still outstanding, else it is dropped (counted as a
    /// stray reply). Never answered; quick (no backend work).
    pub fn handle_reply(&self, record: &[u8], conn: &ConnectionInfo) -> BackwardReply {
        let verdict = self.v4.callbacks.reply(&self.v4, record, conn);
        if verdict == BackwardReply::Unknown {
            self.stats.event(RpcEvent::Dropped);
        }
        verdict
    }

    /// Where NFSv4.1 callbacks go: the transports' back channel (server-core's `BackChannel`). Without one
    /// no callback is sent and back channels are taken to work. The first one given stays; false after.
    pub fn set_backchannel(&self, calls: Arc<dyn BackwardCalls>) -> bool {
        self.v4.callbacks.set_sender(calls)
    }

    /// Periodic NFSv4 housekeeping at `now`: expires clients whose lease ran out, ends the grace period,
    /// sends due back-channel probes and times out unanswered ones, writes the reclaim record. Calls run it
    /// too (at most once a second); a front end or `nfsbench serve` calls this every second or so, so an
    /// idle server keeps time.
    pub fn tick(&self, now: Instant) {
        self.v4.housekeeping(now, true);
    }

    /// True when `handle` may wait on a disk (some export's backend may block).
    pub fn may_block(&self) -> bool {
        self.exports.iter().any(|e| e.backend.may_block())
    }

    /// Per-procedure counters and latency, printable.
    pub fn stats_report(&self) -> String {
        self.stats.report()
    }

    /// Bytes of READ/READLINK payload served and copied so far ("bytes copied per byte served").
    pub fn payload_bytes(&self) -> PayloadBytes {
        self.stats.payload_bytes()
    }

    /// Counts `bytes` of payload a transport copied into a buffer of its own to send a reply (an inline
    /// RPC-over-RDMA reply, a Reply chunk made flat).
    pub fn count_payload_copy(&self, bytes: usize) {
        self.stats.payload_copied(bytes as u64);
    }

    fn count_payload(&self, reply: &Reply) {
        let (served, copied) = reply.payload_bytes();
        self.stats.payload(served, copied);
    }

    /// The root file handle of export `path` (as MNT returns it), for tests and local tools.
    pub fn root_handle(&self, path: &str) -> Option<nfs3_proto::FileHandle3> {
        let export = self.exports.iter().find(|e| e.path == path)?;
        Some(self.handles.encode(export.index, export.root))
    }

    /// The write verifier of export `path`'s backend (COMMIT and WRITE answer it), for tests and tools.
    pub fn write_verifier(&self, path: &str) -> Option<nfs3_proto::WriteVerf3> {
        Some(self.exports.iter().find(|e| e.path == path)?.backend.write_verifier())
    }

    /// Calls of one NFSv3 procedure recorded so far.
    pub fn nfs_calls(&self, proc: u32) -> u64 {
        self.stats.calls(Program::Nfs, proc)
    }

    /// Retransmissions answered from the duplicate request cache so far.
    pub fn drc_replays(&self) -> u64 {
        self.stats.events(RpcEvent::DrcReplay)
    }
}

/// The handle codec: persistent exports keep their backend's identity and the key from the state directory;
/// the others get a random identity (and, when no export persists, the key is random too). With the codec,
/// the state directory in use when some export persists.
fn handle_codec(exports: &[Export], state_dir: Option<&Path>) -> Result<(HandleCodec, Option<PathBuf>), ConfigError> {
    let persistence: Vec<_> = exports.iter().map(|e| e.backend.persistence()).collect();
    let identities = persistence.iter().map(|p| p.as_ref().map_or_else(random_u64, |p| p.identity)).collect();
    let host_dirs: Vec<PathBuf> = persistence.into_iter().flatten().map(|p| p.host_dir).collect();
    if host_dirs.is_empty() {
        return Ok((HandleCodec::new(HandleKey::random(), identities), None));
    }
    let dir = match state_dir {
        Some(dir) => dir.to_path_buf(),
        None => crate::state::default_state_dir().ok_or_else(|| ConfigError::StateDir {
            path: "(none)".into(),
            why: "no default for this user (HOME is not set): give one (nfsbench serve --state-dir DIR)".into(),
        })?,
    };
    let key = crate::state::load_or_create_key(&dir, &host_dirs)
        .map_err(|why| ConfigError::StateDir { path: dir.display().to_string(), why })?;
    Ok((HandleCodec::new(key, identities), Some(dir)))
}
