//! The identity map: where each known [`FileId`] lives, as (parent directory's FileId, name) links.
//!
//! Files are learned when LOOKUP, CREATE, READDIR, LINK or RENAME name them. A file is found again by walking
//! its first link up to the export root (or to the nearest directory whose fd is cached) and opening one
//! component at a time, so renaming a directory moves its whole subtree without touching the children's
//! entries, and a handle survives any rename done through the server. A file has at most [`MAX_LINKS`]
//! remembered names (hard links); the most recently learned comes first.
//!
//! The map is bounded: past its capacity the least recently used entries that no other entry names as
//! parent (and that the caller says are not in use) are forgotten, an eighth of the capacity at a time. A
//! forgotten file's handle answers NFS3ERR_STALE until a LOOKUP or READDIR names it again (the Linux client
//! then looks the path up afresh). The root is not stored: it is always known.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::backend::FileId;

/// Names remembered per file (hard links beyond this are found again by LOOKUP).
pub(crate) const MAX_LINKS: usize = 4;

/// One name of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Link {
    pub parent: FileId,
    pub name: Box<[u8]>,
}

#[derive(Debug)]
struct Node {
    links: Vec<Link>,
    /// How many links of other nodes name this one as parent (those nodes are found through it).
    children: u32,
    last_used: AtomicU64,
}

#[derive(Debug)]
pub(crate) struct IdentityMap {
    nodes: HashMap<FileId, Node>,
    capacity: usize,
    clock: AtomicU64,
}

impl IdentityMap {
    pub(crate) fn new(capacity: usize) -> Self {
        IdentityMap { nodes: HashMap::new(), capacity: capacity.max(16), clock: AtomicU64::new(0) }
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn contains(&self, file: FileId) -> bool {
        self.nodes.contains_key(&file)
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    /// True when `file` is known under `parent`/`name` (marks it used); a cheap check under a read lock.
    pub(crate) fn has_link(&self, file: FileId, parent: FileId, name: &[u8]) -> bool {
        match self.nodes.get(&file) {
            Some(node) if node.links.iter().any(|l| l.parent == parent && *l.name == *name) => {
                node.last_used.store(self.tick(), Ordering::Relaxed);
                true
            }
            _ => false,
        }
    }

    /// The remembered names of `file`, most recent first (marks it used).
    pub(crate) fn links(&self, file: FileId) -> Option<&[Link]> {
        let node = self.nodes.get(&file)?;
        node.last_used.store(self.tick(), Ordering::Relaxed);
        Some(&node.links)
    }

    /// Records that `file` is called `name` in `parent`.
    pub(crate) fn learn(&mut self, file: FileId, parent: FileId, name: &[u8]) {
        let now = self.tick();
        let node = self.nodes.entry(file).or_insert_with(|| Node {
            links: Vec::with_capacity(1),
            children: 0,
            last_used: AtomicU64::new(now),
        });
        node.last_used.store(now, Ordering::Relaxed);
        if let Some(pos) = node.links.iter().position(|l| l.parent == parent && *l.name == *name) {
            let link = node.links.remove(pos);
            node.links.insert(0, link);
            return;
        }
        node.links.insert(0, Link { parent, name: name.into() });
        let dropped = if node.links.len() > MAX_LINKS { node.links.pop() } else { None };
        self.adjust_children(parent, 1);
        if let Some(old) = dropped {
            self.adjust_children(old.parent, -1);
        }
    }

    /// Forgets one name of `file` (after REMOVE or RENAME, or when it no longer leads to the file).
    pub(crate) fn unlearn(&mut self, file: FileId, parent: FileId, name: &[u8]) {
        let Some(node) = self.nodes.get_mut(&file) else { return };
        let before = node.links.len();
        node.links.retain(|l| !(l.parent == parent && *l.name == *name));
        if node.links.len() < before {
            self.adjust_children(parent, -1);
        }
    }

    /// Forgets `file` entirely (it was removed).
    pub(crate) fn forget(&mut self, file: FileId) {
        if let Some(node) = self.nodes.remove(&file) {
            for link in node.links {
                self.adjust_children(link.parent, -1);
            }
        }
    }

    fn adjust_children(&mut self, parent: FileId, delta: i32) {
        if let Some(p) = self.nodes.get_mut(&parent) {
            p.children = p.children.saturating_add_signed(delta);
        }
    }

    pub(crate) fn over_capacity(&self) -> bool {
        self.nodes.len() > self.capacity
    }

    /// Shrinks the map to 7/8 of its capacity, forgetting the least recently used entries, leaves first.
    /// `in_use` protects entries (files with a cached open fd).
    pub(crate) fn evict(&mut self, in_use: impl Fn(FileId) -> bool) {
        let target = self.capacity - self.capacity / 8;
        for leaves_only in [true, false] {
            if self.nodes.len() <= target {
                return;
            }
            let mut candidates: Vec<(u64, FileId)> = self
                .nodes
                .iter()
                .filter(|(id, n)| (!leaves_only || n.children == 0) && !in_use(**id))
                .map(|(id, n)| (n.last_used.load(Ordering::Relaxed), *id))
                .collect();
            candidates.sort_unstable();
            let excess = self.nodes.len() - target;
            for (_, id) in candidates.into_iter().take(excess) {
                self.forget(id);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> FileId {
        FileId { id: n, generation: 7 }
    }

    #[test]
    fn keeps_the_most_recent_names_of_a_hard_linked_file() {
        let mut map = IdentityMap::new(100);
        for i in 0..6u8 {
            map.learn(id(5), id(1), &[b'a' + i]);
        }
        let links = map.links(id(5)).map(<[Link]>::to_vec).unwrap_or_default();
        assert_eq!(links.len(), MAX_LINKS);
        assert_eq!(&*links[0].name, b"f");
        map.unlearn(id(5), id(1), b"f");
        assert_eq!(map.links(id(5)).map(<[Link]>::len), Some(MAX_LINKS - 1));
    }

    #[test]
    fn evicts_old_leaves_before_directories_with_known_children() {
        let mut map = IdentityMap::new(16);
        map.learn(id(2), id(1), b"dir");
        map.learn(id(3), id(2), b"child");
        for n in 10..40 {
            map.learn(id(n), id(1), format!("f{n}").as_bytes());
        }
        assert!(map.over_capacity());
        map.evict(|f| f == id(39));
        assert!(map.len() <= 14);
        assert!(map.contains(id(2)), "a directory with a known child stays");
        assert!(map.contains(id(39)), "an entry in use stays");
        assert!(!map.contains(id(10)), "the oldest leaf goes");
    }

    #[test]
    fn forgetting_a_file_releases_its_parent() {
        let mut map = IdentityMap::new(16);
        map.learn(id(2), id(1), b"dir");
        map.learn(id(3), id(2), b"child");
        map.forget(id(3));
        for n in 10..30 {
            map.learn(id(n), id(1), format!("f{n}").as_bytes());
        }
        map.evict(|_| false);
        assert!(!map.contains(id(2)), "an old directory without children can go");
    }
}
