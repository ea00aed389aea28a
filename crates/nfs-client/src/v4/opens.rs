//! The client's open files (RFC 8881 §9), sans I/O: one open per file handle, shared by every user of
//! it (the engine's clones), with the newest open stateid the server gave for it.
//!
//! - A second OPEN of a file already open (an upgrade of its share access) keeps the later stateid: the
//!   server bumps `seqid` with each OPEN of the same open state, and replies may come back out of order
//!   (Linux: `nfs_need_update_open_stateid`).
//! - READ, WRITE and SETATTR carry the stateid with `seqid` 0: "the most recent" for the server
//!   (RFC 8881 §8.2.2, as Linux does for v4.1), so they never race an upgrade into NFS4ERR_OLD_STATEID.
//! - The last user's close says which stateid to CLOSE; a server restart asks for every open file to be
//!   reclaimed (OPEN with CLAIM_PREVIOUS by handle), and each reclaim replaces the stateid.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use nfs4_proto::Stateid4;

use crate::types::FileHandle;

/// RFC 8881 §18.16.3 `share_access`: OPEN4_SHARE_ACCESS_READ / _WRITE / _BOTH.
pub(crate) const SHARE_ACCESS_READ: u32 = 1;
pub(crate) const SHARE_ACCESS_WRITE: u32 = 2;
pub(crate) const SHARE_ACCESS_BOTH: u32 = 3;

/// One open file: its handle, the share access asked, and the current open stateid.
#[derive(Debug)]
pub(crate) struct OpenState {
    pub(crate) fh: FileHandle,
    stateid: Mutex<Stateid4>,
}

impl OpenState {
    fn new(fh: FileHandle, stateid: Stateid4) -> Self {
        OpenState { fh, stateid: Mutex::new(stateid) }
    }

    /// The open stateid as the server last gave it (what CLOSE and OPEN_DOWNGRADE carry).
    pub(crate) fn stateid(&self) -> Stateid4 {
        *self.stateid.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The stateid READ, WRITE and SETATTR carry: `seqid` 0, "the current one" (RFC 8881 §8.2.2).
    pub(crate) fn io_stateid(&self) -> Stateid4 {
        Stateid4 { seqid: 0, ..self.stateid() }
    }

    /// Takes `stateid` if it is the same open state, later; or another open state altogether (after a
    /// reclaim the server names it anew). Returns whether it was taken.
    fn update(&self, stateid: Stateid4) -> bool {
        let mut current = self.stateid.lock().unwrap_or_else(PoisonError::into_inner);
        let newer = current.other != stateid.other || (stateid.seqid.wrapping_sub(current.seqid) as i32) > 0;
        if newer {
            *current = stateid;
        }
        newer
    }

    fn replace(&self, stateid: Stateid4) {
        *self.stateid.lock().unwrap_or_else(PoisonError::into_inner) = stateid;
    }
}

#[derive(Debug)]
struct Entry {
    state: Arc<OpenState>,
    /// The share access of the open (the union of every open of it).
    access: u32,
    users: usize,
}

/// Every file the client holds open.
#[derive(Debug, Default)]
pub(crate) struct OpenFiles {
    files: HashMap<FileHandle, Entry>,
}

/// An open file to reclaim after a server restart: its handle and share access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reclaim {
    pub(crate) fh: FileHandle,
    pub(crate) access: u32,
}

impl OpenFiles {
    /// The share access an OPEN of `fh` must ask for: `wanted` plus what the file is already open for,
    /// so an upgrade never downgrades another user's access.
    pub(crate) fn access_for(&self, fh: &FileHandle, wanted: u32) -> u32 {
        self.files.get(fh).map_or(wanted, |e| e.access | wanted)
    }

    /// An OPEN of `fh` with `access` succeeded with `stateid`: a new open, or one more user of the
    /// existing one whose stateid is updated if later.
    pub(crate) fn opened(&mut self, fh: &FileHandle, access: u32, stateid: Stateid4) -> Arc<OpenState> {
        match self.files.get_mut(fh) {
            Some(entry) => {
                entry.state.update(stateid);
                entry.access |= access;
                entry.users += 1;
                entry.state.clone()
            }
            None => {
                let state = Arc::new(OpenState::new(fh.clone(), stateid));
                self.files.insert(fh.clone(), Entry { state: state.clone(), access, users: 1 });
                state
            }
        }
    }

    /// One user is done with `fh`. When it was the last, the open is forgotten and returned for CLOSE.
    pub(crate) fn release(&mut self, fh: &FileHandle) -> Option<Arc<OpenState>> {
        let entry = self.files.get_mut(fh)?;
        entry.users = entry.users.saturating_sub(1);
        if entry.users > 0 {
            return None;
        }
        self.files.remove(fh).map(|e| e.state)
    }

