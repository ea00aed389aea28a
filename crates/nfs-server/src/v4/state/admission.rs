//! Room for confirmed client records: which record goes when a new client is confirmed at a cap, so that
//! no peer — however many client ids it makes, confirmed or not — can keep another from mounting. The
//! rule and its arithmetic are in `config.rs`; in short, per peer at most
//! [`super::StateLimits::max_clients_per_peer`] records, and a peer at its cap, or a full table, makes
//! room by dropping the record that costs least to lose: one whose lease ran out, else one holding no
//! opens or locks (its client recovers with a new EXCHANGE_ID and loses nothing), never one with state
//! whose lease lives. knfsd counts its clients against a limit too (1,024 per GiB of memory) and, over
//! it, expires its courtesy clients — those whose lease ran out — at once rather than keeping them
//! (fs/nfsd/nfs4state.c: alloc_client, nfs4_get_client_reaplist).
//!
//! A peer is where EXCHANGE_ID came from: an IPv4 address, or the /64 of an IPv6 one (one host or site;
//! a hostile host has all of its /64). Not the principal: AUTH_SYS is whatever the caller says it is.

use std::collections::HashSet;
use std::net::{IpAddr, SocketAddr};
use std::time::Instant;

use tracing::info;

use super::client::Client;
use super::error::StateError;
use super::machine::V4State;
use super::types::ClientId;

/// Where client records come from, for their per-peer cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Peer {
    /// No address (the state machine's tests; a transport without one).
    Unknown,
    V4([u8; 4]),
    /// The first 64 bits of an IPv6 address.
    V6Prefix(u64),
}

impl Peer {
    pub(super) fn of(addr: Option<SocketAddr>) -> Peer {
        match addr.map(|a| a.ip()) {
            None => Peer::Unknown,
            Some(IpAddr::V4(v4)) => Peer::V4(v4.octets()),
            Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
                Some(v4) => Peer::V4(v4.octets()),
                None => Peer::V6Prefix((u128::from(v6) >> 64) as u64),
            },
        }
    }
}

impl V4State {
    /// The record to drop so that one more confirmed client of `peer` fits (`None`: it fits as is), or
    /// NFS4ERR_RESOURCE when every candidate holds state under a live lease. Changes nothing.
    pub(super) fn room_for(&self, peer: Peer, now: Instant) -> Result<Option<ClientId>, StateError> {
        let limits = &self.config.limits;
        let held = self.peers.get(&peer).map_or(0, HashSet::len);
        if held >= limits.max_clients_per_peer.min(limits.max_clients) {
            // The peer makes room among its own records.
            return self.cheapest_of(peer, now).map(Some).ok_or(StateError::Resource("client records of one peer"));
        }
        if self.totals.confirmed_clients < limits.max_clients {
            return Ok(None);
        }
        // The table is full: a record whose lease ran out, wherever it is; else one of the peers holding
        // at least two more records than this one gives one up, the largest first (so no two peers take
        // a record from each other in turn).
        if let Some(lapsed) = self.clients.values().find(|c| c.confirmed && self.lapsed(c, now)) {
            return Ok(Some(lapsed.id));
        }
        let mut larger: Vec<(usize, Peer)> =
            self.peers.iter().filter(|(_, ids)| ids.len() > held + 1).map(|(p, ids)| (ids.len(), *p)).collect();
        larger.sort_unstable_by_key(|(held, _)| std::cmp::Reverse(*held));
        larger
            .iter()
            .find_map(|(_, p)| self.cheapest_of(*p, now))
            .map(Some)
            .ok_or(StateError::Resource("client records"))
    }

    /// Makes room for one more confirmed client of `peer` ([`V4State::room_for`]), dropping a record if
    /// need be.
    pub(super) fn admit(&mut self, peer: Peer, now: Instant) -> Result<(), StateError> {
        let Some(victim) = self.room_for(peer, now)? else { return Ok(()) };
        let lapsed = self.clients.get(&victim).is_some_and(|c| self.lapsed(c, now));
        if lapsed {
            self.expire_client(victim, "lease expired");
        } else {
            info!(
                clientid = victim.0,
                ?peer,
                "NFSv4 client record without state dropped to make room for a new client"
            );
            self.expire_client(victim, "dropped to make room for a new client");
        }
        Ok(())
    }

    /// The confirmed record of `peer` that costs least to lose: one whose lease ran out; else, of those
    /// holding no opens or locks, one that never sent a SEQUENCE before one that did, then the least
    /// recently renewed.
    fn cheapest_of(&self, peer: Peer, now: Instant) -> Option<ClientId> {
        let ids = self.peers.get(&peer)?;
        let candidates = ids.iter().filter_map(|id| self.clients.get(id));
        let cost = |c: &&Client| (!self.lapsed(c, now), c.sequenced, c.renewed, c.id);
        candidates.filter(|c| self.lapsed(c, now) || c.state.is_empty()).min_by_key(cost).map(|c| c.id)
    }

    /// Counts a newly confirmed record against its peer.
    pub(super) fn count_peer(&mut self, id: ClientId, peer: Peer) {
        self.peers.entry(peer).or_default().insert(id);
    }

    /// Takes a confirmed record that goes off its peer's count.
    pub(super) fn uncount_peer(&mut self, id: ClientId, peer: Peer) {
        if let Some(ids) = self.peers.get_mut(&peer) {
            ids.remove(&id);
            if ids.is_empty() {
                self.peers.remove(&peer);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_are_ipv4_addresses_and_ipv6_64s() {
        let at = |s: &str| Peer::of(Some(s.parse().expect("address")));
        assert_eq!(at("192.0.2.1:700"), at("192.0.2.1:2049"), "any port");
        assert_ne!(at("192.0.2.1:700"), at("192.0.2.2:700"));
        assert_eq!(at("[2001:db8:1:2::1]:700"), at("[2001:db8:1:2:ffff::9]:800"), "one /64");
        assert_ne!(at("[2001:db8:1:2::1]:700"), at("[2001:db8:1:3::1]:700"));
        assert_eq!(at("[::ffff:192.0.2.1]:700"), at("192.0.2.1:700"), "IPv4-mapped");
        assert_eq!(Peer::of(None), Peer::Unknown);
    }
}
