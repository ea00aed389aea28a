//! NFSv4.1 and NFSv4.2 (RFC 8881, RFC 7862): program 100003 version 4, on the same port and transports
//! as NFSv3. One COMPOUND record in, one reply out; the state (clients, sessions, opens, locks, grace)
//! lives in the sans-I/O state machine of `state/`, which this service drives with the time of each call.
//!
//! | file            | what                                                                            |
//! |-----------------|---------------------------------------------------------------------------------|
//! | `compound.rs`   | COMPOUND: minor versions, decoding, the order rules, SEQUENCE and the slot cache |
//! | `results.rs`    | the result array as it is built: sizes, payloads, the cached form of a reply     |
//! | `context.rs`    | one COMPOUND's context: current and saved file handles and stateids, the session |
//! | `ops/`          | one file per operation or small group                                            |
//! | `fh.rs`         | file handles: NFSv3's for export files, their own kind for pseudo directories   |
//! | `pseudo.rs`     | the exports as one name space under PUTROOTFH                                    |
//! | `attrs/`        | `fattr4` from a backend's attributes, and SETATTR's attributes to the backend's  |
//! | `callback.rs`   | the backchannel: CB_NULL probes, CB_COMPOUND with CB_SEQUENCE, replies, timeouts |
//! | `config.rs`     | [`Nfs4Config`] (lease, grace, channel maxima, caps)                              |
//! | `errors.rs`     | `nfsstat3`, state errors and export refusals as `nfsstat4`                       |
//!
//! No delegations or layouts are ever granted; state protection is SP4_NONE only; RPCSEC_GSS is refused
//! at the RPC layer as for NFSv3. Time: every call hands the time its record came in to the state
//! machine; housekeeping (lease expiry, callback timeouts, the reclaim record) runs at most once a second
//! from a call, or from [`crate::Server::tick`].

mod attrs;
mod callback;
mod compound;
mod config;
mod context;
mod errors;
mod fh;
mod ops;
mod pseudo;
mod results;
pub(crate) mod state;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nfs3_proto::NfsTime3;
use onc_rpc::AcceptStat;
use tracing::{debug, warn};

use crate::access::Identity;
use crate::exports::Export;
use crate::handle::{random_u64, HandleCodec};
use crate::rpc::{success_writer, Outcome};
use crate::{ConfigError, ConnectionInfo, Reply, Server};
pub use config::Nfs4Config;
use pseudo::PseudoFs;
use state::{ReclaimFile, SessionId, V4State};

pub(crate) use callback::Callbacks;

/// NFSv4 procedures (RFC 8881 §16): NULL and COMPOUND.
const PROC_NULL: u32 = 0;
const PROC_COMPOUND: u32 = 1;
/// How often housekeeping runs at most.
const HOUSEKEEPING_EVERY: Duration = Duration::from_secs(1);

