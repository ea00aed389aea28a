//! Leases (RFC 8881 §8.3) and the end of a client: expiry, DESTROY_CLIENTID (§18.50).
//!
//! Every SEQUENCE renews the client's lease (as do CREATE_SESSION and BIND_CONN_TO_SESSION). A client
//! whose lease has run out loses everything — sessions, opens, locks, its place in the reclaim record —
//! when [`V4State::tick`] runs, when it next shows up (its SEQUENCE gets NFS4ERR_BADSESSION, its
//! CREATE_SESSION NFS4ERR_STALE_CLIENTID), or as soon as another client's OPEN or LOCK finds its state in
//! the way. No courtesy period: the client recovers as after a server restart without grace (new client
//! id, opens again with CLAIM_NULL). Unconfirmed records go one lease after EXCHANGE_ID.

use std::time::Instant;

use tracing::info;

use super::admission::Peer;
use super::error::StateError;
use super::machine::V4State;
use super::types::ClientId;

/// What [`V4State::tick`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickReport {
    /// Clients (confirmed or not) dropped because their lease ran out.
    pub expired: Vec<ClientId>,
    /// The grace period ended at this tick.
    pub grace_ended: bool,
}

impl V4State {
    /// Periodic housekeeping (the caller runs it every few seconds): expires lapsed clients, ends the grace
    /// period when its time is up.
    pub fn tick(&mut self, now: Instant) -> TickReport {
        let grace_ended = self.grace.end_if_over(now);
        TickReport { expired: self.reap_lapsed(now), grace_ended }
    }

    /// DESTROY_CLIENTID (RFC 8881 §18.50): only a client with no sessions and no state.
    pub fn destroy_clientid(&mut self, id: ClientId) -> Result<(), StateError> {
        let client = self.clients.get(&id).ok_or(StateError::StaleClientId)?;
        if !client.sessions.is_empty() || !client.state.is_empty() {
            return Err(StateError::ClientIdBusy);
        }
        if client.confirmed {
            self.expire_client(id, "DESTROY_CLIENTID");
        } else {
            self.drop_unconfirmed(id);
        }
        Ok(())
    }

    /// Expires every client whose lease has run out; returns them.
    pub(super) fn reap_lapsed(&mut self, now: Instant) -> Vec<ClientId> {
        let lapsed: Vec<ClientId> = self.clients.values().filter(|c| self.lapsed(c, now)).map(|c| c.id).collect();
        for id in &lapsed {
            self.expire_client(*id, "lease expired");
        }
        lapsed
    }

    /// Removes a client with everything it holds.
    pub(super) fn expire_client(&mut self, id: ClientId, why: &'static str) {
        let Some(mut client) = self.clients.remove(&id) else { return };
        if client.confirmed {
            self.totals.confirmed_clients -= 1;
            self.uncount_peer(id, Peer::of(client.peer));
        } else {
            self.totals.unconfirmed_clients -= 1;
            self.unconfirmed.remove(&(client.created, id));
        }
        if let Some(records) = self.by_owner.get_mut(&client.owner) {
            if records.confirmed == Some(id) {
                records.confirmed = None;
            }
            if records.unconfirmed == Some(id) {
                records.unconfirmed = None;
            }
            if records.confirmed.is_none() && records.unconfirmed.is_none() {
                self.by_owner.remove(&client.owner);
            }
        }
        for sessionid in std::mem::take(&mut client.sessions) {
            self.remove_session(&sessionid);
        }
        let stateids = client.state.stateids.len();
        let locks = client.state.locks;
        client.state.release_all(id, &mut self.files, &mut self.totals);
        if client.reclaim_complete {
            self.grace.forget(&client.owner);
        }
        if client.confirmed {
            info!(clientid = id.0, peer = ?client.peer, stateids, locks, why, "NFSv4 client expired");
        }
    }
}
