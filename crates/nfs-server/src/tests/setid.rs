//! Set-user-ID and set-group-ID bits on a write by someone other than root (the kernel's
//! file_remove_privs / should_remove_suid, which knfsd gets from the VFS): cleared by WRITE and by a
//! SETATTR of the size, S_ISGID only with group execute, kept for root; the reply's attributes show it.
//! Both backends.

use super::restart::Dirs;
use super::*;

fn setattr(c: &Client<'_>, object: FileHandle3, new_attributes: Sattr3) -> Result<Option<Fattr3>, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Setattr(SetattrArgs { object, new_attributes, guard: None }));
    let res = expect_reply!(nfs_reply(Nfs3Proc::Setattr, &reply), Setattr);
    res.into_result().map(|ok| ok.obj_wcc.after).map_err(|(e, _)| e)
}

/// A file `name` owned by uid/gid 1000 with `mode`, made by root.
fn owned_file(server: &Server, name: &[u8], mode: u32) -> FileHandle3 {
    let root = Client::root(server);
    let file = ok(create(&root, root_of(server), name, 0o644), "create");
    let owner = Sattr3 { uid: Some(1000), gid: Some(1000), ..Sattr3::default() };
    ok(setattr(&root, file, owner), "chown");
    let set = ok(setattr(&root, file, sattr_mode(mode)), "chmod");
    assert_eq!(set.map(|a| a.mode), Some(mode));
    file
}

fn mode_after_write(c: &Client<'_>, file: FileHandle3) -> Option<u32> {
    let done = ok(write(c, file, 0, &[7u8; 4096]), "write 4 KiB");
    assert_eq!(done.count, 4096);
    let after = done.file_wcc.after.map(|a| a.mode);
    assert_eq!(after, getattr(c, file).ok().map(|a| a.mode), "the reply shows the mode the file has");
    after
}

fn check(server: &Server) {
    let owner = Client::new(server);
    let setid_exec = owned_file(server, b"suid-sgid-gx", 0o6755);
    assert_eq!(mode_after_write(&owner, setid_exec), Some(0o0755), "both bits go (group execute is set)");
    let setid_lock = owned_file(server, b"suid-sgid-nogx", 0o6745);
    assert_eq!(mode_after_write(&owner, setid_lock), Some(0o2745), "S_ISGID without g+x stays");
    let by_root = owned_file(server, b"root-writes", 0o6755);
    assert_eq!(mode_after_write(&Client::root(server), by_root), Some(0o6755), "root keeps them (CAP_FSETID)");
    let truncated = owned_file(server, b"truncated", 0o6755);
    let after = ok(setattr(&owner, truncated, Sattr3 { size: Some(10), ..Sattr3::default() }), "truncate");
    assert_eq!(after.map(|a| (a.mode, a.size)), Some((0o0755, 10)), "a size change is a modification too");
    let chmod_and_size = owned_file(server, b"explicit", 0o0755);
    let explicit = Sattr3 { size: Some(0), mode: Some(0o4755), ..Sattr3::default() };
    let after = ok(setattr(&owner, chmod_and_size, explicit), "truncate and chmod");
    assert_eq!(after.map(|a| a.mode), Some(0o4755), "an explicit mode in the same SETATTR is applied as given");
}

#[test]
fn a_write_by_a_non_root_owner_clears_set_id_bits_mem() {
    check(&server());
}

#[test]
fn a_write_by_a_non_root_owner_clears_set_id_bits_dir() {
    let dirs = Dirs::new("setid");
    check(&dirs.server());
}
