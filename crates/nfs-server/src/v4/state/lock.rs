//! LOCK, LOCKT and LOCKU (RFC 8881 §9, §18.10–§18.12).
//!
//! A LOCK names its lock-owner either new — with the open stateid it derives from (open_to_lock_owner4) —
//! or existing, by its lock stateid (exist_lock_owner4); one lock stateid per (lock-owner, file), reused
//! when a known lock-owner comes again with an open stateid (as knfsd for v4.1). Blocking requests are
//! answered at once. Conflicts report the holder's range, type and lock-owner.

use std::time::Instant;

use super::error::StateError;
use super::machine::V4State;
use super::ranges::{Holder, Range};
use super::stateid::{next_seqid, LockState, StateEntry};
use super::types::{
    ClientId, FileKey, LockConflict, LockOwnerName, LockType, Stateid, SHARE_ACCESS_READ, SHARE_ACCESS_WRITE,
};

/// `locker4`: who asks for the lock.
#[derive(Debug, Clone, Copy)]
pub enum Locker<'a> {
    /// open_to_lock_owner4: a lock-owner named by its bytes, with the open stateid it locks under.
    New { open_stateid: Stateid, owner: &'a [u8] },
    /// exist_lock_owner4: the lock stateid of an owner that has locked the file before.
    Existing { lock_stateid: Stateid },
}

#[derive(Debug, Clone, Copy)]
pub struct LockArgs<'a> {
    pub clientid: ClientId,
    pub file: FileKey,
    pub lock_type: LockType,
    /// A reclaim during grace (RFC 8881 §18.10.3 `reclaim`).
    pub reclaim: bool,
    pub offset: u64,
    /// NFS4_UINT64_MAX: to the end of the file.
    pub length: u64,
    pub locker: Locker<'a>,
}

/// The inclusive end of `length` bytes at `offset` (RFC 8881 §18.10.4: a zero length, or a range past
/// 2^64 − 1 that is not "to the end", is NFS4ERR_INVAL).
fn range_end(offset: u64, length: u64) -> Result<u64, StateError> {
    match length {
        0 => Err(StateError::Inval("lock length 0")),
        u64::MAX => Ok(u64::MAX),
        _ => offset.checked_add(length).map(|after| after - 1).ok_or(StateError::Inval("lock range past 2^64 - 1")),
    }
}

impl V4State {
    /// LOCK: the lock stateid (its seqid bumped) or NFS4ERR_DENIED with the lock in the way.
    pub fn lock(&mut self, args: &LockArgs<'_>, now: Instant) -> Result<Stateid, StateError> {
        let end = range_end(args.offset, args.length)?;
        let client = self.client(args.clientid)?;
        self.check_claim(client, args.reclaim, now)?;
        let state = &client.state;
        let (open_serial, owner, lock_serial, new_owner) = match args.locker {
            Locker::New { open_stateid, owner } => {
                self.check_owner_len(owner)?;
                let open = state.resolve_for(self.epoch, &open_stateid, args.file)?;
                let id = state.lock_owners.find(owner);
                let existing = id.and_then(|id| state.lock_states.get(&(id, args.file))).copied();
                (open, id, existing, Some(owner))
            }
            Locker::Existing { lock_stateid } => {
                let serial = state.resolve_for(self.epoch, &lock_stateid, args.file)?;
                match state.stateids.get(&serial) {
                    Some(StateEntry::Lock(lock)) => (lock.open, Some(lock.owner), Some(serial), None),
                    _ => return Err(StateError::BadStateId),
                }
            }
        };
        let Some(StateEntry::Open(open)) = state.stateids.get(&open_serial) else { return Err(StateError::BadStateId) };
        // RFC 8881 §18.10.4 (and knfsd): a read lock needs read access, a write lock write access.
        let needed = if args.lock_type == LockType::Read { SHARE_ACCESS_READ } else { SHARE_ACCESS_WRITE };
        if open.access & needed == 0 {
            return Err(StateError::OpenMode);
        }
        let me = owner.map(|o| (args.clientid, o));
        self.check_lock_conflict(args.file, args.offset, end, args.lock_type, me, now)?;
        let client = self.client(args.clientid)?;
        // How many more ranges the owner will hold (one for an owner with none on the file).
        let delta = match (me, self.files.get(&args.file)) {
            (Some(me), Some(file)) => file.locks.plan(me, args.offset, end, Some(args.lock_type)).delta(),
            _ => 1,
        };
        let limits = self.config.limits;
        if owner.is_none() {
            if client.state.lock_owners.len() >= limits.max_lock_owners_per_client {
                return Err(StateError::Resource("lock-owners per client"));
            }
            if self.totals.owners >= limits.max_owners_total {
                return Err(StateError::Resource("owners"));
            }
        }
        if lock_serial.is_none() {
            if client.state.stateids.len() >= limits.max_stateids_per_client {
                return Err(StateError::Resource("stateids per client"));
            }
            if self.totals.stateids >= limits.max_stateids_total {
                return Err(StateError::Resource("stateids"));
            }
        }
        if delta > 0 {
            if client.state.locks + delta as usize > limits.max_locks_per_client {
                return Err(StateError::Resource("locks per client"));
            }
            if self.totals.locks + delta as usize > limits.max_locks_total {
                return Err(StateError::Resource("locks"));
            }
        }
        // Everything checked: make the owner and the stateid if new, then lock.
        let serial = match lock_serial {
            Some(serial) => serial,
            None => self.new_stateid_serial(),
        };
        let epoch = self.epoch;
        let client = self.clients.get_mut(&args.clientid).ok_or(StateError::StaleClientId)?;
        let owner = match (owner, new_owner) {
            (Some(owner), _) => owner,
            (None, Some(name)) => {
                self.totals.owners += 1;
                client.state.lock_owners.insert(name)
            }
            (None, None) => return Err(StateError::BadStateId),
        };
        if lock_serial.is_none() {
            client.state.lock_owners.hold(owner);
            let lock = LockState { owner, file: args.file, seqid: 0, open: open_serial };
            client.state.stateids.insert(serial, StateEntry::Lock(lock));
            client.state.lock_states.insert((owner, args.file), serial);
            if let Some(StateEntry::Open(open)) = client.state.stateids.get_mut(&open_serial) {
                open.locks.push(serial);
            }
            self.totals.stateids += 1;
        }
        let holder = (args.clientid, owner);
        let file = self.files.entry(args.file).or_default();
        let plan = file.locks.plan(holder, args.offset, end, Some(args.lock_type));
        let delta = plan.delta();
        file.locks.apply(holder, plan);
        client.state.locks = client.state.locks.saturating_add_signed(delta);
        self.totals.locks = self.totals.locks.saturating_add_signed(delta);
        let Some(StateEntry::Lock(lock)) = client.state.stateids.get_mut(&serial) else {
            return Err(StateError::BadStateId);
        };
        lock.seqid = next_seqid(lock.seqid);
        Ok(Stateid::issued(epoch, serial, lock.seqid))
    }

