//! OPEN, OPEN_DOWNGRADE and CLOSE as far as state goes (RFC 8881 §9.7 share reservations, §18.16, §18.18,
//! §18.2): the dispatch has done the file system part (lookup, create, permission checks) and asks here
//! for the stateid.
//!
//! One open stateid per (open-owner, file): a second OPEN by the same owner adds its access and deny bits
//! to it (checked against everyone else's reservations, not the owner's own) and bumps its seqid.

use std::time::Instant;

use super::error::StateError;
use super::machine::V4State;
use super::stateid::{next_seqid, OpenState, StateEntry};
use super::types::{ClientId, FileKey, Stateid, SHARE_ACCESS_BOTH, SHARE_DENY_BOTH};

/// How the OPEN claims the file (RFC 8881 §18.16.1 open_claim4), as far as state goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpenClaim {
    /// CLAIM_NULL, CLAIM_FH and the other non-reclaim claims.
    New,
    /// CLAIM_PREVIOUS: a reclaim during grace.
    Previous,
}

#[derive(Debug, Clone, Copy)]
pub struct OpenArgs<'a> {
    pub clientid: ClientId,
    /// The open-owner's bytes (open_owner4.owner; its clientid field is the session's in v4.1).
    pub owner: &'a [u8],
    pub file: FileKey,
    /// share_access without the "want" bits: 1, 2 or 3.
    pub access: u32,
    /// share_deny: 0 to 3.
    pub deny: u32,
    pub claim: OpenClaim,
}

/// The open stateid and the modes it now holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenOk {
    pub stateid: Stateid,
    pub access: u32,
    pub deny: u32,
}

/// RFC 8881 §18.16.3: share_access must name READ, WRITE or both; share_deny at most both.
fn check_share(access: u32, deny: u32) -> Result<(), StateError> {
    if access == 0 || access > SHARE_ACCESS_BOTH {
        return Err(StateError::Inval("share_access"));
    }
    if deny > SHARE_DENY_BOTH {
        return Err(StateError::Inval("share_deny"));
    }
    Ok(())
}

/// The bit of [`OpenState::seen`] for one OPEN's modes.
fn seen_bit(access: u32, deny: u32) -> u16 {
    1 << (access * 4 + deny)
}

impl V4State {
    /// OPEN: a new open stateid, or the owner's existing one for the file with the new modes added.
    pub fn open(&mut self, args: &OpenArgs<'_>, now: Instant) -> Result<OpenOk, StateError> {
        check_share(args.access, args.deny)?;
        self.check_owner_len(args.owner)?;
        let client = self.client(args.clientid)?;
        self.check_claim(client, args.claim == OpenClaim::Previous, now)?;
        let owner = client.state.open_owners.find(args.owner);
        let existing = owner.and_then(|o| client.state.opens.get(&(o, args.file))).copied();
        let own = existing.and_then(|serial| match client.state.stateids.get(&serial) {
            Some(StateEntry::Open(open)) => Some((open.access, open.deny)),
            _ => None,
        });
        let (access, deny) = own.map_or((args.access, args.deny), |(a, d)| (a | args.access, d | args.deny));
        let conflicts = |s: &Self| s.files.get(&args.file).is_some_and(|f| f.share.conflicts(access, deny, own));
        // RFC 8881 §8.3: a reservation of a client whose lease ran out gives way.
        if conflicts(self) && (self.reap_lapsed(now).is_empty() || conflicts(self)) {
            return Err(StateError::ShareDenied);
        }
        if let Some(serial) = existing {
            return self.upgrade_open(args, serial, access, deny);
        }
        let limits = self.config.limits;
        let client = self.client(args.clientid)?;
        if owner.is_none() {
            if client.state.open_owners.len() >= limits.max_open_owners_per_client {
                return Err(StateError::Resource("open-owners per client"));
            }
            if self.totals.owners >= limits.max_owners_total {
                return Err(StateError::Resource("owners"));
            }
        }
        if client.state.stateids.len() >= limits.max_stateids_per_client {
            return Err(StateError::Resource("stateids per client"));
        }
        if self.totals.stateids >= limits.max_stateids_total {
            return Err(StateError::Resource("stateids"));
        }
        let serial = self.new_stateid_serial();
        let epoch = self.epoch;
        let client = self.clients.get_mut(&args.clientid).filter(|c| c.confirmed).ok_or(StateError::StaleClientId)?;
        let owner = match owner {
            Some(owner) => owner,
            None => {
                self.totals.owners += 1;
                client.state.open_owners.insert(args.owner)
            }
        };
        client.state.open_owners.hold(owner);
        let open = OpenState {
            owner,
            file: args.file,
            seqid: 1,
            access,
            deny,
            seen: seen_bit(args.access, args.deny),
            locks: Vec::new(),
        };
        client.state.stateids.insert(serial, StateEntry::Open(open));
        client.state.opens.insert((owner, args.file), serial);
        let file = self.files.entry(args.file).or_default();
        file.share.add(access, deny);
        file.opens += 1;
        self.totals.stateids += 1;
        Ok(OpenOk { stateid: Stateid::issued(epoch, serial, 1), access, deny })
    }

