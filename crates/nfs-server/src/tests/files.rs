//! Procedures on files: GETATTR, SETATTR, ACCESS, READ, WRITE, COMMIT, CREATE, FSSTAT, FSINFO,
//! PATHCONF.

use super::*;

fn setattr(c: &Client<'_>, object: FileHandle3, new_attributes: Sattr3, guard: Option<NfsTime3>) -> SetattrRes {
    let reply = c.nfs(&Nfs3Call::Setattr(SetattrArgs { object, new_attributes, guard }));
    expect_reply!(nfs_reply(Nfs3Proc::Setattr, &reply), Setattr)
}

fn access(c: &Client<'_>, object: FileHandle3, access: u32) -> Result<u32, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Access(AccessArgs { object, access }));
    expect_reply!(nfs_reply(Nfs3Proc::Access, &reply), Access).into_result().map(|ok| ok.access).map_err(|(e, _)| e)
}

fn create_how(c: &Client<'_>, dir: FileHandle3, name: &[u8], how: CreateHow3) -> CreateRes {
    let reply = c.nfs(&Nfs3Call::Create(CreateArgs { where_: DirOpArgs3 { dir, name }, how }));
    expect_reply!(nfs_reply(Nfs3Proc::Create, &reply), Create)
}

#[test]
fn getattr_returns_the_root_directory() {
    let server = server();
    let attrs = ok(getattr(&Client::new(&server), root_of(&server)), "getattr");
    assert_eq!(attrs.ftype, Ftype3::Dir);
}

#[test]
fn create_makes_a_file_owned_by_the_caller_with_wcc_on_the_directory() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let before = ok(getattr(&client, root), "getattr");
    let res = create_how(&client, root, b"new", CreateHow3::Guarded(sattr_mode(0o640)));
    let Nfs3Result::Ok(ok_res) = res else { panic!("create failed: {res:?}") };
    let attrs = ok_res.obj_attributes.unwrap_or_else(|| panic!("no attributes"));
    assert_eq!((attrs.ftype, attrs.mode & 0o7777, attrs.uid, attrs.gid), (Ftype3::Reg, 0o640, 1000, 1000));
    let wcc = ok_res.dir_wcc;
    assert_eq!(wcc.before.map(|b| b.mtime), Some(before.mtime), "pre-op attributes are from before the change");
    assert!(wcc.after.is_some_and(|a| a.mtime >= before.mtime));
}

#[test]
fn guarded_create_of_an_existing_name_is_exist_and_unchecked_reuses_and_truncates() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let file = ok(create(&client, root, b"f", 0o600), "create");
    ok(write(&client, file, 0, b"0123456789"), "write");
    assert_eq!(create(&client, root, b"f", 0o600), Err(NfsErr3::Exist));
    let truncate = Sattr3 { size: Some(4), mode: Some(0o777), ..Sattr3::default() };
    let res = create_how(&client, root, b"f", CreateHow3::Unchecked(truncate));
    let attrs = res.ok().and_then(|r| r.obj_attributes).unwrap_or_else(|| panic!("unchecked create failed"));
    assert_eq!((attrs.size, attrs.mode & 0o777), (4, 0o600), "only the size applies to an existing file");
    ok(mkdir(&client, root, b"d", 0o755), "mkdir");
    let res = create_how(&client, root, b"d", CreateHow3::Unchecked(Sattr3::default()));
    assert_eq!(res.status(), NfsStat3::Exist, "UNCHECKED over a directory");
}

#[test]
fn exclusive_create_succeeds_again_for_the_same_verifier_only() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let verf = CreateVerf3(*b"verifier");
    let first = create_how(&client, root, b"x", CreateHow3::Exclusive(verf));
    let again = create_how(&client, root, b"x", CreateHow3::Exclusive(verf));
    assert!(first.is_ok() && again.is_ok(), "{first:?} / {again:?}");
    assert_eq!(first.ok().map(|r| r.obj), again.ok().map(|r| r.obj));
    let other = create_how(&client, root, b"x", CreateHow3::Exclusive(CreateVerf3(*b"another!")));
    assert_eq!(other.status(), NfsStat3::Exist);
}

#[test]
fn write_then_read_returns_the_data_with_eof_and_the_backend_verifier() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    let done = ok(write(&client, file, 0, b"hello, world"), "write");
    assert_eq!((done.count, done.committed), (12, StableHow::Unstable));
    let after = done.file_wcc.after.unwrap_or_else(|| panic!("no post-op attributes"));
    assert_eq!(after.size, 12);
    assert_eq!(done.file_wcc.before.map(|b| b.size), Some(0));
    assert_eq!(read(&client, file, 0, 5), Ok((b"hello".to_vec(), false)));
    assert_eq!(read(&client, file, 7, 100), Ok((b"world".to_vec(), true)));
    assert_eq!(read(&client, file, 100, 10), Ok((Vec::new(), true)));

    let reply = client.nfs(&Nfs3Call::Commit(CommitArgs { file, offset: 0, count: 0 }));
    let commit = expect_reply!(nfs_reply(Nfs3Proc::Commit, &reply), Commit);
    assert_eq!(commit.ok().map(|c| c.verf), Some(done.verf), "COMMIT returns the WRITE verifier");
}