    /// The open state of `fh`, if it is open.
    pub(crate) fn get(&self, fh: &FileHandle) -> Option<Arc<OpenState>> {
        self.files.get(fh).map(|e| e.state.clone())
    }

    /// Every open file, for reclaim after a server restart (RFC 8881 §8.4.2.1).
    pub(crate) fn to_reclaim(&self) -> Vec<Reclaim> {
        let mut all: Vec<Reclaim> =
            self.files.iter().map(|(fh, e)| Reclaim { fh: fh.clone(), access: e.access }).collect();
        all.sort_by(|a, b| a.fh.as_bytes().cmp(b.fh.as_bytes()));
        all
    }

    /// A reclaim of `fh` succeeded: the server's new stateid replaces the old one.
    pub(crate) fn reclaimed(&mut self, fh: &FileHandle, stateid: Stateid4) {
        if let Some(entry) = self.files.get(fh) {
            entry.state.replace(stateid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fh(n: u8) -> FileHandle {
        FileHandle::from_bytes(&[n; 8]).expect("handle")
    }

    fn sid(seqid: u32, other: u8) -> Stateid4 {
        Stateid4 { seqid, other: [other; 12] }
    }

    #[test]
    fn one_open_per_file_is_shared_and_closed_by_its_last_user() {
        let mut opens = OpenFiles::default();
        let a = opens.opened(&fh(1), SHARE_ACCESS_BOTH, sid(1, 7));
        let b = opens.opened(&fh(1), SHARE_ACCESS_READ, sid(2, 7));
        assert!(Arc::ptr_eq(&a, &b), "the same open");
        assert!(opens.release(&fh(1)).is_none(), "one user left");
        let last = opens.release(&fh(1)).expect("the last user closes");
        assert_eq!(last.stateid(), sid(2, 7));
        assert!(opens.get(&fh(1)).is_none());
        assert!(opens.release(&fh(1)).is_none());
    }

    #[test]
    fn an_upgrade_keeps_the_later_stateid_whatever_order_replies_come_in() {
        let mut opens = OpenFiles::default();
        opens.opened(&fh(1), SHARE_ACCESS_READ, sid(1, 7));
        assert_eq!(opens.access_for(&fh(1), SHARE_ACCESS_WRITE), SHARE_ACCESS_BOTH);
        let state = opens.opened(&fh(1), SHARE_ACCESS_WRITE, sid(3, 7));
        opens.opened(&fh(1), SHARE_ACCESS_WRITE, sid(2, 7));
        assert_eq!(state.stateid(), sid(3, 7), "seqid 2 came back after 3");
        assert_eq!(opens.access_for(&fh(1), 0), SHARE_ACCESS_BOTH);
        opens.opened(&fh(1), SHARE_ACCESS_READ, sid(0, 7));
        assert_eq!(state.stateid(), sid(3, 7));
        state.update(sid(0, 7));
        assert_eq!(state.stateid(), sid(3, 7));
    }

    #[test]
    fn io_carries_seqid_zero_for_the_current_stateid() {
        let mut opens = OpenFiles::default();
        let state = opens.opened(&fh(2), SHARE_ACCESS_BOTH, sid(5, 9));
        assert_eq!(state.io_stateid(), sid(0, 9));
    }

    #[test]
    fn reclaim_lists_every_open_file_and_replaces_its_stateid() {
        let mut opens = OpenFiles::default();
        let one = opens.opened(&fh(1), SHARE_ACCESS_READ, sid(1, 1));
        opens.opened(&fh(2), SHARE_ACCESS_BOTH, sid(4, 2));
        let list = opens.to_reclaim();
        assert_eq!(list, [Reclaim { fh: fh(1), access: 1 }, Reclaim { fh: fh(2), access: 3 }]);
        opens.reclaimed(&fh(1), sid(1, 0x55));
        assert_eq!(one.stateid(), sid(1, 0x55), "a new open state after the restart");
        opens.reclaimed(&fh(3), sid(1, 0x66));
        assert_eq!(opens.to_reclaim().len(), 2, "a reclaim of a file not open adds nothing");
    }

    #[test]
    fn seqids_compare_across_wraparound() {
        let state = OpenState::new(fh(1), sid(u32::MAX, 1));
        assert!(state.update(sid(1, 1)), "1 follows u32::MAX");
        assert!(!state.update(sid(u32::MAX, 1)));
    }
}
