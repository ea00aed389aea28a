//! Finding a file from its [`FileId`] alone, for handles whose file the identity map does not know: every
//! handle after a restart of the server (the map lives in memory), or a file the map forgot (evicted) or
//! whose remembered names moved outside the server.
//!
//! The search walks the export depth-first from the root, comparing each directory entry's inode number
//! (`getdents64` `d_ino`, no `stat`) with the wanted ones; a match is `statx`ed and must have the wanted
//! generation (birth time and type), so a recycled inode number is not mistaken for the old file. The
//! directories on the way to a found file are learned into the identity map, so later calls resolve it
//! directly.
//!
//! Only handles whose tag verified reach it (a forged handle is NFS3ERR_BADHANDLE in the server before any
//! backend call), and the work is bounded so that a client holding handles of deleted files cannot keep the
//! server scanning:
//! - one search at a time per export; calls arriving meanwhile add their file to the next search, so a
//!   client revalidating many handles after a restart costs about two walks, not one per handle;
//! - a walk reads at most [`super::DirLimits::max_search_entries`] entries, descends at most
//!   [`MAX_SEARCH_DEPTH`] directories, and stops as soon as every wanted file is found;
//! - files not found are remembered as missing (NFS3ERR_STALE at once): until the tree changes in a way
//!   that could bring them back into reach (a RENAME or a SETATTR of a directory through the server) or
//!   [`MISSING_TTL`] passes (changes made outside the server). Files removed through the server are
//!   remembered as missing without a walk;
//! - after a walk that missed, no new walk starts for [`COOLDOWN_FACTOR`] times its duration (at least
//!   [`MIN_COOLDOWN`]): a file not yet known in that time is NFS3ERR_JUKEBOX, which clients retry later
//!   (Linux after 5 s). Walks that find what they look for start no pause.

use std::collections::{HashMap, HashSet};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use nfs3_proto::{Ftype3, NfsErr3};
use rustix::fs::{FileType, RawDir};

use super::open::{open_child, Access};
use super::stat::{device, file_id, ftype_of, ftype_of_id, stat_at, stat_fd};
use super::DirBackend;
use crate::backend::FileId;

/// Directory levels below the root a walk descends (each holds one fd while the walk is below it).
pub(crate) const MAX_SEARCH_DEPTH: usize = 128;
/// Files one walk looks for at once.
const MAX_WANTED: usize = 1024;
/// Files remembered as missing (past this the oldest half is dropped).
const MAX_MISSING: usize = 65_536;
/// How long a file not found stays known as missing when nothing changes through the server.
pub(crate) const MISSING_TTL: Duration = Duration::from_secs(60);
/// Shortest pause after a walk that missed.
pub(crate) const MIN_COOLDOWN: Duration = Duration::from_secs(1);
/// A walk that missed pauses walks for this many times its own duration.
pub(crate) const COOLDOWN_FACTOR: u32 = 4;
/// Bytes of `getdents64` records read per system call.
const GETDENTS_BUFFER: usize = 32 * 1024;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The search's state, kept by [`DirBackend`].
#[derive(Debug, Default)]
pub(crate) struct Finder {
    /// Held for the whole of a walk (one at a time); the time before which no new walk starts.
    walk: Mutex<Option<Instant>>,
    /// Files the next walk looks for (those of calls waiting for the current one).
    wanted: Mutex<HashSet<FileId>>,
    missing: Mutex<Missing>,
    /// Bumped by changes through the server that can bring a missing file into reach.
    epoch: AtomicU64,
    /// Walks done (for tests and statistics).
    walks: AtomicU64,
}

#[derive(Debug, Default)]
struct Missing {
    epoch: u64,
    since: HashMap<FileId, Instant>,
}