    fn upgrade_open(&mut self, args: &OpenArgs<'_>, serial: u64, access: u32, deny: u32) -> Result<OpenOk, StateError> {
        let epoch = self.epoch;
        let client = self.clients.get_mut(&args.clientid).ok_or(StateError::StaleClientId)?;
        let Some(StateEntry::Open(open)) = client.state.stateids.get_mut(&serial) else {
            return Err(StateError::BadStateId);
        };
        if let Some(file) = self.files.get_mut(&args.file) {
            file.share.remove(open.access, open.deny);
            file.share.add(access, deny);
        }
        open.access = access;
        open.deny = deny;
        open.seen |= seen_bit(args.access, args.deny);
        open.seqid = next_seqid(open.seqid);
        Ok(OpenOk { stateid: Stateid::issued(epoch, serial, open.seqid), access, deny })
    }

    /// OPEN_DOWNGRADE (RFC 8881 §18.18.3): the new modes must be the union of the modes of some of the OPENs
    /// in effect, else NFS4ERR_INVAL.
    pub fn open_downgrade(
        &mut self,
        clientid: ClientId,
        file: FileKey,
        stateid: &Stateid,
        access: u32,
        deny: u32,
    ) -> Result<Stateid, StateError> {
        check_share(access, deny)?;
        let epoch = self.epoch;
        let client = self.clients.get_mut(&clientid).filter(|c| c.confirmed).ok_or(StateError::StaleClientId)?;
        let serial = client.state.resolve_for(epoch, stateid, file)?;
        let Some(StateEntry::Open(open)) = client.state.stateids.get_mut(&serial) else {
            return Err(StateError::BadStateId);
        };
        let mut kept = 0u16;
        let (mut union_access, mut union_deny) = (0, 0);
        for (a, d) in (1..=SHARE_ACCESS_BOTH).flat_map(|a| (0..=SHARE_DENY_BOTH).map(move |d| (a, d))) {
            if open.seen & seen_bit(a, d) != 0 && a & !access == 0 && d & !deny == 0 {
                kept |= seen_bit(a, d);
                union_access |= a;
                union_deny |= d;
            }
        }
        if (union_access, union_deny) != (access, deny) {
            return Err(StateError::Inval("OPEN_DOWNGRADE to modes no OPEN asked for"));
        }
        if let Some(f) = self.files.get_mut(&file) {
            f.share.remove(open.access, open.deny);
            f.share.add(access, deny);
        }
        open.access = access;
        open.deny = deny;
        open.seen = kept;
        open.seqid = next_seqid(open.seqid);
        Ok(Stateid::issued(epoch, serial, open.seqid))
    }

    /// CLOSE (RFC 8881 §18.2): the open goes with the lock stateids made from it, which must hold no locks
    /// (NFS4ERR_LOCKS_HELD). Returns the invalid special stateid, as §18.2.4 recommends.
    pub fn close(&mut self, clientid: ClientId, file: FileKey, stateid: &Stateid) -> Result<Stateid, StateError> {
        let epoch = self.epoch;
        let client = self.clients.get_mut(&clientid).filter(|c| c.confirmed).ok_or(StateError::StaleClientId)?;
        let serial = client.state.resolve_for(epoch, stateid, file)?;
        let Some(StateEntry::Open(open)) = client.state.stateids.get(&serial) else {
            return Err(StateError::BadStateId);
        };
        let lock_serials = open.locks.clone();
        for lock_serial in &lock_serials {
            if let Some(StateEntry::Lock(lock)) = client.state.stateids.get(lock_serial) {
                if self.files.get(&file).is_some_and(|f| f.locks.held((clientid, lock.owner)) > 0) {
                    return Err(StateError::LocksHeld);
                }
            }
        }
        for lock_serial in lock_serials {
            client.state.remove_lock_state(clientid, lock_serial, &mut self.files, &mut self.totals);
        }
        client.state.remove_open_state(serial, &mut self.files, &mut self.totals);
        Ok(Stateid::INVALID)
    }
}
