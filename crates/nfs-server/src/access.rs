//! Who is calling and what they may do: credentials after squashing, POSIX permission checks from mode
//! bits, the ACCESS procedure's bit mask (RFC 1813 §3.3.4) and the ownership rules of SETATTR.
//!
//! The rules follow what Linux knfsd does on top of the VFS:
//! - root (uid 0 after squashing) may read and write anything, and execute (search) directories and
//!   files with at least one execute bit;
//! - otherwise the owner, group or other class of the mode decides (the first class that matches, no
//!   fall-through);
//! - for READ, WRITE and truncation the file's owner always passes (knfsd's "owner override", so that
//!   `open(); fchmod(fd, 0); write(fd)` keeps working), and READ is also allowed with execute permission;
//! - a SETATTR that changes the owner, or the size of a regular file, by a caller that is not root also
//!   clears the set-id bits (S_ISGID only with group execute), as the kernel's chown and truncate do.

use nfs3_proto::{
    Fattr3, Ftype3, NfsErr3, Sattr3, SetTime3, ACCESS3_DELETE, ACCESS3_EXECUTE, ACCESS3_EXTEND, ACCESS3_LOOKUP,
    ACCESS3_MODIFY, ACCESS3_READ,
};
use onc_rpc::auth_sys::MAX_GIDS;

use crate::backend::mode_after_unprivileged_write;

/// Read permission (the `r` bit of a mode class).
pub(crate) const MAY_READ: u32 = 4;
/// Write permission.
pub(crate) const MAY_WRITE: u32 = 2;
/// Execute / search permission.
pub(crate) const MAY_EXEC: u32 = 1;

const S_ISUID: u32 = 0o4000;
const S_ISGID: u32 = 0o2000;
const S_ISVTX: u32 = 0o1000;

/// The caller's identity as the RPC credential states it, before an export's squash rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Identity {
    /// AUTH_NONE: mapped to the export's anonymous ids.
    Anonymous,
    /// AUTH_SYS (RFC 5531 Appendix A).
    Unix(Cred),
}

/// Effective credentials: uid, primary gid, up to 16 supplementary gids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cred {
    pub uid: u32,
    pub gid: u32,
    gids: [u32; MAX_GIDS],
    ngids: u8,
}

impl Cred {
    pub(crate) fn new(uid: u32, gid: u32, gids: &[u32]) -> Self {
        let mut array = [0; MAX_GIDS];
        let mut n = 0;
        for (slot, g) in array.iter_mut().zip(gids) {
            *slot = *g;
            n += 1;
        }
        Cred { uid, gid, gids: array, ngids: n }
    }

    pub(crate) fn gids(&self) -> &[u32] {
        self.gids.get(..usize::from(self.ngids)).unwrap_or(&[])
    }

    pub(crate) fn is_root(&self) -> bool {
        self.uid == 0
    }

    pub(crate) fn in_group(&self, gid: u32) -> bool {
        self.gid == gid || self.gids().contains(&gid)
    }

    /// The same credential with every group id passed through `f` (root squashing maps gid 0).
    pub(crate) fn map_groups(&self, f: impl Fn(u32) -> u32) -> Self {
        let mut out = *self;
        out.gid = f(self.gid);
        for g in out.gids.iter_mut().take(usize::from(self.ngids)) {
            *g = f(*g);
        }
        out
    }
}

/// POSIX permission check of `want` (a combination of `MAY_*`) against `attr`'s mode for `cred`.
pub(crate) fn permits(attr: &Fattr3, cred: &Cred, want: u32) -> bool {
    if cred.is_root() {
        // CAP_DAC_OVERRIDE: everything but executing a file that nobody may execute.
        return want & MAY_EXEC == 0 || attr.ftype == Ftype3::Dir || attr.mode & 0o111 != 0;
    }
    let class = if cred.uid == attr.uid {
        attr.mode >> 6
    } else if cred.in_group(attr.gid) {
        attr.mode >> 3
    } else {
        attr.mode
    } & 7;
    class & want == want
}

/// READ permission as knfsd grants it: owner, read permission, or execute permission.
pub(crate) fn may_read_data(attr: &Fattr3, cred: &Cred) -> bool {
    cred.uid == attr.uid || permits(attr, cred, MAY_READ) || permits(attr, cred, MAY_EXEC)
}

