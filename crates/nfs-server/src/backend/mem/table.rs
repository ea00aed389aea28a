//! The inode table: a slab of `Arc<Inode>` indexed by `FileId::id - 1`. A slot's generation goes up each
//! time its inode is removed, so a [`FileId`] kept past removal never reaches the slot's next tenant: it
//! is NFS3ERR_STALE. Generations start at a per-instance value, so ids from an earlier server instance are
//! stale too.

use std::sync::Arc;

use nfs3_proto::NfsErr3;

use super::inode::Inode;
use crate::backend::{BackendResult, FileId};

struct Slot {
    generation: u64,
    inode: Option<Arc<Inode>>,
}

pub(super) struct Table {
    slots: Vec<Slot>,
    free: Vec<usize>,
    live: u64,
    max_live: u64,
    first_generation: u64,
}

impl Table {
    /// A table holding at most `max_live` inodes (at least the root), whose first slot is the root made by
    /// `make_root`.
    pub(super) fn new(max_live: u64, first_generation: u64, make_root: impl FnOnce(FileId) -> Inode) -> Table {
        let root = FileId { id: 1, generation: first_generation };
        Table {
            slots: vec![Slot { generation: first_generation, inode: Some(Arc::new(make_root(root))) }],
            free: Vec::new(),
            live: 1,
            max_live: max_live.max(1),
            first_generation,
        }
    }

    /// The live inode `file` names, or STALE.
    pub(super) fn get(&self, file: FileId) -> BackendResult<Arc<Inode>> {
        let slot = file.id.checked_sub(1).and_then(|index| usize::try_from(index).ok()).and_then(|i| self.slots.get(i));
        match slot {
            Some(Slot { generation, inode: Some(inode) }) if *generation == file.generation => Ok(Arc::clone(inode)),
            _ => Err(NfsErr3::Stale),
        }
    }

    /// Adds the inode `make` builds for its new id; NOSPC when the table is full.
    pub(super) fn insert(&mut self, make: impl FnOnce(FileId) -> Inode) -> BackendResult<Arc<Inode>> {
        if self.live >= self.max_live {
            return Err(NfsErr3::NoSpc);
        }
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                self.slots.push(Slot { generation: self.first_generation, inode: None });
                self.slots.len() - 1
            }
        };
        let slot = self.slots.get_mut(index).ok_or(NfsErr3::ServerFault)?;
        let inode = Arc::new(make(FileId { id: index as u64 + 1, generation: slot.generation }));
        slot.inode = Some(Arc::clone(&inode));
        self.live += 1;
        Ok(inode)
    }

    /// Forgets `file` (its last name is gone); the slot's next tenant gets a new generation.
    pub(super) fn remove(&mut self, file: FileId) {
        let Some(index) = file.id.checked_sub(1).and_then(|index| usize::try_from(index).ok()) else { return };
        if let Some(slot) = self.slots.get_mut(index) {
            if slot.generation == file.generation && slot.inode.take().is_some() {
                slot.generation = slot.generation.wrapping_add(1);
                self.free.push(index);
                self.live -= 1;
            }
        }
    }

    pub(super) fn live(&self) -> u64 {
        self.live
    }

    pub(super) fn max_live(&self) -> u64 {
        self.max_live
    }
}
