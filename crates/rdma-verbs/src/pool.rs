//! Registered buffer pools for Sends and receives: one registration cut into equal slots, handed out
//! and taken back by index. The memory is a `Writable` [`MemoryRegion`] owned by the pool; the
//! provider writes a slot only before posting it and reads a slot only after its completion.
#![allow(unsafe_code)]

use std::sync::Arc;

use bytes::Bytes;
use rdma::{Access, MemoryRegion, RdmaError, RegBuf};

use crate::mr::register;
use crate::verbs::Pd;

/// The most memory one pool registers (its slots times their size).
pub(crate) const MAX_POOL_BYTES: usize = 1 << 30;

/// Which slots are free: the bookkeeping of a pool, without memory.
#[derive(Debug)]
pub(crate) struct SlotList {
    free: Vec<u32>,
    in_use: Vec<bool>,
}

impl SlotList {
    pub(crate) fn new(slots: u32) -> Self {
        SlotList { free: (0..slots).rev().collect(), in_use: vec![false; slots as usize] }
    }

    pub(crate) fn take(&mut self) -> Option<u32> {
        let slot = self.free.pop()?;
        self.in_use[slot as usize] = true;
        Some(slot)
    }

    /// Gives `slot` back; a slot out of range or already free is ignored (never handed out twice).
    pub(crate) fn give(&mut self, slot: u32) {
        if let Some(used) = self.in_use.get_mut(slot as usize).filter(|used| **used) {
            *used = false;
            self.free.push(slot);
        }
    }

    #[cfg(test)]
    pub(crate) fn available(&self) -> usize {
        self.free.len()
    }
}

/// `slots` buffers of `slot_size` bytes in one registration.
#[derive(Debug)]
pub(crate) struct SlotPool {
    region: MemoryRegion,
    slot_size: usize,
    list: SlotList,
}

/// Bytes for `slots` slots of `slot_size`, refused past [`MAX_POOL_BYTES`].
pub(crate) fn pool_bytes(slots: u32, slot_size: u32) -> Result<usize, RdmaError> {
    (slots as usize).checked_mul(slot_size as usize).filter(|&bytes| bytes > 0 && bytes <= MAX_POOL_BYTES).ok_or_else(
        || {
            RdmaError::Invalid(format!(
                "{slots} buffers of {slot_size} bytes: between 1 byte and {MAX_POOL_BYTES} bytes"
            ))
        },
    )
}

impl SlotPool {
    /// Registers `slots × slot_size` zeroed bytes on `pd` with `access`.
    pub(crate) fn new(pd: &Arc<Pd>, slots: u32, slot_size: u32, access: Access) -> Result<Self, RdmaError> {
        let bytes = pool_bytes(slots, slot_size)?;
        let region = register(pd, RegBuf::Writable(vec![0; bytes]), access)?;
        Ok(SlotPool { region, slot_size: slot_size as usize, list: SlotList::new(slots) })
    }

    pub(crate) fn slot_size(&self) -> usize {
        self.slot_size
    }

    pub(crate) fn take(&mut self) -> Option<u32> {
        self.list.take()
    }

    pub(crate) fn give(&mut self, slot: u32) {
        self.list.give(slot)
    }

    pub(crate) fn lkey(&self) -> u32 {
        self.region.local_key()
    }

    /// The process address of `slot`'s first byte.
    pub(crate) fn addr(&self, slot: u32) -> u64 {
        (self.region.start_addr() + slot as usize * self.slot_size) as u64
    }

    /// Copies `parts` into `slot`, returning the length; the caller checked that it fits.
    ///
    /// # Safety
    /// `slot` was taken from this pool and is not posted (the device does not touch it).
    pub(crate) unsafe fn fill(&mut self, slot: u32, parts: &[&[u8]]) -> usize {
        let base = self.region.start_addr() + slot as usize * self.slot_size;
        let mut written = 0;
        for part in parts {
            let len = part.len().min(self.slot_size - written);
            // SAFETY: the region is Writable and owned by this pool (which the provider alone writes);
            // `base + written .. + len` stays inside the slot, which the device is not using.
            unsafe {
                let dst = std::ptr::with_exposed_provenance_mut::<u8>(base + written);
                std::ptr::copy_nonoverlapping(part.as_ptr(), dst, len);
            }
            written += len;
        }
        written
    }

    /// Copies the first `len` bytes (at most the slot size) of `slot` out.
    ///
    /// # Safety
    /// `slot` was taken from this pool and its receive has completed (the device wrote it and is done).
    pub(crate) unsafe fn read(&self, slot: u32, len: usize) -> Bytes {
        let len = len.min(self.slot_size);
        let base = self.region.start_addr() + slot as usize * self.slot_size;
        // SAFETY: the slot lies inside the registered buffer, which lives as long as `self.region`, and
        // nothing writes it while this copy runs.
        let bytes = unsafe { std::slice::from_raw_parts(std::ptr::with_exposed_provenance::<u8>(base), len) };
        Bytes::copy_from_slice(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_handed_out_once_until_given_back() {
        let mut list = SlotList::new(3);
        let taken: Vec<u32> = (0..3).filter_map(|_| list.take()).collect();
        assert_eq!(taken, vec![0, 1, 2]);
        assert_eq!(list.take(), None);
        list.give(1);
        list.give(1);
        list.give(7);
        assert_eq!(list.available(), 1);
        assert_eq!(list.take(), Some(1));
    }

    #[test]
    fn pools_are_bounded() {
        assert_eq!(pool_bytes(128, 4096).ok(), Some(128 * 4096));
        assert!(pool_bytes(0, 4096).is_err());
        assert!(pool_bytes(u32::MAX, u32::MAX).is_err());
        assert!(pool_bytes(1 << 16, 1 << 16).is_err());
    }
}