/// WRITE / COMMIT / truncate permission: owner or write permission.
pub(crate) fn may_write_data(attr: &Fattr3, cred: &Cred) -> bool {
    cred.uid == attr.uid || permits(attr, cred, MAY_WRITE)
}

/// Adding or removing entries of a directory: write and search permission on it.
pub(crate) fn may_modify_dir(dir: &Fattr3, cred: &Cred) -> bool {
    permits(dir, cred, MAY_WRITE | MAY_EXEC)
}

/// The sticky-bit rule for removing or renaming `victim` out of `dir`: in a sticky directory only the
/// owner of the entry, the owner of the directory or root may.
pub(crate) fn may_unlink_from(dir: &Fattr3, victim: &Fattr3, cred: &Cred) -> bool {
    dir.mode & S_ISVTX == 0 || cred.is_root() || cred.uid == dir.uid || cred.uid == victim.uid
}

/// RFC 1813 §3.3.4: the subset of `requested` that `cred` holds on `attr`. Bits are mapped to permissions
/// as knfsd does (directories: LOOKUP = search, MODIFY/EXTEND/DELETE = write + search; regular files:
/// MODIFY/EXTEND = write, no DELETE; other types: READ, EXECUTE, MODIFY, EXTEND). On a read-only export
/// no modifying bit is granted.
pub(crate) fn access_mask(attr: &Fattr3, cred: &Cred, requested: u32, read_only: bool) -> u32 {
    let table: &[(u32, u32)] = match attr.ftype {
        Ftype3::Dir => &[
            (ACCESS3_READ, MAY_READ),
            (ACCESS3_LOOKUP, MAY_EXEC),
            (ACCESS3_MODIFY, MAY_WRITE | MAY_EXEC),
            (ACCESS3_EXTEND, MAY_WRITE | MAY_EXEC),
            (ACCESS3_DELETE, MAY_WRITE | MAY_EXEC),
        ],
        Ftype3::Reg => &[
            (ACCESS3_READ, MAY_READ),
            (ACCESS3_EXECUTE, MAY_EXEC),
            (ACCESS3_MODIFY, MAY_WRITE),
            (ACCESS3_EXTEND, MAY_WRITE),
        ],
        _ => &[
            (ACCESS3_READ, MAY_READ),
            (ACCESS3_EXECUTE, MAY_EXEC),
            (ACCESS3_MODIFY, MAY_WRITE),
            (ACCESS3_EXTEND, MAY_WRITE),
        ],
    };
    let mut granted = 0;
    for &(bit, want) in table {
        if requested & bit == 0 || (read_only && want & MAY_WRITE != 0) {
            continue;
        }
        if permits(attr, cred, want) {
            granted |= bit;
        }
    }
    granted
}

