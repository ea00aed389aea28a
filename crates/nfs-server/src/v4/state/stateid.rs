//! Stateids (RFC 8881 §8.2): what each client holds, how a stateid from the wire is resolved, TEST_STATEID
//! (§18.48) and FREE_STATEID (§18.38).
//!
//! A stateid's `other` names an entry of its client's table (the epoch, then a serial never reused); only
//! the client that holds a stateid can use it — another client's, or one from an earlier server instance,
//! is NFS4ERR_BAD_STATEID (as knfsd for sessions). Its seqid is checked by §8.2.2: 0 means "the current
//! one", the current one passes, an earlier one is NFS4ERR_OLD_STATEID, a later one NFS4ERR_BAD_STATEID.

use std::collections::HashMap;

use super::error::StateError;
use super::machine::{Totals, V4State};
use super::owners::OwnerTable;
use super::share::FileState;
use super::types::{ClientId, FileKey, Stateid};

/// One open: the stateid of an (open-owner, file) pair (RFC 8881 §9.7).
#[derive(Debug)]
pub(super) struct OpenState {
    pub(super) owner: u32,
    pub(super) file: FileKey,
    pub(super) seqid: u32,
    /// The union of the share_access of the OPENs in effect.
    pub(super) access: u32,
    pub(super) deny: u32,
    /// Which (access, deny) pairs OPENs asked for, bit `access * 4 + deny`: OPEN_DOWNGRADE may only go to
    /// a union of some of them (RFC 8881 §18.18.3).
    pub(super) seen: u16,
    /// Lock stateids made from this open (open_to_lock_owner4).
    pub(super) locks: Vec<u64>,
}

/// One lock stateid: a (lock-owner, file) pair, made from an open (RFC 8881 §9.1.4.1).
#[derive(Debug)]
pub(super) struct LockState {
    pub(super) owner: u32,
    pub(super) file: FileKey,
    pub(super) seqid: u32,
    pub(super) open: u64,
}

#[derive(Debug)]
pub(super) enum StateEntry {
    Open(OpenState),
    Lock(LockState),
}

impl StateEntry {
    pub(super) fn seqid(&self) -> u32 {
        match self {
            StateEntry::Open(o) => o.seqid,
            StateEntry::Lock(l) => l.seqid,
        }
    }

    pub(super) fn file(&self) -> FileKey {
        match self {
            StateEntry::Open(o) => o.file,
            StateEntry::Lock(l) => l.file,
        }
    }
}

/// Everything one client holds.
#[derive(Debug, Default)]
pub(super) struct ClientState {
    pub(super) open_owners: OwnerTable,
    pub(super) lock_owners: OwnerTable,
    /// By serial (the last 8 bytes of `other`).
    pub(super) stateids: HashMap<u64, StateEntry>,
    /// (open-owner, file) → open stateid serial.
    pub(super) opens: HashMap<(u32, FileKey), u64>,
    /// (lock-owner, file) → lock stateid serial.
    pub(super) lock_states: HashMap<(u32, FileKey), u64>,
    /// Locked ranges over all the client's lock stateids.
    pub(super) locks: usize,
}

impl ClientState {
    pub(super) fn is_empty(&self) -> bool {
        self.stateids.is_empty()
    }

    /// Resolves a non-special stateid to its serial, checking epoch, holder and seqid (RFC 8881 §8.2.2).
    pub(super) fn resolve(&self, epoch: u32, stateid: &Stateid) -> Result<u64, StateError> {
        if stateid.is_special() || stateid.epoch() != epoch {
            return Err(StateError::BadStateId);
        }
        let serial = stateid.serial();
        let entry = self.stateids.get(&serial).ok_or(StateError::BadStateId)?;
        let current = entry.seqid();
        if stateid.seqid == 0 || stateid.seqid == current {
            Ok(serial)
        } else if (current.wrapping_sub(stateid.seqid) as i32) > 0 {
            Err(StateError::OldStateId)
        } else {
            Err(StateError::BadStateId)
        }
    }

    /// Resolves a stateid that must be for `file`.
    pub(super) fn resolve_for(&self, epoch: u32, stateid: &Stateid, file: FileKey) -> Result<u64, StateError> {
        let serial = self.resolve(epoch, stateid)?;
        // RFC 8881 §8.2.4: a stateid used with a file it was not issued for is BAD_STATEID.
        match self.stateids.get(&serial) {
            Some(entry) if entry.file() == file => Ok(serial),
            _ => Err(StateError::BadStateId),
        }
    }