/// The NFSv4 half of a [`Server`].
#[derive(Debug)]
pub(crate) struct V4Service {
    pub(crate) pseudo: PseudoFs,
    state: Mutex<V4State>,
    /// `server_owner4.so_major_id` and `eir_server_scope` (RFC 8881 §2.5): the same on every address of
    /// this server, and after a restart with the same state directory.
    pub(crate) server_owner: Vec<u8>,
    /// The minor version of each session's CREATE_SESSION (its callbacks' CB_COMPOUNDs carry it). Entries
    /// of sessions gone are purged by housekeeping. Off the hot path: SEQUENCE's checks use the fore
    /// channel the state machine keeps with the session.
    session_minors: Mutex<HashMap<SessionId, u32>>,
    /// Where the clients that may reclaim after a restart are recorded (`dir:` exports).
    reclaim: Option<ReclaimFile>,
    pub(crate) callbacks: Callbacks,
    /// Operations decoded from one COMPOUND at most (the fore channel's ca_maxoperations cap).
    pub(crate) max_ops: u32,
    /// The largest reply before a session exists.
    pub(crate) max_response: u32,
    /// The `lease_time` attribute.
    pub(crate) lease_seconds: u32,
    next_housekeeping: Mutex<Instant>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Each table stays consistent across a panic in a call that held it (every change is one step).
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl V4Service {
    /// The NFSv4 service of a server with `exports`; `state_dir`: where the reclaim record lives when some
    /// export persists (`None` otherwise).
    pub(crate) fn new(
        exports: &[Export],
        codec: &HandleCodec,
        config: &Nfs4Config,
        state_dir: Option<&Path>,
    ) -> Result<V4Service, ConfigError> {
        config::check(config).map_err(|(name, why)| ConfigError::Setting { name, why })?;
        let now = Instant::now();
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        let started = NfsTime3 { seconds: wall.as_secs() as u32, nseconds: wall.subsec_nanos() };
        let reclaim = state_dir.map(ReclaimFile::new);
        let state_config = config.state_config(reclaim.is_some());
        let reclaimable = match &reclaim {
            Some(file) => file
                .load(state_config.limits.max_clients, state_config.limits.max_owner_len)
                .map_err(|e| ConfigError::StateDir { path: file.path().display().to_string(), why: e.to_string() })?,
            None => None,
        };
        // RFC 8881 §2.4: ids of this instance must differ from an earlier one's; random_u64 mixes the clock.
        let epoch = (random_u64() as u32).max(1);
        let owner = format!("nfsbench-{:016x}", codec.digest(b"nfsbench server owner"));
        Ok(V4Service {
            pseudo: PseudoFs::build(exports, codec, started),
            state: Mutex::new(V4State::new(state_config, epoch, now, reclaimable)),
            server_owner: owner.into_bytes(),
            session_minors: Mutex::new(HashMap::new()),
            reclaim,
            callbacks: Callbacks::new(config.lease),
            max_ops: config.fore_channel.max_operations,
            max_response: config.fore_channel.max_response_size,
            lease_seconds: u32::try_from(config.lease.as_secs()).unwrap_or(u32::MAX),
            next_housekeeping: Mutex::new(now + HOUSEKEEPING_EVERY),
        })
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, V4State> {
        lock(&self.state)
    }

    pub(crate) fn remember_session(&self, id: SessionId, minor: u32) {
        lock(&self.session_minors).insert(id, minor);
    }

    pub(crate) fn forget_session(&self, id: &SessionId) {
        lock(&self.session_minors).remove(id);
    }

    /// The minor version `id` was created under (1 for a session not known).
    pub(crate) fn session_minor(&self, id: &SessionId) -> u32 {
        lock(&self.session_minors).get(id).copied().unwrap_or(1)
    }

    /// Writes the reclaim record if it changed: before the reply that changed it goes out (RFC 8881
    /// §8.4.2.1: the record must survive a crash right after).
    pub(crate) fn save_reclaim_record(&self, now: Instant) {
        let Some(file) = &self.reclaim else { return };
        let Some(record) = self.state().reclaim_record_update(now) else { return };
        if let Err(e) = file.save(&record) {
            warn!(error = %e, "NFSv4 reclaim record not written: clients may be unable to reclaim after a restart");
        }
    }

    /// Lease expiry, grace, callback timeouts and the reclaim record, at most once a second.
    pub(crate) fn housekeeping(&self, now: Instant, force: bool) {
        {
            let Ok(mut next) = self.next_housekeeping.try_lock() else { return };
            if !force && now < *next {
                return;
            }
            *next = now + HOUSEKEEPING_EVERY;
        }
        let report = self.state().tick(now);
        if !report.expired.is_empty() || report.grace_ended {
            debug!(expired = report.expired.len(), grace_ended = report.grace_ended, "NFSv4 housekeeping");
        }
        self.callbacks.expire(self, now);
        let state = self.state();
        lock(&self.session_minors).retain(|id, _| state.backchannel(id).is_some());
        drop(state);
        self.save_reclaim_record(now);
    }
}

/// Executes NFSv4 procedure `proc`; `record_len`: the whole call record's size (ca_maxrequestsize);
/// `now`: when the call record came in (the time the state machine is driven with).
#[allow(clippy::too_many_arguments)]
pub(crate) fn call(
    server: &Server,
    conn: &ConnectionInfo,
    xid: u32,
    who: Identity,
    proc: u32,
    args: &[u8],
    record_len: usize,
    now: Instant,
) -> Outcome {
    match proc {
        // RFC 8881 §16.1: NULL takes and returns nothing.
        PROC_NULL if args.is_empty() => {
            Outcome::Done { reply: Reply::from_inline(success_writer(xid, 0).into_vec()), status: 0 }
        }
        PROC_NULL => Outcome::Refused(AcceptStat::GarbageArgs),
        PROC_COMPOUND => compound::run(server, conn, xid, who, args, record_len, now),
        _ => Outcome::Refused(AcceptStat::ProcUnavail),
    }
}
