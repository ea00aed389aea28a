//! Procedures on names: LOOKUP, MKDIR, RMDIR, REMOVE, RENAME, LINK, SYMLINK, READLINK, MKNOD, and the
//! name and directory-permission rules they share.

use super::*;

fn rmdir(c: &Client<'_>, dir: FileHandle3, name: &[u8]) -> NfsStat3 {
    c.status(&Nfs3Call::Rmdir(RmdirArgs { object: DirOpArgs3 { dir, name } }))
}

fn rename(c: &Client<'_>, from: (FileHandle3, &[u8]), to: (FileHandle3, &[u8])) -> RenameRes {
    let args = RenameArgs { from: DirOpArgs3 { dir: from.0, name: from.1 }, to: DirOpArgs3 { dir: to.0, name: to.1 } };
    expect_reply!(nfs_reply(Nfs3Proc::Rename, &c.nfs(&Nfs3Call::Rename(args))), Rename)
}

fn link(c: &Client<'_>, file: FileHandle3, dir: FileHandle3, name: &[u8]) -> LinkRes {
    let args = LinkArgs { file, link: DirOpArgs3 { dir, name } };
    expect_reply!(nfs_reply(Nfs3Proc::Link, &c.nfs(&Nfs3Call::Link(args))), Link)
}

fn mknod(c: &Client<'_>, dir: FileHandle3, name: &[u8], what: MknodData3) -> NfsStat3 {
    c.status(&Nfs3Call::Mknod(MknodArgs { where_: DirOpArgs3 { dir, name }, what }))
}

#[test]
fn lookup_of_dot_and_dotdot_stays_inside_the_export() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    assert_eq!(lookup(&client, root, b"."), Ok(root));
    assert_eq!(lookup(&client, root, b".."), Ok(root), "the export root is its own parent");
    let sub = ok(mkdir(&client, root, b"sub", 0o755), "mkdir");
    let subsub = ok(mkdir(&client, sub, b"subsub", 0o755), "mkdir");
    assert_eq!(lookup(&client, subsub, b".."), Ok(sub));
    assert_eq!(lookup(&client, sub, b".."), Ok(root));
    assert_eq!(lookup(&client, sub, b"."), Ok(sub));
}

#[test]
fn lookup_errors_carry_the_directory_attributes() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let reply = client.nfs(&Nfs3Call::Lookup(LookupArgs { what: DirOpArgs3 { dir: root, name: b"nope" } }));
    let res = expect_reply!(nfs_reply(Nfs3Proc::Lookup, &reply), Lookup);
    let Nfs3Result::Fail(NfsErr3::NoEnt, fail) = res else { panic!("expected NOENT: {res:?}") };
    assert!(fail.dir_attributes.is_some());
    let file = ok(create(&client, root, b"f", 0o644), "create");
    assert_eq!(lookup(&client, file, b"x"), Err(NfsErr3::NotDir));
}

#[test]
fn bad_names_are_refused_before_the_backend_sees_them() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let long = [b'n'; 256];
    assert_eq!(lookup(&client, root, &long), Err(NfsErr3::NameTooLong));
    assert_eq!(create(&client, root, &long, 0o644), Err(NfsErr3::NameTooLong));
    assert!(create(&client, root, &long[..255], 0o644).is_ok(), "255 bytes is fine");
    for bad in [&b""[..], b"a/b", b"nul\0"] {
        assert_eq!(lookup(&client, root, bad), Err(NfsErr3::Acces), "{bad:?}");
        assert_eq!(create(&client, root, bad, 0o644), Err(NfsErr3::Acces), "{bad:?}");
    }
    assert_eq!(create(&client, root, b".", 0o644), Err(NfsErr3::Exist));
    assert_eq!(mkdir(&client, root, b"..", 0o755), Err(NfsErr3::Exist));
    assert_eq!(remove(&client, root, b"."), NfsStat3::Inval);
    assert_eq!(rmdir(&client, root, b".."), NfsStat3::Inval);
}

#[test]
fn mkdir_and_rmdir_with_notempty_in_between() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let dir = ok(mkdir(&client, root, b"d", 0o750), "mkdir");
    let attrs = ok(getattr(&client, dir), "getattr");
    assert_eq!((attrs.ftype, attrs.mode & 0o7777, attrs.uid), (Ftype3::Dir, 0o750, 1000));
    assert_eq!(mkdir(&client, root, b"d", 0o750), Err(NfsErr3::Exist));
    ok(create(&client, dir, b"f", 0o644), "create");
    assert_eq!(rmdir(&client, root, b"d"), NfsStat3::NotEmpty);
    assert_eq!(remove(&client, dir, b"f"), NfsStat3::Ok);
    assert_eq!(rmdir(&client, root, b"d"), NfsStat3::Ok);
    assert_eq!(lookup(&client, root, b"d"), Err(NfsErr3::NoEnt));
    assert_eq!(remove(&client, root, b"d"), NfsStat3::NoEnt);
}

#[test]
fn rename_moves_across_directories_with_wcc_for_both() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let a = ok(mkdir(&client, root, b"a", 0o755), "mkdir");
    let b = ok(mkdir(&client, root, b"b", 0o755), "mkdir");
    let file = ok(create(&client, a, b"f", 0o644), "create");
    let res = rename(&client, (a, b"f"), (b, b"g"));
    let Nfs3Result::Ok(done) = res else { panic!("rename failed: {res:?}") };
    assert!(done.fromdir_wcc.before.is_some() && done.fromdir_wcc.after.is_some());
    assert!(done.todir_wcc.before.is_some() && done.todir_wcc.after.is_some());
    assert_eq!(lookup(&client, b, b"g"), Ok(file), "the handle survives the rename");
    assert_eq!(lookup(&client, a, b"f"), Err(NfsErr3::NoEnt));
    assert_eq!(rename(&client, (a, b"missing"), (b, b"x")).status(), NfsStat3::NoEnt);
}

