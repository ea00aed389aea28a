//! The exports as one NFSv4 name space (RFC 8881 §7.3, §7.4): PUTROOTFH gives the root of a read-only
//! pseudo file system whose directories are the components of the export paths, as knfsd's fsid=0 root
//! is. With exports `/export` and `/data/a`, the root lists `export` (the export's own root: LOOKUP crosses
//! into it) and `data`, a pseudo directory listing `a`.
//!
//! - An export at `/` is the root itself: no pseudo directories then.
//! - An export below another (`/a` and `/a/b`) is reached from the outer export's root by LOOKUP of its
//!   last component when it is a direct child; deeper nesting is not crossed (the name is the outer
//!   export's own directory).
//! - A client sees only the exports that admit its address, and the pseudo directories leading to them
//!   (knfsd hides the others as well).
//! - Node ids are a keyed digest of the path: the same after a restart with the same key and exports, so
//!   a mounted client's pseudo handles stay valid. They serve as handle, file id and `mounted_on_fileid`.

use std::collections::HashMap;
use std::net::SocketAddr;

use nfs3_proto::{Fattr3, Ftype3, NfsTime3, SpecData3};

use crate::exports::Export;
use crate::handle::HandleCodec;

/// Where a name in a pseudo directory (or an export root, for nested exports) leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Child {
    /// Another pseudo directory, by index.
    Pseudo(usize),
    /// An export's root, by export index.
    Export(u16),
}

#[derive(Debug)]
struct Node {
    id: u64,
    parent: Option<usize>,
    children: Vec<(Box<[u8]>, Child)>,
}

/// The pseudo file system of one server.
#[derive(Debug)]
pub(crate) struct PseudoFs {
    nodes: Vec<Node>,
    by_id: HashMap<u64, usize>,
    /// PUTROOTFH: pseudo node 0, or the export at "/".
    root: Child,
    /// (export, name) → the export whose path is the outer export's path plus that name.
    crossings: HashMap<(u16, Box<[u8]>), u16>,
    /// Per export: where LOOKUPP from its root goes (`None`: the export is the root).
    parents: Vec<Option<Child>>,
    /// Per export: the id its root is mounted on (the `mounted_on_fileid` of its root).
    mounted_on: Vec<u64>,
    /// The times every pseudo directory shows (the server's start).
    started: NfsTime3,
}

/// The components of an absolute export path ("/" has none).
fn components(path: &str) -> Vec<&str> {
    path.split('/').filter(|c| !c.is_empty()).collect()
}

fn node_id(codec: &HandleCodec, path: &str) -> u64 {
    let mut bytes = b"nfsbench pseudo node ".to_vec();
    bytes.extend_from_slice(path.as_bytes());
    codec.digest(&bytes)
}

impl PseudoFs {
    /// Builds the tree of `exports` (already validated: absolute, normalised, distinct paths).
    pub(crate) fn build(exports: &[Export], codec: &HandleCodec, started: NfsTime3) -> PseudoFs {
        let index_of: HashMap<&str, u16> = exports.iter().map(|e| (e.path.as_str(), e.index)).collect();
        let root = match index_of.get("/") {
            Some(&i) => Child::Export(i),
            None => Child::Pseudo(0),
        };
        let mut fs = PseudoFs {
            nodes: Vec::new(),
            by_id: HashMap::new(),
            root,
            crossings: HashMap::new(),
            parents: vec![None; exports.len()],
            mounted_on: exports.iter().map(|e| node_id(codec, &e.path)).collect(),
            started,
        };
        if root == Child::Pseudo(0) {
            fs.add_node(node_id(codec, "/"), None);
        }
        for export in exports {
            let parts = components(&export.path);
            let mut at = root;
            let mut path = String::new();
            for (depth, part) in parts.iter().enumerate() {
                path.push('/');
                path.push_str(part);
                let last = depth + 1 == parts.len();
                let next = match (at, index_of.get(path.as_str())) {
                    (Child::Pseudo(node), Some(&inner)) => {
                        fs.link(node, part, Child::Export(inner));
                        Child::Export(inner)
                    }
                    (Child::Pseudo(node), None) => {
                        let child = fs.pseudo_child(node, part, node_id(codec, &path));
                        Child::Pseudo(child)
                    }
                    (Child::Export(outer), Some(&inner)) if last => {
                        fs.crossings.insert((outer, part.as_bytes().into()), inner);
                        Child::Export(inner)
                    }
                    // Inside another export, more than one level down: not crossed.
                    (Child::Export(_), _) => break,
                };
                if last {
                    fs.parents[usize::from(export.index)] = Some(at);
                }
                at = next;
            }
        }
        fs
    }

