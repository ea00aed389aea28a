//! The grace period and reclaim (RFC 8881 §8.4.2, §18.51 RECLAIM_COMPLETE).
//!
//! When files outlive the server (`dir:` exports, [`super::StateConfig::reclaim`]), the server keeps a
//! record of the clients that may reclaim after a restart: the co_ownerid of every client that has sent
//! RECLAIM_COMPLETE (as knfsd records a v4.1 client then), dropped when the client expires or is
//! destroyed. The caller writes the record when it changes ([`V4State::reclaim_record_update`],
//! [`super::ReclaimFile`]) — before it sends the reply that changed it, so a crash right after cannot lose it.
//!
//! A server starting with such a record is in grace for [`super::StateConfig::grace`]: listed clients may
//! reclaim (OPEN with CLAIM_PREVIOUS, LOCK with reclaim) until they send RECLAIM_COMPLETE; every other
//! stateful request (a new OPEN, LOCK or LOCKT) gets NFS4ERR_GRACE; a reclaim from an unlisted client,
//! after its RECLAIM_COMPLETE or after grace gets NFS4ERR_NO_GRACE. Grace ends early once every listed client
//! has sent RECLAIM_COMPLETE (as knfsd). While in grace the record keeps the listed clients too, so a
//! second restart does not lose the ones yet to reclaim.

use std::collections::{BTreeSet, HashSet};
use std::time::Instant;

use tracing::info;

use super::client::Client;
use super::config::StateConfig;
use super::error::StateError;
use super::machine::V4State;
use super::types::ClientId;

/// The reclaim record to write: the owners that may reclaim after a restart, and a version that grows with
/// every change (so a slow writer never replaces a newer record with an older one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReclaimRecord {
    pub version: u64,
    /// Sorted.
    pub owners: Vec<Vec<u8>>,
}

#[derive(Debug)]
pub(super) struct Grace {
    /// State can be reclaimed at all (`StateConfig::reclaim`).
    enabled: bool,
    /// When the grace period ends; `None` once it has.
    ends: Option<Instant>,
    /// The previous instance's clients, while in grace.
    listed: HashSet<Box<[u8]>>,
    /// Listed owners that have sent RECLAIM_COMPLETE.
    reclaimed: HashSet<Box<[u8]>>,
    /// This instance's clients that sent RECLAIM_COMPLETE.
    current: BTreeSet<Box<[u8]>>,
    version: u64,
    written: u64,
}

impl Grace {
    pub(super) fn start(config: &StateConfig, now: Instant, reclaimable: Option<Vec<Vec<u8>>>) -> Grace {
        let listed: HashSet<Box<[u8]>> = match reclaimable {
            Some(owners) if config.reclaim => owners.into_iter().map(Vec::into_boxed_slice).collect(),
            _ => HashSet::new(),
        };
        // A record naming nobody begins no grace: with no client to wait for, it would end at once.
        let ends = (!listed.is_empty()).then(|| now + config.grace);
        if ends.is_some() {
            info!(clients = listed.len(), grace = ?config.grace, "NFSv4 grace period begins");
        }
        Grace {
            enabled: config.reclaim,
            ends,
            listed,
            reclaimed: HashSet::new(),
            current: BTreeSet::new(),
            version: 0,
            written: 0,
        }
    }

    pub(super) fn active(&self, now: Instant) -> bool {
        self.ends.is_some_and(|ends| now < ends)
    }

    /// Ends the grace period if its time is up; true when that happened now.
    pub(super) fn end_if_over(&mut self, now: Instant) -> bool {
        if self.ends.is_some_and(|ends| now >= ends) {
            self.end("its time is up");
            return true;
        }
        false
    }

    fn end(&mut self, why: &str) {
        info!(reclaimed = self.reclaimed.len(), listed = self.listed.len(), why, "NFSv4 grace period ends");
        self.ends = None;
        if !self.listed.is_empty() {
            self.listed.clear();
            self.reclaimed.clear();
            self.version += 1;
        }
    }

    fn may_reclaim(&self, client: &Client, now: Instant) -> Result<(), StateError> {
        if self.active(now) && !client.reclaim_complete && self.listed.contains(&client.owner) {
            Ok(())
        } else {
            Err(StateError::NoGrace)
        }
    }

    fn completed(&mut self, owner: &[u8]) {
        if !self.enabled {
            return;
        }
        if self.current.insert(owner.into()) {
            self.version += 1;
        }
        if self.ends.is_some() && self.listed.contains(owner) {
            self.reclaimed.insert(owner.into());
            if self.reclaimed.len() == self.listed.len() {
                self.end("every listed client has sent RECLAIM_COMPLETE");
            }
        }
    }

    pub(super) fn forget(&mut self, owner: &[u8]) {
        if self.current.remove(owner) {
            self.version += 1;
        }
    }
}

impl V4State {
    /// True while the grace period lasts.
    pub fn in_grace(&self, now: Instant) -> bool {
        self.grace.active(now)
    }

    /// RECLAIM_COMPLETE (RFC 8881 §18.51). `one_fs` (rca_one_fs) concerns a single migrated file system and
    /// changes nothing here (as knfsd). A second one → NFS4ERR_COMPLETE_ALREADY.
    pub fn reclaim_complete(&mut self, clientid: ClientId, one_fs: bool, now: Instant) -> Result<(), StateError> {
        let client = self.client_mut(clientid)?;
        if one_fs {
            return Ok(());
        }
        if client.reclaim_complete {
            return Err(StateError::CompleteAlready);
        }
        client.reclaim_complete = true;
        let owner = client.owner.clone();
        self.grace.end_if_over(now);
        self.grace.completed(&owner);
        Ok(())
    }

    /// The reclaim record to write, when it changed since the last call (and reclaim is enabled).
    pub fn reclaim_record_update(&mut self, now: Instant) -> Option<ReclaimRecord> {
        self.grace.end_if_over(now);
        let grace = &mut self.grace;
        if !grace.enabled || grace.version == grace.written {
            return None;
        }
        grace.written = grace.version;
        let mut owners: BTreeSet<&[u8]> = grace.current.iter().map(|o| &**o).collect();
        owners.extend(grace.listed.iter().map(|o| &**o));
        Some(ReclaimRecord { version: grace.version, owners: owners.into_iter().map(<[u8]>::to_vec).collect() })
    }

    /// Whether `client` may do a stateful operation now: a reclaim only in grace for a listed client, any
    /// other only outside grace.
    pub(super) fn check_claim(&self, client: &Client, reclaim: bool, now: Instant) -> Result<(), StateError> {
        if reclaim {
            self.grace.may_reclaim(client, now)
        } else if self.grace.active(now) {
            Err(StateError::Grace)
        } else {
            Ok(())
        }
    }
}
