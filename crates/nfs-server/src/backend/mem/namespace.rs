//! Namespace changes: CREATE/MKDIR/SYMLINK/MKNOD, REMOVE/RMDIR, RENAME and LINK.
//!
//! Each runs under the backend's namespace mutex, so the checks it makes first (names present or absent,
//! types, emptiness, ancestry) still hold when it changes things, and it may take several inode locks
//! without risking a cycle: the data path (READ/WRITE/GETATTR/SETATTR) only ever holds one inode lock and
//! never waits for the table lock while holding it.

use nfs3_proto::{Ftype3, NfsErr3, NfsTime3, Sattr3, SpecData3};

use super::dir::Directory;
use super::inode::{chosen_time, now, Attrs, Body, Inode};
use super::pages::{FileData, MAX_FILE_SIZE};
use super::{check_name, MemBackend, MAX_SYMLINK_LEN};
use crate::backend::{BackendResult, CreateMode, FileId, NewNode};

/// Hard links a file may have (ext4's limit); one more is NFS3ERR_MLINK (RFC 1813 §3.3.15).
pub(super) const MAX_LINKS: u32 = 65_000;

impl MemBackend {
    /// CREATE, MKDIR, SYMLINK, MKNOD (RFC 1813 §3.3.8–§3.3.11).
    pub(super) fn create_node(
        &self,
        dir: FileId,
        name: &[u8],
        node: NewNode<'_>,
        how: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        check_name(name)?;
        let _namespace = self.lock_namespace();
        let parent = self.inode(dir)?;
        if let Some(existing) = self.entry(&parent, name)? {
            return self.create_existing(existing, node, how, attrs);
        }
        let (ftype, body) = new_body(dir, node, attrs)?;
        let now = now();
        let node_attrs = Attrs {
            mode: attrs.mode.unwrap_or(default_mode(ftype)) & 0o7777,
            uid: attrs.uid.unwrap_or(0),
            gid: attrs.gid.unwrap_or(0),
            nlink: if ftype == Ftype3::Dir { 2 } else { 1 },
            mtime: chosen_time(attrs.mtime, now).unwrap_or(now),
            ctime: now,
        };
        let atime = chosen_time(attrs.atime, now).unwrap_or(now);
        let inode = self.table_write().insert(|id| Inode::new(id, ftype, node_attrs, body, atime))?;
        let mut parent_node = parent.write();
        if let Body::Dir(entries) = &mut parent_node.body {
            entries.insert(name, inode.file);
        }
        parent_node.attrs.modified(now);
        if ftype == Ftype3::Dir {
            parent_node.attrs.nlink = parent_node.attrs.nlink.saturating_add(1);
        }
        Ok(inode.file)
    }

    /// RFC 1813 §3.3.8: UNCHECKED reuses a regular file (applying only the size, as knfsd does: the mode
    /// and owner are for a new file); EXCLUSIVE succeeds when the stored verifier matches; else EXIST.
    fn create_existing(
        &self,
        existing: FileId,
        node: NewNode<'_>,
        how: CreateMode,
        attrs: &Sattr3,
    ) -> BackendResult<FileId> {
        let inode = self.inode(existing)?;
        let mut state = inode.write();
        match (how, node, &state.body) {
            (CreateMode::Unchecked, NewNode::File { .. }, Body::File(_)) => {
                if let Some(size) = attrs.size {
                    state.set_size(size, &self.space, now())?;
                }
                Ok(existing)
            }
            (CreateMode::Exclusive, NewNode::File { exclusive: Some(verifier) }, Body::File(data))
                if data.verifier == Some(verifier) =>
            {
                Ok(existing)
            }
            _ => Err(NfsErr3::Exist),
        }
    }

