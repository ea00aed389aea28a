//! Per-file state shared by all clients: share reservations (RFC 8881 §9.7) as counts of the opens holding
//! each access and deny bit, and the file's byte-range locks (`ranges.rs`). A file is tracked only while
//! some open or lock refers to it.

use super::ranges::LockTable;
use super::types::{IoAccess, SHARE_ACCESS_READ, SHARE_ACCESS_WRITE, SHARE_DENY_READ, SHARE_DENY_WRITE};

/// How many opens of the file hold each share bit.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct ShareCounts {
    read: u32,
    write: u32,
    deny_read: u32,
    deny_write: u32,
}

impl ShareCounts {
    pub(super) fn add(&mut self, access: u32, deny: u32) {
        self.read += u32::from(access & SHARE_ACCESS_READ != 0);
        self.write += u32::from(access & SHARE_ACCESS_WRITE != 0);
        self.deny_read += u32::from(deny & SHARE_DENY_READ != 0);
        self.deny_write += u32::from(deny & SHARE_DENY_WRITE != 0);
    }

    /// Takes back what [`ShareCounts::add`] added (saturating: a count never wraps, whatever the caller).
    pub(super) fn remove(&mut self, access: u32, deny: u32) {
        self.read = self.read.saturating_sub(u32::from(access & SHARE_ACCESS_READ != 0));
        self.write = self.write.saturating_sub(u32::from(access & SHARE_ACCESS_WRITE != 0));
        self.deny_read = self.deny_read.saturating_sub(u32::from(deny & SHARE_DENY_READ != 0));
        self.deny_write = self.deny_write.saturating_sub(u32::from(deny & SHARE_DENY_WRITE != 0));
    }

    /// RFC 8881 §9.7: an open with `access`/`deny` conflicts when it denies what another open has, or asks
    /// for what another open denies. `own` is what the same open (this open-owner's, being upgraded)
    /// already holds: an owner does not conflict with itself.
    pub(super) fn conflicts(&self, access: u32, deny: u32, own: Option<(u32, u32)>) -> bool {
        let mut others = *self;
        if let Some((own_access, own_deny)) = own {
            others.remove(own_access, own_deny);
        }
        (deny & SHARE_DENY_READ != 0 && others.read > 0)
            || (deny & SHARE_DENY_WRITE != 0 && others.write > 0)
            || (access & SHARE_ACCESS_READ != 0 && others.deny_read > 0)
            || (access & SHARE_ACCESS_WRITE != 0 && others.deny_write > 0)
    }

    /// True when an open denies what I/O without open state (the anonymous stateid) would do.
    pub(super) fn denies(&self, io: IoAccess) -> bool {
        match io {
            IoAccess::Read => self.deny_read > 0,
            IoAccess::Write => self.deny_write > 0,
        }
    }
}

/// Everything the server holds about one file.
#[derive(Debug, Default)]
pub(super) struct FileState {
    pub(super) share: ShareCounts,
    /// Open stateids on the file.
    pub(super) opens: u32,
    pub(super) locks: LockTable,
}

impl FileState {
    pub(super) fn is_unused(&self) -> bool {
        self.opens == 0 && self.locks.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v4::state::types::{SHARE_ACCESS_BOTH, SHARE_DENY_BOTH, SHARE_DENY_NONE};

    #[test]
    fn deny_and_access_conflict_both_ways() {
        let mut counts = ShareCounts::default();
        counts.add(SHARE_ACCESS_READ, SHARE_DENY_WRITE);
        assert!(counts.conflicts(SHARE_ACCESS_WRITE, SHARE_DENY_NONE, None), "write asked, write denied");
        assert!(counts.conflicts(SHARE_ACCESS_READ, SHARE_DENY_READ, None), "read denied, read held");
        assert!(!counts.conflicts(SHARE_ACCESS_READ, SHARE_DENY_NONE, None));
        assert!(counts.denies(IoAccess::Write) && !counts.denies(IoAccess::Read));
    }

    #[test]
    fn an_open_does_not_conflict_with_its_own_reservation() {
        let mut counts = ShareCounts::default();
        counts.add(SHARE_ACCESS_READ, SHARE_DENY_BOTH);
        assert!(counts.conflicts(SHARE_ACCESS_BOTH, SHARE_DENY_BOTH, None));
        assert!(!counts.conflicts(SHARE_ACCESS_BOTH, SHARE_DENY_BOTH, Some((SHARE_ACCESS_READ, SHARE_DENY_BOTH))));
        counts.remove(SHARE_ACCESS_READ, SHARE_DENY_BOTH);
        assert_eq!(counts, ShareCounts::default());
    }
}