    fn add_node(&mut self, id: u64, parent: Option<usize>) -> usize {
        self.nodes.push(Node { id, parent, children: Vec::new() });
        let index = self.nodes.len() - 1;
        self.by_id.insert(id, index);
        index
    }

    fn link(&mut self, node: usize, name: &str, child: Child) {
        if let Some(n) = self.nodes.get_mut(node) {
            if !n.children.iter().any(|(c, _)| **c == *name.as_bytes()) {
                n.children.push((name.as_bytes().into(), child));
            }
        }
    }

    /// The pseudo directory `name` under `node`, made if new.
    fn pseudo_child(&mut self, node: usize, name: &str, id: u64) -> usize {
        let existing = self.nodes.get(node).and_then(|n| n.children.iter().find(|(c, _)| **c == *name.as_bytes()));
        if let Some((_, Child::Pseudo(child))) = existing {
            return *child;
        }
        let child = self.add_node(id, Some(node));
        self.link(node, name, Child::Pseudo(child));
        child
    }

    /// What PUTROOTFH (and PUTPUBFH) makes current.
    pub(crate) fn root(&self) -> Child {
        self.root
    }

    /// The node with handle id `id`.
    pub(crate) fn find(&self, id: u64) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    /// The id (handle, file id) of pseudo node `node`.
    pub(crate) fn id(&self, node: usize) -> u64 {
        self.nodes.get(node).map_or(0, |n| n.id)
    }

    /// LOOKUP of `name` in pseudo node `node`, as `peer` sees it.
    pub(crate) fn lookup(&self, node: usize, name: &[u8], exports: &[Export], peer: SocketAddr) -> Option<Child> {
        let n = self.nodes.get(node)?;
        let (_, child) = n.children.iter().find(|(c, _)| **c == *name)?;
        self.visible(*child, exports, peer, 0).then_some(*child)
    }

    /// The visible entries of pseudo node `node`, in order.
    pub(crate) fn entries<'s>(
        &'s self,
        node: usize,
        exports: &'s [Export],
        peer: SocketAddr,
    ) -> impl Iterator<Item = (&'s [u8], Child)> + 's {
        let children = self.nodes.get(node).map_or(&[][..], |n| &n.children[..]);
        children.iter().filter(move |(_, c)| self.visible(*c, exports, peer, 0)).map(|(name, c)| (&**name, *c))
    }

    /// LOOKUPP of pseudo node `node`: its parent (`None` at the root).
    pub(crate) fn parent(&self, node: usize) -> Option<usize> {
        self.nodes.get(node)?.parent
    }

    /// LOOKUPP from the root of export `export`.
    pub(crate) fn export_parent(&self, export: u16) -> Option<Child> {
        self.parents.get(usize::from(export)).copied().flatten()
    }

    /// LOOKUP of `name` from the root of export `export` when it names a nested export.
    pub(crate) fn crossing(&self, export: u16, name: &[u8]) -> Option<u16> {
        self.crossings.get(&(export, name.into())).copied()
    }

    /// The `mounted_on_fileid` of export `export`'s root.
    pub(crate) fn mounted_on(&self, export: u16) -> u64 {
        self.mounted_on.get(usize::from(export)).copied().unwrap_or_default()
    }

    /// True when `child` leads to an export that admits `peer`.
    fn visible(&self, child: Child, exports: &[Export], peer: SocketAddr, depth: usize) -> bool {
        match child {
            Child::Export(i) => exports.get(usize::from(i)).is_some_and(|e| e.admit(peer).is_ok()),
            // Paths are at most 1024 bytes, so the tree is at most 512 levels deep.
            Child::Pseudo(n) if depth < 1024 => self
                .nodes
                .get(n)
                .is_some_and(|node| node.children.iter().any(|(_, c)| self.visible(*c, exports, peer, depth + 1))),
            Child::Pseudo(_) => false,
        }
    }

    /// The attributes of pseudo node `node`: a read-only directory owned by root.
    pub(crate) fn attrs(&self, node: usize) -> Fattr3 {
        let subdirs = self.nodes.get(node).map_or(0, |n| n.children.len());
        Fattr3 {
            ftype: Ftype3::Dir,
            mode: 0o555,
            nlink: 2 + u32::try_from(subdirs).unwrap_or(u32::MAX - 2),
            uid: 0,
            gid: 0,
            size: 4096,
            used: 4096,
            rdev: SpecData3::default(),
            fsid: 0,
            fileid: self.id(node),
            atime: self.started,
            mtime: self.started,
            ctime: self.started,
        }
    }
}