    /// Removes a lock stateid and its ranges; how many ranges went.
    pub(super) fn remove_lock_state(
        &mut self,
        client: ClientId,
        serial: u64,
        files: &mut HashMap<FileKey, FileState>,
        totals: &mut Totals,
    ) -> usize {
        let Some(StateEntry::Lock(lock)) = self.stateids.remove(&serial) else { return 0 };
        self.lock_states.remove(&(lock.owner, lock.file));
        if let Some(StateEntry::Open(open)) = self.stateids.get_mut(&lock.open) {
            open.locks.retain(|s| *s != serial);
        }
        let mut ranges = 0;
        if let Some(file) = files.get_mut(&lock.file) {
            ranges = file.locks.remove_holder((client, lock.owner));
            if file.is_unused() {
                files.remove(&lock.file);
            }
        }
        self.locks -= ranges;
        totals.locks -= ranges;
        totals.stateids -= 1;
        if self.lock_owners.release(lock.owner) {
            totals.owners -= 1;
        }
        ranges
    }

    /// Removes an open stateid (its lock stateids must be gone) and its share reservation.
    pub(super) fn remove_open_state(
        &mut self,
        serial: u64,
        files: &mut HashMap<FileKey, FileState>,
        totals: &mut Totals,
    ) {
        let Some(StateEntry::Open(open)) = self.stateids.remove(&serial) else { return };
        self.opens.remove(&(open.owner, open.file));
        if let Some(file) = files.get_mut(&open.file) {
            file.share.remove(open.access, open.deny);
            file.opens -= 1;
            if file.is_unused() {
                files.remove(&open.file);
            }
        }
        totals.stateids -= 1;
        if self.open_owners.release(open.owner) {
            totals.owners -= 1;
        }
    }

    /// Releases everything (lease expiry, a replaced or destroyed client): locks first, then opens.
    pub(super) fn release_all(
        &mut self,
        client: ClientId,
        files: &mut HashMap<FileKey, FileState>,
        totals: &mut Totals,
    ) {
        let locks: Vec<u64> =
            self.stateids.iter().filter(|(_, e)| matches!(e, StateEntry::Lock(_))).map(|(s, _)| *s).collect();
        for serial in locks {
            self.remove_lock_state(client, serial, files, totals);
        }
        let opens: Vec<u64> = self.stateids.keys().copied().collect();
        for serial in opens {
            self.remove_open_state(serial, files, totals);
        }
    }
}

/// The seqid after `seqid`: RFC 8881 §8.2.2, 0 is skipped when it wraps.
pub(super) fn next_seqid(seqid: u32) -> u32 {
    seqid.checked_add(1).unwrap_or(1)
}

impl V4State {
    /// TEST_STATEID (RFC 8881 §18.48): a status per stateid, as `client` would see it used.
    pub fn test_stateids(&self, client: ClientId, stateids: &[Stateid]) -> Vec<Result<(), StateError>> {
        let state = self.clients.get(&client).map(|c| &c.state);
        stateids
            .iter()
            .map(|s| state.ok_or(StateError::BadStateId).and_then(|st| st.resolve(self.epoch, s)).map(|_| ()))
            .collect()
    }

    /// FREE_STATEID (RFC 8881 §18.38): a lock stateid holding no locks goes; one with locks, or an open
    /// stateid, is NFS4ERR_LOCKS_HELD (as knfsd). The seqid is not checked: the stateid is being let go.
    pub fn free_stateid(&mut self, client: ClientId, stateid: &Stateid) -> Result<(), StateError> {
        let epoch = self.epoch;
        let client_state =
            &mut self.clients.get_mut(&client).filter(|c| c.confirmed).ok_or(StateError::BadStateId)?.state;
        let any_seqid = Stateid { seqid: 0, ..*stateid };
        let serial = client_state.resolve(epoch, &any_seqid)?;
        match client_state.stateids.get(&serial) {
            Some(StateEntry::Lock(lock)) => {
                let holder = (client, lock.owner);
                if self.files.get(&lock.file).is_some_and(|f| f.locks.held(holder) > 0) {
                    return Err(StateError::LocksHeld);
                }
                client_state.remove_lock_state(client, serial, &mut self.files, &mut self.totals);
                Ok(())
            }
            Some(StateEntry::Open(_)) => Err(StateError::LocksHeld),
            None => Err(StateError::BadStateId),
        }
    }
}