#[test]
fn read_data_is_a_separate_payload_right_after_its_length_word() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    ok(write(&client, file, 0, b"abcde"), "write");
    let record = client.record(5, NFS_PROGRAM, 3, 6, &encode(&Nfs3Call::Read(ReadArgs { file, offset: 0, count: 5 })));
    let reply = server.handle(&record, &client.conn).unwrap_or_default();
    let payload = reply.payloads().get(0).cloned().unwrap_or_default();
    assert_eq!(reply.payloads().len(), 1);
    assert_eq!(payload.data.to_vec(), b"abcde");
    assert_eq!(payload.at, reply.inline.len(), "READ3resok ends with the data");
    let len_word = reply.inline.get(payload.at - 4..payload.at);
    assert_eq!(len_word, Some(&5u32.to_be_bytes()[..]));
    assert_eq!(reply.len() % 4, 0, "padding is counted");
}

#[test]
fn reads_and_writes_are_capped_at_max_io_size() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"big", 0o644), "create");
    let data = vec![7u8; MAX_IO as usize + 100];
    let done = ok(write(&client, file, 0, &data), "write");
    assert_eq!(done.count, MAX_IO, "RFC 1813 §3.3.7: a short write of wtmax bytes");
    let (got, eof) = ok(read(&client, file, 0, u32::MAX), "read");
    assert_eq!((got.len(), eof), (MAX_IO as usize, true));
}

#[test]
fn write_beyond_4_gib_makes_a_sparse_large_file() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"sparse", 0o644), "create");
    ok(write(&client, file, 5 << 30, b"end"), "write");
    assert_eq!(ok(getattr(&client, file), "getattr").size, (5 << 30) + 3);
    assert_eq!(read(&client, file, 1 << 30, 4), Ok((vec![0; 4], false)), "holes read as zeros");
}

#[test]
fn read_and_write_of_a_directory_are_isdir() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    assert_eq!(read(&client, root, 0, 10).err(), Some(NfsErr3::IsDir));
    assert_eq!(write(&client, root, 0, b"x").err(), Some(NfsErr3::IsDir));
}

#[test]
fn reading_needs_permission_but_the_owner_always_may() {
    let server = server();
    let owner = Client::new(&server);
    let file = ok(create(&owner, root_of(&server), b"private", 0o600), "create");
    ok(write(&owner, file, 0, b"secret"), "write");
    let other = Client::new(&server).user(2000, 2000);
    assert_eq!(read(&other, file, 0, 10).err(), Some(NfsErr3::Acces));
    assert_eq!(write(&other, file, 0, b"x").err(), Some(NfsErr3::Acces));
    let chmod = setattr(&owner, file, sattr_mode(0o000), None);
    assert!(chmod.is_ok());
    assert!(read(&owner, file, 0, 10).is_ok(), "owner override");
    assert!(read(&Client::root(&server), file, 0, 10).is_ok(), "root reads anything");
}

#[test]
fn setattr_changes_mode_and_size_and_reports_wcc() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    ok(write(&client, file, 0, b"0123456789"), "write");
    let res = setattr(&client, file, Sattr3 { mode: Some(0o600), size: Some(3), ..Sattr3::default() }, None);
    let wcc = res.ok().map(|r| r.obj_wcc).unwrap_or_else(|| panic!("setattr failed: {res:?}"));
    assert_eq!(wcc.before.map(|b| b.size), Some(10));
    let after = wcc.after.unwrap_or_else(|| panic!("no post-op attributes"));
    assert_eq!((after.size, after.mode & 0o7777), (3, 0o600));
}

#[test]
fn setattr_with_a_stale_ctime_guard_is_not_sync_and_changes_nothing() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    let ctime = ok(getattr(&client, file), "getattr").ctime;
    let stale = NfsTime3 { seconds: ctime.seconds.wrapping_sub(1), nseconds: 0 };
    let res = setattr(&client, file, sattr_mode(0o600), Some(stale));
    assert_eq!(res.status(), NfsStat3::NotSync);
    let Nfs3Result::Fail(_, fail) = res else { panic!("not a failure") };
    assert!(fail.obj_wcc.before.is_some() && fail.obj_wcc.after.is_some(), "NOT_SYNC carries wcc_data");
    assert_eq!(ok(getattr(&client, file), "getattr").mode & 0o7777, 0o644);
    assert!(setattr(&client, file, sattr_mode(0o600), Some(ctime)).is_ok(), "a matching guard passes");
}

