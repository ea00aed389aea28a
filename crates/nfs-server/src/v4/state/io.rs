//! The stateid check of READ, WRITE and SETATTR of the size (RFC 8881 §8.2.4, §9.1.3, §18.22, §18.32).
//!
//! Hot path: a client lookup and a stateid lookup (two for a lock stateid, whose open decides the mode) —
//! O(1) hash lookups; the anonymous stateid costs one file lookup. Byte-range locks are advisory here (as
//! on Linux): they do not stop I/O.

use std::time::Instant;

use super::error::StateError;
use super::machine::V4State;
use super::stateid::StateEntry;
use super::types::{ClientId, FileKey, IoAccess, Stateid, SHARE_ACCESS_WRITE};

impl V4State {
    /// May `client` do `io` on `file` under `stateid`? The "current stateid" (seqid 1, other 0) must have
    /// been replaced by the dispatch; any other special stateid but the anonymous and bypass ones is
    /// NFS4ERR_BAD_STATEID.
    pub fn check_io(
        &mut self,
        client: ClientId,
        file: FileKey,
        stateid: &Stateid,
        io: IoAccess,
        now: Instant,
    ) -> Result<(), StateError> {
        if stateid.is_anonymous_io() {
            // Anonymous I/O (the bypass stateid is treated alike) is refused by a deny reservation, with
            // NFS4ERR_LOCKED as knfsd's nfs4_share_conflict; a lapsed client's reservation gives way.
            let denied = |s: &Self| s.files.get(&file).is_some_and(|f| f.share.denies(io));
            if denied(self) && (self.reap_lapsed(now).is_empty() || denied(self)) {
                return Err(StateError::Locked);
            }
            return Ok(());
        }
        let state = &self.clients.get(&client).filter(|c| c.confirmed).ok_or(StateError::BadStateId)?.state;
        let serial = state.resolve_for(self.epoch, stateid, file)?;
        let open = match state.stateids.get(&serial) {
            Some(StateEntry::Open(open)) => open,
            Some(StateEntry::Lock(lock)) => match state.stateids.get(&lock.open) {
                Some(StateEntry::Open(open)) => open,
                _ => return Err(StateError::BadStateId),
            },
            None => return Err(StateError::BadStateId),
        };
        // RFC 8881 §9.1.2: writing needs write access; reading is allowed through any open (knfsd too: a
        // client with a write-only open reads to fill partial pages).
        if io == IoAccess::Write && open.access & SHARE_ACCESS_WRITE == 0 {
            return Err(StateError::OpenMode);
        }
        Ok(())
    }
}