    /// REMOVE and RMDIR (RFC 1813 §3.3.12, §3.3.13).
    pub(super) fn remove_name(&self, dir: FileId, name: &[u8], rmdir: bool) -> BackendResult<()> {
        check_name(name)?;
        let _namespace = self.lock_namespace();
        let parent = self.inode(dir)?;
        let target = self.inode(self.entry(&parent, name)?.ok_or(NfsErr3::NoEnt)?)?;
        match (rmdir, target.is_dir()) {
            (true, false) => return Err(NfsErr3::NotDir),
            (false, true) => return Err(NfsErr3::IsDir),
            (true, true) if !is_empty_dir(&target) => return Err(NfsErr3::NotEmpty),
            _ => {}
        }
        let now = now();
        let mut parent_node = parent.write();
        if let Body::Dir(entries) = &mut parent_node.body {
            entries.remove(name);
        }
        parent_node.attrs.modified(now);
        if rmdir {
            parent_node.attrs.nlink = parent_node.attrs.nlink.saturating_sub(1);
        }
        drop(parent_node);
        self.drop_link(&target, now);
        Ok(())
    }

    /// RENAME (RFC 1813 §3.3.14) with POSIX semantics: atomic replacement of a compatible target.
    pub(super) fn rename_entry(
        &self,
        from_dir: FileId,
        from_name: &[u8],
        to_dir: FileId,
        to_name: &[u8],
    ) -> BackendResult<()> {
        check_name(from_name)?;
        check_name(to_name)?;
        let _namespace = self.lock_namespace();
        let from_parent = self.inode(from_dir)?;
        let to_parent = self.inode(to_dir)?;
        let source_id = self.entry(&from_parent, from_name)?.ok_or(NfsErr3::NoEnt)?;
        let target_id = self.entry(&to_parent, to_name)?;
        if target_id == Some(source_id) {
            // POSIX: both names link the same file (or are the same name): nothing to do.
            return Ok(());
        }
        let source = self.inode(source_id)?;
        if source.is_dir() && self.is_within(to_dir, source_id)? {
            return Err(NfsErr3::Inval); // a directory cannot move into its own subtree
        }
        let target = target_id.map(|id| self.inode(id)).transpose()?;
        if let Some(target) = &target {
            // RFC 1813 §3.3.14: "If they are not compatible or if the target is a directory but not empty,
            // the server should return the error, NFS3ERR_EXIST."
            if source.is_dir() != target.is_dir() || (target.is_dir() && !is_empty_dir(target)) {
                return Err(NfsErr3::Exist);
            }
        }
        let replaces_dir = target.as_ref().is_some_and(|target| target.is_dir());
        let now = now();
        if from_dir == to_dir {
            let mut parent_node = from_parent.write();
            if let Body::Dir(entries) = &mut parent_node.body {
                entries.remove(to_name);
                entries.rename_in_place(from_name, to_name);
            }
            parent_node.attrs.modified(now);
            if replaces_dir {
                parent_node.attrs.nlink = parent_node.attrs.nlink.saturating_sub(1);
            }
        } else {
            let mut from_node = from_parent.write();
            if let Body::Dir(entries) = &mut from_node.body {
                entries.remove(from_name);
            }
            from_node.attrs.modified(now);
            if source.is_dir() {
                from_node.attrs.nlink = from_node.attrs.nlink.saturating_sub(1);
            }
            drop(from_node);
            let mut to_node = to_parent.write();
            if let Body::Dir(entries) = &mut to_node.body {
                entries.remove(to_name);
                entries.insert(to_name, source_id);
            }
            to_node.attrs.modified(now);
            if source.is_dir() && !replaces_dir {
                to_node.attrs.nlink = to_node.attrs.nlink.saturating_add(1);
            }
        }
        let mut source_node = source.write();
        source_node.attrs.ctime = now;
        if let Body::Dir(entries) = &mut source_node.body {
            entries.set_parent(to_dir);
        }
        drop(source_node);
        if let Some(target) = &target {
            self.drop_link(target, now);
        }
        Ok(())
    }

