//! Open-owners and lock-owners of one client (RFC 8881 §2.4.2 `state_owner4`): opaque bytes named once, then
//! referred to by a small number. An owner lives while a stateid refers to it. In NFSv4.1 the seqid fields
//! of OPEN, CLOSE, LOCK and LOCKU are ignored (§8.13: sessions give exactly-once), so an owner carries no
//! sequence state.

use std::collections::HashMap;

/// One owner: its bytes and how many stateids refer to it.
#[derive(Debug)]
struct Owner {
    name: Box<[u8]>,
    refs: u32,
}

/// The owners of one kind (open or lock) of one client.
#[derive(Debug, Default)]
pub(super) struct OwnerTable {
    by_name: HashMap<Box<[u8]>, u32>,
    owners: HashMap<u32, Owner>,
    next: u32,
}

impl OwnerTable {
    pub(super) fn len(&self) -> usize {
        self.owners.len()
    }

    pub(super) fn find(&self, name: &[u8]) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    pub(super) fn name(&self, id: u32) -> Option<&[u8]> {
        self.owners.get(&id).map(|o| &*o.name)
    }

    /// Adds an owner with no references yet; the caller has checked the caps.
    pub(super) fn insert(&mut self, name: &[u8]) -> u32 {
        if let Some(id) = self.find(name) {
            return id;
        }
        while self.owners.contains_key(&self.next) {
            self.next = self.next.wrapping_add(1);
        }
        let id = self.next;
        self.next = self.next.wrapping_add(1);
        self.by_name.insert(name.into(), id);
        self.owners.insert(id, Owner { name: name.into(), refs: 0 });
        id
    }

    pub(super) fn hold(&mut self, id: u32) {
        if let Some(owner) = self.owners.get_mut(&id) {
            owner.refs += 1;
        }
    }

    /// Drops a reference; true when that removed the owner.
    pub(super) fn release(&mut self, id: u32) -> bool {
        let Some(owner) = self.owners.get_mut(&id) else { return false };
        owner.refs = owner.refs.saturating_sub(1);
        if owner.refs > 0 {
            return false;
        }
        if let Some(owner) = self.owners.remove(&id) {
            self.by_name.remove(&owner.name);
        }
        true
    }

    /// Removes an owner nothing refers to (one made for a request that then failed); true if removed.
    pub(super) fn discard_if_unused(&mut self, id: u32) -> bool {
        if self.owners.get(&id).is_some_and(|o| o.refs == 0) {
            if let Some(owner) = self.owners.remove(&id) {
                self.by_name.remove(&owner.name);
            }
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_lives_while_referenced() {
        let mut table = OwnerTable::default();
        let id = table.insert(b"owner");
        assert_eq!(table.insert(b"owner"), id, "the same bytes name the same owner");
        table.hold(id);
        table.hold(id);
        assert!(!table.release(id));
        assert_eq!(table.name(id), Some(&b"owner"[..]));
        assert!(table.release(id));
        assert_eq!((table.find(b"owner"), table.len()), (None, 0));
    }

    #[test]
    fn an_unused_owner_can_be_discarded_but_a_held_one_cannot() {
        let mut table = OwnerTable::default();
        let held = table.insert(b"held");
        table.hold(held);
        let unused = table.insert(b"unused");
        assert!(!table.discard_if_unused(held));
        assert!(table.discard_if_unused(unused));
        assert_eq!(table.len(), 1);
    }
}