impl Missing {
    fn holds(&mut self, file: FileId, epoch: u64) -> bool {
        if self.epoch != epoch {
            self.since.clear();
            self.epoch = epoch;
        }
        match self.since.get(&file) {
            Some(at) if at.elapsed() < MISSING_TTL => true,
            Some(_) => {
                self.since.remove(&file);
                false
            }
            None => false,
        }
    }

    fn insert(&mut self, file: FileId, epoch: u64) {
        if self.epoch != epoch {
            self.since.clear();
            self.epoch = epoch;
        }
        if self.since.len() >= MAX_MISSING {
            let mut times: Vec<Instant> = self.since.values().copied().collect();
            times.sort_unstable();
            let cut = times[times.len() / 2];
            self.since.retain(|_, at| *at > cut);
        }
        self.since.insert(file, Instant::now());
    }
}

impl Finder {
    /// A change that can bring missing files into reach (a directory moved, or its permissions changed).
    pub(crate) fn reach_changed(&self) {
        self.epoch.fetch_add(1, Ordering::Relaxed);
    }

    /// `file` was removed through the server: its handle is stale without a walk.
    pub(crate) fn removed(&self, file: FileId) {
        let epoch = self.epoch.load(Ordering::Relaxed);
        lock(&self.missing).insert(file, epoch);
    }

    /// `file` exists again (created with a recycled identity on a file system without birth times).
    pub(crate) fn exists(&self, file: FileId) {
        let mut missing = lock(&self.missing);
        if !missing.since.is_empty() {
            missing.since.remove(&file);
        }
    }

    #[cfg(test)]
    pub(crate) fn walks(&self) -> u64 {
        self.walks.load(Ordering::Relaxed)
    }
}

/// One directory of the walk: its fd (open for reading, private to the walk), identity, name in its parent,
/// and the subdirectories still to visit.
struct Frame {
    fd: OwnedFd,
    id: FileId,
    name: Box<[u8]>,
    subdirs: Vec<Box<[u8]>>,
}

impl DirBackend {
    /// Finds `target` in the export and learns its name into the identity map. NFS3ERR_STALE when it is not
    /// there (or not within the walk's bounds), NFS3ERR_JUKEBOX while walks pause after a miss.
    pub(crate) fn find(&self, target: FileId) -> Result<(), NfsErr3> {
        if target == self.root.id || self.map_read().contains(target) {
            return Ok(());
        }
        if ftype_of_id(target).is_none() {
            return Err(NfsErr3::Stale);
        }
        let registered = {
            let mut wanted = lock(&self.finder.wanted);
            wanted.len() < MAX_WANTED && wanted.insert(target)
        };
        let result = self.find_one(target);
        if registered {
            lock(&self.finder.wanted).remove(&target);
        }
        result
    }

    fn find_one(&self, target: FileId) -> Result<(), NfsErr3> {
        let epoch = self.finder.epoch.load(Ordering::Relaxed);
        if lock(&self.finder.missing).holds(target, epoch) {
            return Err(NfsErr3::Stale);
        }
        let mut quiet_until = lock(&self.finder.walk);
        // The walk this call waited for may have found it, or found it missing.
        if self.map_read().contains(target) {
            return Ok(());
        }
        let epoch = self.finder.epoch.load(Ordering::Relaxed);
        if lock(&self.finder.missing).holds(target, epoch) {
            return Err(NfsErr3::Stale);
        }
        if quiet_until.is_some_and(|until| Instant::now() < until) {
            return Err(NfsErr3::Jukebox);
        }
        let mut targets: HashSet<FileId> = {
            let map = self.map_read();
            lock(&self.finder.wanted).iter().copied().filter(|f| !map.contains(*f)).collect()
        };
        targets.insert(target);
        let started = Instant::now();
        self.finder.walks.fetch_add(1, Ordering::Relaxed);
        self.walk(&mut targets);
        if !targets.is_empty() {
            // Not found: remember, unless a change during the walk may have hidden them from it.
            if self.finder.epoch.load(Ordering::Relaxed) == epoch {
                let mut missing = lock(&self.finder.missing);
                for file in &targets {
                    missing.insert(*file, epoch);
                }
            }
            let pause = (started.elapsed() * COOLDOWN_FACTOR).max(MIN_COOLDOWN);
            *quiet_until = Some(Instant::now() + pause);
            tracing::info!(
                export = %self.path.display(),
                missing = targets.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "file handles of files not in the export (removed?): searched the tree"
            );
        }
        if targets.contains(&target) {
            Err(NfsErr3::Stale)
        } else {
            Ok(())
        }
    }