    /// LINK (RFC 1813 §3.3.15): another name for a non-directory.
    pub(super) fn link_name(&self, file: FileId, dir: FileId, name: &[u8]) -> BackendResult<()> {
        check_name(name)?;
        let _namespace = self.lock_namespace();
        let inode = self.inode(file)?;
        if inode.is_dir() {
            return Err(NfsErr3::IsDir);
        }
        let parent = self.inode(dir)?;
        if self.entry(&parent, name)?.is_some() {
            return Err(NfsErr3::Exist);
        }
        let mut node = inode.write();
        if node.attrs.nlink >= MAX_LINKS {
            return Err(NfsErr3::Mlink);
        }
        let now = now();
        node.attrs.nlink += 1;
        node.attrs.ctime = now;
        drop(node);
        let mut parent_node = parent.write();
        if let Body::Dir(entries) = &mut parent_node.body {
            entries.insert(name, file);
        }
        parent_node.attrs.modified(now);
        Ok(())
    }

    /// `name` in directory `parent` (NOTDIR when it is not one).
    fn entry(&self, parent: &Inode, name: &[u8]) -> BackendResult<Option<FileId>> {
        match &parent.read().body {
            Body::Dir(entries) => Ok(entries.get(name)),
            _ => Err(NfsErr3::NotDir),
        }
    }

    /// True when directory `dir` is `ancestor` or below it. Parents are stable under the namespace lock;
    /// the walk is bounded by the number of inodes, so a corrupted tree cannot loop it.
    fn is_within(&self, dir: FileId, ancestor: FileId) -> BackendResult<bool> {
        let mut current = dir;
        let steps = self.table_read().live();
        for _ in 0..=steps {
            if current == ancestor {
                return Ok(true);
            }
            if current == self.root {
                return Ok(false);
            }
            current = match &self.inode(current)?.read().body {
                Body::Dir(entries) => entries.parent(),
                _ => return Err(NfsErr3::ServerFault),
            };
        }
        Err(NfsErr3::ServerFault)
    }

    /// One name of `inode` is gone: a directory dies, others lose a link; at zero links the pages return to
    /// the budget and the id turns stale.
    fn drop_link(&self, inode: &Inode, now: NfsTime3) {
        let mut node = inode.write();
        node.attrs.nlink = if inode.is_dir() { 0 } else { node.attrs.nlink.saturating_sub(1) };
        node.attrs.ctime = now;
        if node.attrs.nlink == 0 {
            if let Body::File(data) = &mut node.body {
                data.release_all(&self.space);
            }
            self.table_write().remove(inode.file);
        }
    }
}

fn is_empty_dir(inode: &Inode) -> bool {
    matches!(&inode.read().body, Body::Dir(entries) if entries.is_empty())
}

/// The type and initial contents of a new node, validated before anything changes.
fn new_body(parent: FileId, node: NewNode<'_>, attrs: &Sattr3) -> BackendResult<(Ftype3, Body)> {
    Ok(match node {
        NewNode::File { exclusive } => {
            let size = attrs.size.unwrap_or(0);
            if size > MAX_FILE_SIZE {
                return Err(NfsErr3::FBig);
            }
            (Ftype3::Reg, Body::File(FileData::new(size, exclusive)))
        }
        NewNode::Directory => (Ftype3::Dir, Body::Dir(Directory::new(parent))),
        NewNode::Symlink { target: [] } => return Err(NfsErr3::Inval),
        NewNode::Symlink { target } if target.len() > MAX_SYMLINK_LEN => return Err(NfsErr3::NameTooLong),
        NewNode::Symlink { target } => (Ftype3::Lnk, Body::Symlink(bytes::Bytes::copy_from_slice(target))),
        // RFC 1813 §3.3.11: device numbers only for character and block devices.
        NewNode::Special { ftype: ftype @ (Ftype3::Chr | Ftype3::Blk), rdev } => (ftype, Body::Special(rdev)),
        NewNode::Special { ftype: ftype @ (Ftype3::Sock | Ftype3::Fifo), .. } => {
            (ftype, Body::Special(SpecData3::default()))
        }
        NewNode::Special { .. } => return Err(NfsErr3::BadType),
    })
}

fn default_mode(ftype: Ftype3) -> u32 {
    match ftype {
        Ftype3::Dir => 0o755,
        Ftype3::Lnk => 0o777,
        _ => 0o644,
    }
}