    /// LOCKT (RFC 8881 §18.11): Ok when `owner` could lock the range now, else NFS4ERR_DENIED with the holder.
    #[allow(clippy::too_many_arguments)]
    pub fn lockt(
        &mut self,
        clientid: ClientId,
        file: FileKey,
        lock_type: LockType,
        offset: u64,
        length: u64,
        owner: &[u8],
        now: Instant,
    ) -> Result<(), StateError> {
        let end = range_end(offset, length)?;
        let client = self.client(clientid)?;
        // RFC 8881 §8.4.2: LOCKT during grace could answer for locks not yet reclaimed.
        if self.grace.active(now) {
            return Err(StateError::Grace);
        }
        let me = client.state.lock_owners.find(owner).map(|o| (clientid, o));
        self.check_lock_conflict(file, offset, end, lock_type, me, now)
    }

    /// LOCKU (RFC 8881 §18.12): unlocks the range (splitting a lock around it); unlocking what is not
    /// locked is no error. Returns the lock stateid with its seqid bumped.
    pub fn locku(
        &mut self,
        clientid: ClientId,
        file: FileKey,
        stateid: &Stateid,
        offset: u64,
        length: u64,
    ) -> Result<Stateid, StateError> {
        let end = range_end(offset, length)?;
        let epoch = self.epoch;
        let limits = self.config.limits;
        let client = self.clients.get_mut(&clientid).filter(|c| c.confirmed).ok_or(StateError::StaleClientId)?;
        let serial = client.state.resolve_for(epoch, stateid, file)?;
        let Some(StateEntry::Lock(lock)) = client.state.stateids.get_mut(&serial) else {
            return Err(StateError::BadStateId);
        };
        let holder = (clientid, lock.owner);
        if let Some(f) = self.files.get_mut(&file) {
            let plan = f.locks.plan(holder, offset, end, None);
            let delta = plan.delta();
            if delta > 0
                && (client.state.locks + delta as usize > limits.max_locks_per_client
                    || self.totals.locks + delta as usize > limits.max_locks_total)
            {
                return Err(StateError::Resource("locks"));
            }
            f.locks.apply(holder, plan);
            client.state.locks = client.state.locks.saturating_add_signed(delta);
            self.totals.locks = self.totals.locks.saturating_add_signed(delta);
            if f.is_unused() {
                self.files.remove(&file);
            }
        }
        lock.seqid = next_seqid(lock.seqid);
        Ok(Stateid::issued(epoch, serial, lock.seqid))
    }

    /// NFS4ERR_DENIED if another owner's lock conflicts; a lapsed client's locks give way first (RFC 8881
    /// §8.3).
    fn check_lock_conflict(
        &mut self,
        file: FileKey,
        start: u64,
        end: u64,
        want: LockType,
        me: Option<Holder>,
        now: Instant,
    ) -> Result<(), StateError> {
        let find = |s: &Self| s.files.get(&file).and_then(|f| f.locks.conflict(start, end, want, me));
        let Some((holder, range)) = find(self) else { return Ok(()) };
        if self.clients.get(&holder.0).is_some_and(|c| self.lapsed(c, now)) {
            self.reap_lapsed(now);
            return match find(self) {
                Some((holder, range)) => Err(self.denied(holder, range)),
                None => Ok(()),
            };
        }
        Err(self.denied(holder, range))
    }

    fn denied(&self, holder: Holder, range: Range) -> StateError {
        let owner = self.clients.get(&holder.0).and_then(|c| c.state.lock_owners.name(holder.1)).unwrap_or_default();
        let length = if range.end == u64::MAX { u64::MAX } else { range.end - range.start + 1 };
        StateError::Denied {
            conflict: LockConflict {
                offset: range.start,
                length,
                lock_type: range.kind,
                owner: LockOwnerName { clientid: holder.0, owner: owner.to_vec() },
            },
        }
    }
}