    /// Walks the export for `targets`, removing each one found (and learned).
    fn walk(&self, targets: &mut HashSet<FileId>) {
        let inodes: HashSet<u64> = targets.iter().map(|t| t.id).collect();
        let mut budget = self.limits.max_search_entries;
        let Ok((root, Access::Read)) = open_child(self.root.fd.as_fd(), b".", Ftype3::Dir) else { return };
        let mut stack = vec![Frame { fd: root, id: self.root.id, name: Box::default(), subdirs: Vec::new() }];
        self.list(&mut stack, targets, &inodes, &mut budget);
        while !targets.is_empty() && budget > 0 {
            let depth = stack.len();
            let Some(top) = stack.last_mut() else { break };
            let Some(name) = top.subdirs.pop() else {
                stack.pop();
                continue;
            };
            if depth > MAX_SEARCH_DEPTH {
                continue;
            }
            let Ok((fd, Access::Read)) = open_child(top.fd.as_fd(), &name, Ftype3::Dir) else { continue };
            let Ok(st) = stat_fd(fd.as_fd()) else { continue };
            let Ok(id) = file_id(&st) else { continue };
            if device(&st) != self.root_dev || ftype_of(&st) != Some(Ftype3::Dir) {
                continue;
            }
            stack.push(Frame { fd, id, name, subdirs: Vec::new() });
            self.list(&mut stack, targets, &inodes, &mut budget);
        }
    }

    /// Reads the directory on top of the stack: notes its subdirectories, and learns every wanted file in it
    /// (with the directories leading to it).
    fn list(&self, stack: &mut [Frame], targets: &mut HashSet<FileId>, inodes: &HashSet<u64>, budget: &mut usize) {
        let Some(top) = stack.last_mut() else { return };
        let mut matches: Vec<Vec<u8>> = Vec::new();
        {
            let mut buffer: Vec<u8> = Vec::with_capacity(GETDENTS_BUFFER);
            let mut records = RawDir::new(top.fd.as_fd(), buffer.spare_capacity_mut());
            while let Some(Ok(record)) = records.next() {
                let name = record.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
                if *budget == 0 {
                    break;
                }
                *budget -= 1;
                if inodes.contains(&record.ino()) {
                    matches.push(name.to_vec());
                }
                let is_dir = match record.file_type() {
                    FileType::Directory => true,
                    FileType::Unknown => {
                        stat_at(top.fd.as_fd(), name).is_ok_and(|st| ftype_of(&st) == Some(Ftype3::Dir))
                    }
                    _ => false,
                };
                if is_dir {
                    top.subdirs.push(name.into());
                }
            }
        }
        // Visit subdirectories in listing order.
        top.subdirs.reverse();
        let dir = top.id;
        let mut found: Vec<(FileId, Vec<u8>)> = Vec::new();
        for name in matches {
            let Ok(st) = stat_at(top.fd.as_fd(), &name) else { continue };
            let Ok(file) = file_id(&st) else { continue };
            if device(&st) == self.root_dev && targets.remove(&file) {
                found.push((file, name));
            }
        }
        for (file, name) in found {
            for pair in stack.windows(2) {
                if let [parent, child] = pair {
                    self.learn(child.id, parent.id, &child.name);
                }
            }
            self.learn(file, dir, &name);
        }
    }
}