#[test]
fn only_the_owner_or_root_may_chmod_and_only_root_may_chown() {
    let server = server();
    let owner = Client::new(&server);
    let file = ok(create(&owner, root_of(&server), b"f", 0o666), "create");
    let other = Client::new(&server).user(2000, 2000);
    assert_eq!(setattr(&other, file, sattr_mode(0o777), None).status(), NfsStat3::Perm);
    let chown = Sattr3 { uid: Some(2000), ..Sattr3::default() };
    assert_eq!(setattr(&owner, file, chown, None).status(), NfsStat3::Perm);
    assert!(setattr(&Client::root(&server), file, chown, None).is_ok());
    assert_eq!(ok(getattr(&owner, file), "getattr").uid, 2000);
    let truncate = Sattr3 { size: Some(0), ..Sattr3::default() };
    assert!(setattr(&owner, file, truncate, None).is_ok(), "0666: anyone may truncate");
}

#[test]
fn access_reports_the_requested_bits_the_caller_holds() {
    let server = server();
    let owner = Client::new(&server);
    let root = root_of(&server);
    let file = ok(create(&owner, root, b"f", 0o640), "create");
    let all = ACCESS3_READ | ACCESS3_LOOKUP | ACCESS3_MODIFY | ACCESS3_EXTEND | ACCESS3_DELETE | ACCESS3_EXECUTE;
    assert_eq!(access(&owner, file, all), Ok(ACCESS3_READ | ACCESS3_MODIFY | ACCESS3_EXTEND));
    let mut group = Client::new(&server).user(2000, 3000);
    group.gids = vec![1000];
    assert_eq!(access(&group, file, all), Ok(ACCESS3_READ));
    assert_eq!(access(&Client::new(&server).user(2000, 2000), file, all), Ok(0));
    assert_eq!(access(&Client::root(&server), file, all), Ok(ACCESS3_READ | ACCESS3_MODIFY | ACCESS3_EXTEND));
    let dir_bits = access(&owner, root, all);
    assert_eq!(dir_bits, Ok(ACCESS3_READ | ACCESS3_LOOKUP | ACCESS3_MODIFY | ACCESS3_EXTEND | ACCESS3_DELETE));
}

#[test]
fn commit_past_two_to_the_64_is_inval() {
    let server = server();
    let client = Client::new(&server);
    let file = ok(create(&client, root_of(&server), b"f", 0o644), "create");
    let status = client.status(&Nfs3Call::Commit(CommitArgs { file, offset: u64::MAX, count: 2 }));
    assert_eq!(status, NfsStat3::Inval);
}

#[test]
fn fsinfo_offers_max_io_size_and_the_rfc_properties() {
    let server = server();
    let client = Client::new(&server);
    let reply = client.nfs(&Nfs3Call::Fsinfo(FsinfoArgs { fsroot: root_of(&server) }));
    let info = expect_reply!(nfs_reply(Nfs3Proc::Fsinfo, &reply), Fsinfo).ok().copied();
    let info = info.unwrap_or_else(|| panic!("FSINFO failed"));
    assert_eq!((info.rtmax, info.wtmax, info.rtpref, info.wtpref), (MAX_IO, MAX_IO, MAX_IO, MAX_IO));
    assert_eq!(info.properties, FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME);
    assert!(info.maxfilesize > 1 << 40);
    assert!(info.dtpref > 0 && info.obj_attributes.is_some());
}

#[test]
fn fsstat_reports_space_and_pathconf_posix_limits() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let reply = client.nfs(&Nfs3Call::Fsstat(FsstatArgs { fsroot: root }));
    let stat = expect_reply!(nfs_reply(Nfs3Proc::Fsstat, &reply), Fsstat).ok().copied();
    let stat = stat.unwrap_or_else(|| panic!("FSSTAT failed"));
    assert_eq!(stat.tbytes, 64 << 20);
    assert!(stat.fbytes <= stat.tbytes && stat.afiles > 0);
    let reply = client.nfs(&Nfs3Call::Pathconf(PathconfArgs { object: root }));
    let conf = expect_reply!(nfs_reply(Nfs3Proc::Pathconf, &reply), Pathconf).ok().copied();
    let conf = conf.unwrap_or_else(|| panic!("PATHCONF failed"));
    assert_eq!(conf.name_max, 255);
    assert!(conf.no_trunc && conf.chown_restricted && conf.case_preserving && !conf.case_insensitive);
}