/// Checks a SETATTR (RFC 1813 §3.3.2) against POSIX ownership rules and returns the attributes to apply
/// (with the set-id bits the kernel would drop). `cur` are the object's current attributes.
///
/// - mode: owner or root, else PERM; a non-member's chmod drops S_ISGID;
/// - uid: only root may change it, else PERM; gid: root, or the owner to one of its own groups, else PERM;
/// - size: write permission (owner passes), and only on regular files (ISDIR / INVAL otherwise);
/// - times: explicit times need owner or root (PERM); "server time" also accepts write permission (ACCES);
/// - a change of owner or group of a non-directory clears S_ISUID, and S_ISGID when group-executable.
pub(crate) fn check_setattr(cur: &Fattr3, req: &Sattr3, cred: &Cred) -> Result<Sattr3, NfsErr3> {
    let owner_or_root = cred.is_root() || cred.uid == cur.uid;
    let mut out = *req;
    if let Some(size) = req.size {
        match cur.ftype {
            Ftype3::Reg => {}
            Ftype3::Dir => return Err(NfsErr3::IsDir),
            _ => return Err(NfsErr3::Inval),
        }
        if size != cur.size && !may_write_data(cur, cred) {
            return Err(NfsErr3::Acces);
        }
    }
    let new_gid = req.gid.unwrap_or(cur.gid);
    if let Some(mode) = req.mode {
        if !owner_or_root {
            return Err(NfsErr3::Perm);
        }
        let mut mode = mode & 0o7777;
        if !cred.is_root() && !cred.in_group(new_gid) {
            mode &= !S_ISGID;
        }
        out.mode = Some(mode);
    }
    let uid_changes = req.uid.is_some_and(|u| u != cur.uid);
    let gid_changes = req.gid.is_some_and(|g| g != cur.gid);
    if uid_changes && !cred.is_root() {
        return Err(NfsErr3::Perm);
    }
    if gid_changes && !(cred.is_root() || (cred.uid == cur.uid && cred.in_group(new_gid))) {
        return Err(NfsErr3::Perm);
    }
    for time in [req.atime, req.mtime] {
        match time {
            SetTime3::DontChange => {}
            SetTime3::SetToClientTime(_) if !owner_or_root => return Err(NfsErr3::Perm),
            SetTime3::SetToServerTime if !owner_or_root && !permits(cur, cred, MAY_WRITE) => {
                return Err(NfsErr3::Acces)
            }
            _ => {}
        }
    }
    if (uid_changes || gid_changes) && cur.ftype != Ftype3::Dir && out.mode.is_none() {
        let mut kill = S_ISUID;
        if cur.mode & 0o010 != 0 {
            kill |= S_ISGID;
        }
        if cur.mode & kill != 0 {
            out.mode = Some(cur.mode & 0o7777 & !kill);
        }
    }
    // Linux do_truncate() -> should_remove_suid(): a size change without CAP_FSETID drops S_ISUID, S_ISGID if g+x.
    if req.size.is_some() && !cred.is_root() && cur.ftype == Ftype3::Reg && out.mode.is_none() {
        let mode = mode_after_unprivileged_write(cur.mode & 0o7777);
        if mode != cur.mode & 0o7777 {
            out.mode = Some(mode);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use nfs3_proto::{NfsTime3, SpecData3};

    use super::*;

    fn attr(ftype: Ftype3, mode: u32, uid: u32, gid: u32) -> Fattr3 {
        let t = NfsTime3::default();
        Fattr3 {
            ftype,
            mode,
            nlink: 1,
            uid,
            gid,
            size: 10,
            used: 0,
            rdev: SpecData3::default(),
            fsid: 0,
            fileid: 1,
            atime: t,
            mtime: t,
            ctime: t,
        }
    }

    const ALL: u32 = 0x3f;

    #[test]
    fn owner_class_decides_without_falling_through_to_group_or_other() {
        let file = attr(Ftype3::Reg, 0o077, 1000, 100);
        let owner = Cred::new(1000, 100, &[]);
        assert!(!permits(&file, &owner, MAY_READ));
        assert!(permits(&file, &Cred::new(2000, 100, &[]), MAY_READ | MAY_WRITE));
        assert!(permits(&file, &Cred::new(2000, 5, &[100]), MAY_EXEC), "supplementary groups count");
    }

    #[test]
    fn root_gets_everything_but_execute_on_non_executables() {
        let root = Cred::new(0, 0, &[]);
        let file = attr(Ftype3::Reg, 0o600, 1000, 100);
        assert_eq!(access_mask(&file, &root, ALL, false), ACCESS3_READ | ACCESS3_MODIFY | ACCESS3_EXTEND);
        let script = attr(Ftype3::Reg, 0o700, 1000, 100);
        assert_eq!(access_mask(&script, &root, ALL, false), 0x2d);
        let dir = attr(Ftype3::Dir, 0o000, 1000, 100);
        assert_eq!(access_mask(&dir, &root, ALL, false), 0x1f);
    }

    #[test]
    fn access_on_a_read_only_export_never_grants_modification() {
        let dir = attr(Ftype3::Dir, 0o777, 1000, 100);
        let me = Cred::new(1000, 100, &[]);
        assert_eq!(access_mask(&dir, &me, ALL, true), ACCESS3_READ | ACCESS3_LOOKUP);
    }

    #[test]
    fn access_only_answers_the_requested_bits() {
        let file = attr(Ftype3::Reg, 0o644, 1000, 100);
        let other = Cred::new(2000, 200, &[]);
        assert_eq!(access_mask(&file, &other, ACCESS3_READ | ACCESS3_MODIFY, false), ACCESS3_READ);
        assert_eq!(access_mask(&file, &other, 0, false), 0);
    }

    #[test]
    fn only_owner_or_root_may_chmod() {
        let file = attr(Ftype3::Reg, 0o644, 1000, 100);
        let chmod = Sattr3 { mode: Some(0o600), ..Sattr3::default() };
        assert_eq!(check_setattr(&file, &chmod, &Cred::new(2000, 100, &[])), Err(NfsErr3::Perm));
        assert!(check_setattr(&file, &chmod, &Cred::new(1000, 100, &[])).is_ok());
        assert!(check_setattr(&file, &chmod, &Cred::new(0, 0, &[])).is_ok());
    }

    #[test]
    fn chmod_by_a_non_member_drops_setgid() {
        let file = attr(Ftype3::Reg, 0o644, 1000, 100);
        let chmod = Sattr3 { mode: Some(0o2755), ..Sattr3::default() };
        let out = check_setattr(&file, &chmod, &Cred::new(1000, 5, &[])).unwrap_or_default();
        assert_eq!(out.mode, Some(0o755));
    }

    #[test]
    fn chown_is_root_only_and_chgrp_needs_membership() {
        let file = attr(Ftype3::Reg, 0o644, 1000, 100);
        let owner = Cred::new(1000, 100, &[200]);
        let chown = Sattr3 { uid: Some(3), ..Sattr3::default() };
        assert_eq!(check_setattr(&file, &chown, &owner), Err(NfsErr3::Perm));
        let same = Sattr3 { uid: Some(1000), ..Sattr3::default() };
        assert!(check_setattr(&file, &same, &owner).is_ok(), "setting the same owner is allowed");
        let chgrp_member = Sattr3 { gid: Some(200), ..Sattr3::default() };
        assert!(check_setattr(&file, &chgrp_member, &owner).is_ok());
        let chgrp_other = Sattr3 { gid: Some(300), ..Sattr3::default() };
        assert_eq!(check_setattr(&file, &chgrp_other, &owner), Err(NfsErr3::Perm));
    }

    #[test]
    fn chown_of_a_setuid_file_clears_the_set_id_bits() {
        let file = attr(Ftype3::Reg, 0o6755, 1000, 100);
        let chown = Sattr3 { uid: Some(3), ..Sattr3::default() };
        let out = check_setattr(&file, &chown, &Cred::new(0, 0, &[])).unwrap_or_default();
        assert_eq!(out.mode, Some(0o755));
    }

    #[test]
    fn truncation_needs_write_permission_and_a_regular_file() {
        let file = attr(Ftype3::Reg, 0o644, 1000, 100);
        let trunc = Sattr3 { size: Some(0), ..Sattr3::default() };
        assert_eq!(check_setattr(&file, &trunc, &Cred::new(2000, 200, &[])), Err(NfsErr3::Acces));
        let readonly_owned = attr(Ftype3::Reg, 0o444, 1000, 100);
        assert!(check_setattr(&readonly_owned, &trunc, &Cred::new(1000, 100, &[])).is_ok(), "owner override");
        let dir = attr(Ftype3::Dir, 0o777, 1000, 100);
        assert_eq!(check_setattr(&dir, &trunc, &Cred::new(0, 0, &[])), Err(NfsErr3::IsDir));
    }

    #[test]
    fn explicit_times_need_ownership_but_server_time_accepts_write_permission() {
        let file = attr(Ftype3::Reg, 0o666, 1000, 100);
        let other = Cred::new(2000, 200, &[]);
        let explicit = Sattr3 { mtime: SetTime3::SetToClientTime(NfsTime3::default()), ..Sattr3::default() };
        assert_eq!(check_setattr(&file, &explicit, &other), Err(NfsErr3::Perm));
        let now = Sattr3 { mtime: SetTime3::SetToServerTime, ..Sattr3::default() };
        assert!(check_setattr(&file, &now, &other).is_ok());
        let private = attr(Ftype3::Reg, 0o644, 1000, 100);
        assert_eq!(check_setattr(&private, &now, &other), Err(NfsErr3::Acces));
    }

    #[test]
    fn sticky_directories_protect_other_users_entries() {
        let tmp = attr(Ftype3::Dir, 0o1777, 0, 0);
        let theirs = attr(Ftype3::Reg, 0o644, 1000, 100);
        assert!(!may_unlink_from(&tmp, &theirs, &Cred::new(2000, 200, &[])));
        assert!(may_unlink_from(&tmp, &theirs, &Cred::new(1000, 100, &[])));
        assert!(may_unlink_from(&tmp, &theirs, &Cred::new(0, 0, &[])));
    }
}
