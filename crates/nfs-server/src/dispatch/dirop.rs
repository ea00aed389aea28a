//! What CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME and LINK share: a directory about to be
//! changed, checked (name, type, read-only export, write + search permission) with its pre-operation
//! attributes kept for the reply's wcc_data (RFC 1813 §2.6), and the creation of a new node.

use nfs3_proto::{CreateResFail, CreateResOk, Fattr3, FileHandle3, Ftype3, Nfs3Result, NfsErr3, Sattr3, WccData};

use super::call::{require_dir, wcc, Call, Obj};
use crate::access::{may_modify_dir, may_unlink_from};
use crate::backend::{CreateMode, NewNode};

const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;

/// A directory that passed the checks for a change.
pub(crate) struct DirChange<'s> {
    pub dir: Obj<'s>,
    pub before: Fattr3,
}

/// A failure with the directory's wcc_data, as every directory-changing result carries.
pub(crate) type DirFail = (NfsErr3, WccData);

impl<'s> DirChange<'s> {
    /// Resolves `fh` and checks, in order: the name (with `check_name`), that it is a directory (NOTDIR),
    /// a writable export (ROFS), and write + search permission (ACCES).
    pub(crate) fn open(
        cx: &Call<'s>,
        fh: &FileHandle3,
        name: &[u8],
        check_name: fn(&[u8]) -> Result<(), NfsErr3>,
    ) -> Result<Self, DirFail> {
        let dir = cx.resolve(fh).map_err(|e| (e, WccData::default()))?;
        let before = dir.getattr().map_err(|e| (e, WccData::default()))?;
        let change = DirChange { dir, before };
        let checks = check_name(name)
            .and_then(|()| require_dir(&change.before))
            .and_then(|()| change.dir.require_writable())
            .and_then(|()| if may_modify_dir(&change.before, &dir.cred) { Ok(()) } else { Err(NfsErr3::Acces) });
        checks.map_err(|e| change.fail(e))?;
        Ok(change)
    }

    /// wcc_data: the attributes from before the change and fresh ones.
    pub(crate) fn wcc(&self) -> WccData {
        wcc(Some(&self.before), self.dir.post_op())
    }

    pub(crate) fn fail(&self, e: NfsErr3) -> DirFail {
        (e, self.wcc())
    }

    /// The sticky-directory rule for removing or replacing `name` (ACCES when the caller owns neither the
    /// entry nor the directory). A missing entry passes: the backend answers NOENT itself.
    pub(crate) fn check_sticky(&self, name: &[u8]) -> Result<(), NfsErr3> {
        if self.before.mode & S_ISVTX == 0 || self.dir.cred.is_root() || self.dir.cred.uid == self.before.uid {
            return Ok(());
        }
        let Ok(victim) = self.dir.backend().lookup(self.dir.file, name) else { return Ok(()) };
        let attrs = self.dir.with_file(victim).getattr()?;
        if may_unlink_from(&self.before, &attrs, &self.dir.cred) {
            Ok(())
        } else {
            Err(NfsErr3::Acces)
        }
    }

    /// Attributes for a new node of type `ftype`: the caller owns it (root may choose the owner); the group
    /// is the requested one if the caller belongs to it, else the directory's when it is set-group-id
    /// (BSD semantics), else the caller's; the mode defaults to `default_mode` when not given.
    pub(crate) fn initial_attrs(&self, requested: &Sattr3, ftype: Ftype3, default_mode: u32) -> Sattr3 {
        let cred = &self.dir.cred;
        let uid = if cred.is_root() { requested.uid.unwrap_or(cred.uid) } else { cred.uid };
        let setgid_dir = self.before.mode & S_ISGID != 0;
        let gid = match requested.gid {
            Some(g) if cred.is_root() || cred.in_group(g) => g,
            _ if setgid_dir => self.before.gid,
            _ => cred.gid,
        };
        let mut mode = requested.mode.unwrap_or(default_mode) & 0o7777;
        if ftype == Ftype3::Dir && setgid_dir {
            mode |= S_ISGID;
        } else if ftype != Ftype3::Dir && !cred.is_root() && !cred.in_group(gid) {
            mode &= !S_ISGID;
        }
        Sattr3 { mode: Some(mode), uid: Some(uid), gid: Some(gid), ..*requested }
    }

    /// Creates `name` and builds the CREATE/MKDIR/SYMLINK/MKNOD result: the new handle, its attributes
    /// and the directory's wcc_data.
    pub(crate) fn make(
        &self,
        cx: &Call<'s>,
        name: &[u8],
        node: NewNode<'_>,
        mode: CreateMode,
        attrs: &Sattr3,
    ) -> Nfs3Result<CreateResOk, CreateResFail> {
        match self.dir.backend().create(self.dir.file, name, node, mode, attrs) {
            Ok(file) => self.created(cx, file),
            Err(e) => Nfs3Result::Fail(e, CreateResFail { dir_wcc: self.wcc() }),
        }
    }

    /// The success result for `file`, just created (or reused) in this directory.
    pub(crate) fn created(
        &self,
        cx: &Call<'s>,
        file: crate::backend::FileId,
    ) -> Nfs3Result<CreateResOk, CreateResFail> {
        Nfs3Result::Ok(CreateResOk {
            obj: Some(cx.handle_of(self.dir.export, file)),
            obj_attributes: self.dir.with_file(file).post_op(),
            dir_wcc: self.wcc(),
        })
    }
}

/// Turns a `Result` whose error carries the failure arm into an NFSv3 result.
pub(crate) fn into_res<T, F>(r: Result<T, (NfsErr3, F)>) -> Nfs3Result<T, F> {
    match r {
        Ok(v) => Nfs3Result::Ok(v),
        Err((e, f)) => Nfs3Result::Fail(e, f),
    }
}
