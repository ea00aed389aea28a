//! Client records and EXCHANGE_ID (RFC 8881 §2.4, §18.35).
//!
//! A client is known by its co_ownerid; each incarnation of it (its verifier changes when it reboots) gets
//! a record with a fresh client id. EXCHANGE_ID makes unconfirmed records; the first CREATE_SESSION
//! confirms one (`create_session.rs`), and only then does it replace a confirmed record of the same owner
//! (a rebooted client, or another principal's client whose state is gone) and drop that record's state.
//! The peer address is never identity (that is the owner, the verifier and the principal): it is for log
//! lines, and for the per-peer count of confirmed records (`admission.rs`). Past the cap of unconfirmed
//! records the oldest goes.

use std::net::SocketAddr;
use std::time::Instant;

use tracing::debug;

use super::admission::Peer;
use super::create_session::SessionGrant;
use super::error::StateError;
use super::machine::V4State;
use super::stateid::ClientState;
use super::types::{ClientId, Principal, SessionId};

/// One client record.
#[derive(Debug)]
pub(super) struct Client {
    pub(super) id: ClientId,
    pub(super) owner: Box<[u8]>,
    pub(super) verifier: [u8; 8],
    pub(super) principal: Principal,
    /// Where EXCHANGE_ID came from: for log lines and the per-peer count, never for identity decisions.
    pub(super) peer: Option<SocketAddr>,
    pub(super) confirmed: bool,
    pub(super) created: Instant,
    /// Last lease renewal.
    pub(super) renewed: Instant,
    /// A SEQUENCE has run for it: a record in use, dropped for room after those never used.
    pub(super) sequenced: bool,
    /// RFC 8881 §18.36.4: the client id's own slot for CREATE_SESSION: its sequence id and cached result.
    pub(super) cs_seqid: u32,
    pub(super) cs_cached: Option<Result<SessionGrant, StateError>>,
    pub(super) sessions: Vec<SessionId>,
    /// RECLAIM_COMPLETE done (RFC 8881 §18.51).
    pub(super) reclaim_complete: bool,
    pub(super) state: ClientState,
}

/// EXCHANGE_ID's arguments as far as state goes.
#[derive(Debug, Clone, Copy)]
pub struct ExchangeIdArgs<'a> {
    /// co_ownerid.
    pub owner: &'a [u8],
    /// co_verifier.
    pub verifier: [u8; 8],
    /// EXCHGID4_FLAG_UPD_CONFREC_A.
    pub update: bool,
    pub principal: Principal,
    /// The connection's peer, for log lines.
    pub peer: Option<SocketAddr>,
}

/// EXCHANGE_ID's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExchangeIdOk {
    pub clientid: ClientId,
    /// eir_sequenceid: what the next CREATE_SESSION must send as csa_sequence.
    pub sequenceid: u32,
    /// EXCHGID4_FLAG_CONFIRMED_R.
    pub confirmed: bool,
}

impl V4State {
    /// EXCHANGE_ID with state protection SP4_NONE (RFC 8881 §18.35.4, the case table).
    pub fn exchange_id(&mut self, args: &ExchangeIdArgs<'_>, now: Instant) -> Result<ExchangeIdOk, StateError> {
        self.check_owner_len(args.owner)?;
        let records = self.by_owner.get(args.owner).copied().unwrap_or_default();
        let confirmed = records.confirmed.and_then(|id| self.clients.get(&id));
        if args.update {
            // RFC 8881 §18.35.4 cases 6–9: update of a confirmed record.
            let conf = confirmed.ok_or(StateError::NoEnt)?;
            if conf.principal != args.principal {
                return Err(StateError::Perm);
            }
            if conf.verifier != args.verifier {
                return Err(StateError::NotSame);
            }
            let ok = ExchangeIdOk { clientid: conf.id, sequenceid: conf.cs_seqid.wrapping_add(1), confirmed: true };
            self.renew(ok.clientid, now);
            return Ok(ok);
        }
        if let Some(conf) = confirmed {
            if conf.principal != args.principal {
                // Case 3, client collision: refused while the other principal's state lives; else as case 1.
                if !conf.state.is_empty() && !self.lapsed(conf, now) {
                    return Err(StateError::ClidInUse);
                }
            } else if conf.verifier == args.verifier {
                // Case 2, non-update on an existing client id: the same record again.
                let ok = ExchangeIdOk { clientid: conf.id, sequenceid: conf.cs_seqid.wrapping_add(1), confirmed: true };
                self.renew(ok.clientid, now);
                return Ok(ok);
            }
            // Case 4, client restart (same principal, new verifier): a new unconfirmed record; the old one
            // and its state go when the new one is confirmed.
        } else {
            // A brand-new owner that could not be confirmed now hears so now (`admission.rs`).
            self.room_for(Peer::of(args.peer), now)?;
        }
        // Case 5 (and 1, 3, 4): any earlier unconfirmed record of this owner is replaced.
        if let Some(old) = records.unconfirmed {
            self.drop_unconfirmed(old);
        }
        if self.totals.unconfirmed_clients >= self.config.limits.max_unconfirmed_clients {
            self.evict_oldest_unconfirmed();
        }
        let id = self.new_client_id();
        let client = Client {
            id,
            owner: args.owner.into(),
            verifier: args.verifier,
            principal: args.principal,
            peer: args.peer,
            confirmed: false,
            created: now,
            renewed: now,
            sequenced: false,
            cs_seqid: 0,
            cs_cached: None,
            sessions: Vec::new(),
            reclaim_complete: false,
            state: ClientState::default(),
        };
        debug!(clientid = id.0, peer = ?args.peer, "EXCHANGE_ID: new unconfirmed client record");
        self.clients.insert(id, client);
        self.by_owner.entry(args.owner.into()).or_default().unconfirmed = Some(id);
        self.unconfirmed.insert((now, id));
        self.totals.unconfirmed_clients += 1;
        Ok(ExchangeIdOk { clientid: id, sequenceid: 1, confirmed: false })
    }

    /// Renews `id`'s lease (RFC 8881 §8.3).
    pub(super) fn renew(&mut self, id: ClientId, now: Instant) {
        if let Some(client) = self.clients.get_mut(&id) {
            client.renewed = client.renewed.max(now);
        }
    }

    /// Forgets an unconfirmed record (it has no sessions or state).
    pub(super) fn drop_unconfirmed(&mut self, id: ClientId) {
        let Some(client) = self.clients.remove(&id) else { return };
        self.totals.unconfirmed_clients -= 1;
        self.unconfirmed.remove(&(client.created, id));
        if let Some(records) = self.by_owner.get_mut(&client.owner) {
            if records.unconfirmed == Some(id) {
                records.unconfirmed = None;
            }
            if records.confirmed.is_none() && records.unconfirmed.is_none() {
                self.by_owner.remove(&client.owner);
            }
        }
    }

    fn evict_oldest_unconfirmed(&mut self) {
        if let Some(&(_, id)) = self.unconfirmed.first() {
            debug!(clientid = id.0, "unconfirmed client record evicted: too many unconfirmed records");
            self.drop_unconfirmed(id);
        }
    }
}