#[test]
fn rename_and_link_across_exports_are_xdev() {
    let server = server_with(vec![export("/a", mem()), export("/b", mem())]);
    let client = Client::new(&server);
    let (a, b) = (server.root_handle("/a").unwrap_or_default(), server.root_handle("/b").unwrap_or_default());
    let file = ok(create(&client, a, b"f", 0o644), "create");
    assert_eq!(rename(&client, (a, b"f"), (b, b"f")).status(), NfsStat3::Xdev);
    assert_eq!(link(&client, file, b, b"l").status(), NfsStat3::Xdev);
}

#[test]
fn link_adds_a_name_and_counts_it_but_never_for_a_directory() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let file = ok(create(&client, root, b"f", 0o644), "create");
    let res = link(&client, file, root, b"hard");
    let Nfs3Result::Ok(done) = res else { panic!("link failed: {res:?}") };
    assert_eq!(done.file_attributes.map(|a| a.nlink), Some(2));
    assert!(done.linkdir_wcc.before.is_some());
    assert_eq!(lookup(&client, root, b"hard"), Ok(file));
    assert_eq!(link(&client, root, root, b"dirlink").status(), NfsStat3::Perm);
    assert_eq!(link(&client, file, root, b"hard").status(), NfsStat3::Exist);
}

#[test]
fn symlink_stores_the_target_that_readlink_returns() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let link = ok(symlink(&client, root, b"ln", b"../../etc/passwd"), "symlink");
    let attrs = ok(getattr(&client, link), "getattr");
    assert_eq!((attrs.ftype, attrs.mode & 0o777), (Ftype3::Lnk, 0o777));
    let reply = client.nfs(&Nfs3Call::Readlink(ReadlinkArgs { symlink: link }));
    let res = expect_reply!(nfs_reply(Nfs3Proc::Readlink, &reply), Readlink);
    assert_eq!(res.ok().map(|r| r.data), Some(&b"../../etc/passwd"[..]));
    let file = ok(create(&client, root, b"f", 0o644), "create");
    assert_eq!(client.status(&Nfs3Call::Readlink(ReadlinkArgs { symlink: file })), NfsStat3::Inval);
    assert_eq!(symlink(&client, root, b"empty", b""), Err(NfsErr3::Inval));
    assert_eq!(symlink(&client, root, b"long", &[b'x'; 1025]), Err(NfsErr3::NameTooLong));
}

#[test]
fn mknod_makes_fifos_devices_for_root_only_and_refuses_regular_types() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    assert_eq!(mknod(&client, root, b"fifo", MknodData3::Fifo(sattr_mode(0o600))), NfsStat3::Ok);
    let fifo = ok(lookup(&client, root, b"fifo"), "lookup");
    assert_eq!(ok(getattr(&client, fifo), "getattr").ftype, Ftype3::Fifo);
    let dev = DeviceData3 { dev_attributes: sattr_mode(0o600), spec: SpecData3 { specdata1: 1, specdata2: 3 } };
    assert_eq!(mknod(&client, root, b"null", MknodData3::Chr(dev)), NfsStat3::Perm);
    assert_eq!(mknod(&Client::root(&server), root, b"null", MknodData3::Chr(dev)), NfsStat3::Ok);
    let null = ok(lookup(&client, root, b"null"), "lookup");
    assert_eq!(ok(getattr(&client, null), "getattr").rdev, dev.spec);
    assert_eq!(mknod(&client, root, b"reg", MknodData3::Reg), NfsStat3::BadType);
    assert_eq!(mknod(&client, root, b"dir", MknodData3::Dir), NfsStat3::BadType);
}

#[test]
fn changing_a_directory_needs_write_and_search_permission_on_it() {
    let server = server();
    let owner = Client::new(&server);
    let root = root_of(&server);
    let dir = ok(mkdir(&owner, root, b"mine", 0o755), "mkdir");
    ok(create(&owner, dir, b"f", 0o666), "create");
    let other = Client::new(&server).user(2000, 2000);
    assert_eq!(create(&other, dir, b"g", 0o644), Err(NfsErr3::Acces));
    assert_eq!(remove(&other, dir, b"f"), NfsStat3::Acces);
    assert_eq!(rename(&other, (dir, b"f"), (root, b"stolen")).status(), NfsStat3::Acces);
    assert!(write(&other, ok(lookup(&other, dir, b"f"), "lookup"), 0, b"x").is_ok(), "the file itself is 0666");
    let locked = ok(mkdir(&owner, root, b"locked", 0o700), "mkdir");
    assert_eq!(lookup(&other, locked, b"x"), Err(NfsErr3::Acces), "searching needs execute permission");
}

#[test]
fn a_sticky_directory_keeps_others_from_removing_my_files() {
    let server = server();
    let root = root_of(&server);
    let admin = Client::root(&server);
    let tmp = ok(mkdir(&admin, root, b"tmp", 0o1777), "mkdir");
    let me = Client::new(&server);
    ok(create(&me, tmp, b"mine", 0o644), "create");
    let other = Client::new(&server).user(2000, 2000);
    assert_eq!(remove(&other, tmp, b"mine"), NfsStat3::Acces);
    assert_eq!(rename(&other, (tmp, b"mine"), (tmp, b"theirs")).status(), NfsStat3::Acces);
    assert_eq!(remove(&me, tmp, b"mine"), NfsStat3::Ok);
}
