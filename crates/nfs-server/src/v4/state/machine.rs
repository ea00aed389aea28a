//! [`V4State`]: every table of the v4 state machine and the bookkeeping they share (ids, totals, leases).
//! The operations live beside it, one family per file; this file holds what they all use.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::Instant;

use super::admission::Peer;
use super::client::Client;
use super::config::StateConfig;
use super::error::StateError;
use super::grace::Grace;
use super::session::Session;
use super::share::FileState;
use super::types::{ClientId, FileKey, SessionId};
use crate::ConnectionId;

/// A map of the tables every COMPOUND looks up (clients, sessions): foldhash, seeded at random per map,
/// instead of std's SipHash (its two lookups were half of V4State::sequence in the profile). The keys are ids the server
/// chose; a peer's lookups of ids of its own making insert nothing.
pub(super) type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The confirmed and the unconfirmed client record of one co_ownerid (RFC 8881 §18.35.4: at most one each).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct OwnerRecords {
    pub(super) confirmed: Option<ClientId>,
    pub(super) unconfirmed: Option<ClientId>,
}

/// Counts over all clients, checked against the totals of [`super::StateLimits`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    pub confirmed_clients: usize,
    pub unconfirmed_clients: usize,
    pub sessions: usize,
    /// Open- and lock-owners.
    pub owners: usize,
    /// Open and lock stateids.
    pub stateids: usize,
    /// Locked byte ranges.
    pub locks: usize,
    /// Cached-reply bytes reserved by sessions (slots × cached size).
    pub reply_cache_bytes: usize,
    /// Files with opens or locks.
    pub files: usize,
}

/// The server's NFSv4.1 state: client records, sessions, opens, locks, grace. Sans I/O: every method takes
/// the time it runs at; nothing sleeps, spawns or touches a file (the reclaim record is handed to the
/// caller to write, see [`V4State::reclaim_record_update`]). Not synchronised: the dispatch wraps it in a
/// lock. `Send`.
#[derive(Debug)]
pub struct V4State {
    pub(super) config: StateConfig,
    /// This server instance's epoch, in every client id, session id and stateid it issues.
    pub(super) epoch: u32,
    pub(super) clients: FastMap<ClientId, Client>,
    pub(super) by_owner: HashMap<Box<[u8]>, OwnerRecords>,
    /// The confirmed records of each peer (`admission.rs`).
    pub(super) peers: HashMap<Peer, HashSet<ClientId>>,
    /// The unconfirmed records, oldest first: the one to drop past the cap.
    pub(super) unconfirmed: BTreeSet<(Instant, ClientId)>,
    pub(super) sessions: FastMap<SessionId, Session>,
    /// The sessions each connection is bound to, to unbind it when it closes.
    pub(super) conns: HashMap<ConnectionId, HashSet<SessionId>>,
    pub(super) files: HashMap<FileKey, FileState>,
    pub(super) grace: Grace,
    pub(super) totals: Totals,
    pub(super) next_client: u32,
    pub(super) next_session: u32,
    pub(super) next_stateid: u64,
}

impl V4State {
    /// A state machine for a server instance started at `now`. `epoch` must differ from every earlier
    /// instance's (the caller mixes the clock with a random value): it keeps ids unique across restarts.
    /// `reclaimable` is the reclaim record an earlier instance left (see [`super::ReclaimFile::load`]):
    /// with [`StateConfig::reclaim`] set and a record present, a grace period begins now.
    pub fn new(config: StateConfig, epoch: u32, now: Instant, reclaimable: Option<Vec<Vec<u8>>>) -> Self {
        let grace = Grace::start(&config, now, reclaimable);
        V4State {
            config,
            epoch,
            clients: FastMap::default(),
            by_owner: HashMap::new(),
            peers: HashMap::new(),
            unconfirmed: BTreeSet::new(),
            sessions: FastMap::default(),
            conns: HashMap::new(),
            files: HashMap::new(),
            grace,
            totals: Totals::default(),
            next_client: 1,
            next_session: 1,
            next_stateid: 1,
        }
    }

    pub fn config(&self) -> &StateConfig {
        &self.config
    }

    /// Seconds of the lease, for the `lease_time` attribute.
    pub fn lease_seconds(&self) -> u32 {
        u32::try_from(self.config.lease.as_secs()).unwrap_or(u32::MAX)
    }

    /// Counts of what is held, for statistics and tests of the caps.
    pub fn totals(&self) -> Totals {
        Totals { files: self.files.len(), ..self.totals }
    }

    pub(super) fn new_client_id(&mut self) -> ClientId {
        loop {
            let id = ClientId::new(self.epoch, self.next_client);
            self.next_client = self.next_client.wrapping_add(1).max(1);
            if !self.clients.contains_key(&id) {
                return id;
            }
        }
    }

    pub(super) fn new_session_id(&mut self, client: ClientId) -> SessionId {
        loop {
            let id = SessionId::new(self.epoch, client, self.next_session);
            self.next_session = self.next_session.wrapping_add(1).max(1);
            if !self.sessions.contains_key(&id) {
                return id;
            }
        }
    }

    pub(super) fn new_stateid_serial(&mut self) -> u64 {
        let serial = self.next_stateid;
        self.next_stateid += 1;
        serial
    }

    /// True when `client`'s lease ran out before `now` (RFC 8881 §8.3).
    pub(super) fn lapsed(&self, client: &Client, now: Instant) -> bool {
        now.saturating_duration_since(client.renewed) > self.config.lease
    }

    /// The confirmed client an operation inside a session acts for.
    pub(super) fn client(&self, id: ClientId) -> Result<&Client, StateError> {
        self.clients.get(&id).filter(|c| c.confirmed).ok_or(StateError::StaleClientId)
    }

    pub(super) fn client_mut(&mut self, id: ClientId) -> Result<&mut Client, StateError> {
        self.clients.get_mut(&id).filter(|c| c.confirmed).ok_or(StateError::StaleClientId)
    }

    /// Checks an owner's length against the cap.
    pub(super) fn check_owner_len(&self, owner: &[u8]) -> Result<(), StateError> {
        if owner.len() > self.config.limits.max_owner_len {
            return Err(StateError::Resource("owner longer than the server accepts"));
        }
        Ok(())
    }
}
