//! A bounded cache of open file descriptors, so that 4 KiB random I/O, GETATTR and directory operations do
//! not reopen files on every call.
//!
//! Sharded by [`FileId`] (16 shards, each a small mutex-protected map with least-recently-used eviction), so
//! concurrent READ/WRITE/GETATTR on different files rarely meet on a lock, and no lock is held during I/O:
//! callers get an `Arc` and the fd is closed when the last user drops it, even if it was evicted meanwhile.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::open::Handle;
use crate::backend::FileId;

const SHARDS: usize = 16;

#[derive(Debug, Default)]
struct Shard {
    entries: HashMap<FileId, (Arc<Handle>, u64)>,
    clock: u64,
}

#[derive(Debug)]
pub(crate) struct FdCache {
    shards: Vec<Mutex<Shard>>,
    per_shard: usize,
}

impl FdCache {
    /// A cache holding about `capacity` descriptors (at least one per shard).
    pub(crate) fn new(capacity: usize) -> Self {
        FdCache {
            shards: (0..SHARDS).map(|_| Mutex::new(Shard::default())).collect(),
            per_shard: capacity.div_ceil(SHARDS).max(1),
        }
    }

    fn shard(&self, file: FileId) -> MutexGuard<'_, Shard> {
        let mix = (file.id ^ file.generation.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let index = (mix >> 60) as usize % SHARDS;
        // A panic while holding a shard leaves a consistent map (no partial updates), so poisoning is ignored.
        self.shards[index].lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn get(&self, file: FileId) -> Option<Arc<Handle>> {
        let mut shard = self.shard(file);
        shard.clock += 1;
        let now = shard.clock;
        let (handle, used) = shard.entries.get_mut(&file)?;
        *used = now;
        Some(Arc::clone(handle))
    }

    pub(crate) fn contains(&self, file: FileId) -> bool {
        self.shard(file).entries.contains_key(&file)
    }

    /// Caches `handle` (replacing any older one for the same file), evicting the least recently used entry of
    /// its shard when full.
    pub(crate) fn insert(&self, handle: Arc<Handle>) {
        let mut shard = self.shard(handle.id);
        shard.clock += 1;
        let now = shard.clock;
        if shard.entries.len() >= self.per_shard && !shard.entries.contains_key(&handle.id) {
            let oldest = shard.entries.iter().min_by_key(|(_, (_, used))| *used).map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                shard.entries.remove(&oldest);
            }
        }
        shard.entries.insert(handle.id, (handle, now));
    }

    pub(crate) fn remove(&self, file: FileId) {
        self.shard(file).entries.remove(&file);
    }

    #[cfg(test)]
    pub(crate) fn clear(&self) {
        for shard in &self.shards {
            shard.lock().unwrap_or_else(PoisonError::into_inner).entries.clear();
        }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().unwrap_or_else(PoisonError::into_inner).entries.len()).sum()
    }
}
