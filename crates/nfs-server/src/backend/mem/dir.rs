//! Directory contents with stable READDIR cookies.
//!
//! Every entry gets a cookie from a per-directory counter that only grows; the listing is ordered by cookie
//! and READDIR resumes "after cookie c" (RFC 1813 §3.3.16). A cookie therefore names a position that no
//! later insert or remove can move: removing the entry it came from, or inserting others, never makes it
//! invalid, entries are never listed twice, and an entry present for the whole listing is listed once.
//! Cookies start at [`FIRST_COOKIE`]: 0 means "from the start" and 1 and 2 are left for the "." and ".."
//! entries the dispatcher adds, so resuming after them lists everything.

use std::collections::{BTreeMap, HashMap};
use std::ops::Bound;

use nfs3_proto::NfsErr3;

use crate::backend::{BackendResult, DirEntry, DirPage, FileId};

/// The first cookie handed to an entry.
pub(super) const FIRST_COOKIE: u64 = 3;

struct Entry {
    name: Box<[u8]>,
    file: FileId,
}

pub(super) struct Directory {
    parent: FileId,
    by_name: HashMap<Box<[u8]>, u64>,
    by_cookie: BTreeMap<u64, Entry>,
    next_cookie: u64,
}

impl Directory {
    pub(super) fn new(parent: FileId) -> Directory {
        Directory { parent, by_name: HashMap::new(), by_cookie: BTreeMap::new(), next_cookie: FIRST_COOKIE }
    }

    pub(super) fn parent(&self) -> FileId {
        self.parent
    }

    pub(super) fn set_parent(&mut self, parent: FileId) {
        self.parent = parent;
    }

    pub(super) fn get(&self, name: &[u8]) -> Option<FileId> {
        let cookie = self.by_name.get(name)?;
        self.by_cookie.get(cookie).map(|entry| entry.file)
    }

    pub(super) fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// Adds `name` (the caller has checked it is absent) at the end of the listing.
    pub(super) fn insert(&mut self, name: &[u8], file: FileId) {
        let cookie = self.next_cookie;
        self.next_cookie += 1;
        self.by_name.insert(name.into(), cookie);
        self.by_cookie.insert(cookie, Entry { name: name.into(), file });
    }

    pub(super) fn remove(&mut self, name: &[u8]) -> Option<FileId> {
        let cookie = self.by_name.remove(name)?;
        self.by_cookie.remove(&cookie).map(|entry| entry.file)
    }

    /// Renames an entry in place (`to` must be absent): it keeps its cookie, so a listing in progress sees
    /// it once, under one name or the other.
    pub(super) fn rename_in_place(&mut self, from: &[u8], to: &[u8]) -> Option<FileId> {
        let cookie = self.by_name.remove(from)?;
        let entry = self.by_cookie.get_mut(&cookie)?;
        entry.name = to.into();
        self.by_name.insert(to.into(), cookie);
        Some(entry.file)
    }

    /// Up to `max_entries` entries after `cookie`. A cookie this directory never handed out is
    /// NFS3ERR_BAD_COOKIE (RFC 1813 §3.3.16).
    pub(super) fn page(&self, cookie: u64, max_entries: usize) -> BackendResult<DirPage> {
        if cookie >= self.next_cookie && cookie >= FIRST_COOKIE {
            return Err(NfsErr3::BadCookie);
        }
        let mut rest = self.by_cookie.range((Bound::Excluded(cookie), Bound::Unbounded));
        let mut entries = Vec::with_capacity(max_entries.min(self.by_cookie.len()));
        for (&cookie, entry) in rest.by_ref().take(max_entries) {
            entries.push(DirEntry { name: entry.name.to_vec(), file: entry.file, cookie });
        }
        Ok(DirPage { entries, eof: rest.next().is_none() })
    }
}
