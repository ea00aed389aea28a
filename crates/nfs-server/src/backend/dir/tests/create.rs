//! CREATE (UNCHECKED, GUARDED, EXCLUSIVE), MKDIR, SYMLINK and MKNOD.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};

use nfs3_proto::{CreateVerf3, Ftype3, NfsErr3, Sattr3, SetTime3, SpecData3};

use super::{mode, new_file, write_all, Scratch};
use crate::backend::{Backend, CreateMode, NewNode};

const PLAIN: NewNode<'static> = NewNode::File { exclusive: None };

#[test]
fn guarded_create_refuses_an_existing_name() {
    let s = Scratch::new("guarded");
    let b = s.backend();
    new_file(&b, b.root(), "f");
    assert_eq!(b.create(b.root(), b"f", PLAIN, CreateMode::Guarded, &mode(0o600)), Err(NfsErr3::Exist));
}

#[test]
fn new_nodes_get_the_requested_mode_regardless_of_the_umask() {
    let s = Scratch::new("modes");
    let b = s.backend();
    let f = b.create(b.root(), b"f", PLAIN, CreateMode::Guarded, &mode(0o666)).expect("create");
    let d = b.create(b.root(), b"d", NewNode::Directory, CreateMode::Guarded, &mode(0o777)).expect("mkdir");
    assert_eq!(b.getattr(f).map(|a| a.mode), Ok(0o666));
    assert_eq!(b.getattr(d).map(|a| (a.mode, a.ftype)), Ok((0o777, Ftype3::Dir)));
    let meta = std::fs::metadata(s.export().join("f")).expect("metadata");
    assert_eq!(meta.permissions().mode() & 0o7777, 0o666);
    let sized = Sattr3 { size: Some(1000), ..mode(0o640) };
    let g = b.create(b.root(), b"g", PLAIN, CreateMode::Guarded, &sized).expect("create sized");
    assert_eq!(b.getattr(g).map(|a| (a.size, a.mode)), Ok((1000, 0o640)));
}

#[test]
fn unchecked_create_reuses_a_regular_file_applying_only_the_size() {
    let s = Scratch::new("unchecked");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"0123456789");
    let again = b.create(b.root(), b"f", PLAIN, CreateMode::Unchecked, &mode(0o600)).expect("reuse");
    assert_eq!(again, f);
    assert_eq!(b.getattr(f).map(|a| (a.size, a.mode)), Ok((10, 0o644)), "open(O_CREAT) keeps mode and data");
    let truncate = Sattr3 { size: Some(0), ..mode(0o600) };
    assert_eq!(b.create(b.root(), b"f", PLAIN, CreateMode::Unchecked, &truncate), Ok(f));
    assert_eq!(b.getattr(f).map(|a| a.size), Ok(0));
    let fresh = b.create(b.root(), b"new", PLAIN, CreateMode::Unchecked, &mode(0o600)).expect("create");
    assert_eq!(b.getattr(fresh).map(|a| a.mode), Ok(0o600));
    b.create(b.root(), b"d", NewNode::Directory, CreateMode::Guarded, &mode(0o755)).expect("mkdir");
    assert_eq!(b.create(b.root(), b"d", PLAIN, CreateMode::Unchecked, &mode(0o600)), Err(NfsErr3::Exist));
}

#[test]
fn exclusive_create_stores_the_verifier_in_the_times_and_recognises_a_retry() {
    let s = Scratch::new("exclusive");
    let b = s.backend();
    let verf = CreateVerf3([0x81, 2, 3, 4, 5, 6, 7, 8]);
    let node = NewNode::File { exclusive: Some(verf) };
    let f = b.create(b.root(), b"x", node, CreateMode::Exclusive, &Sattr3::default()).expect("create");
    let attrs = b.getattr(f).expect("getattr");
    let expect_mtime = u32::from_ne_bytes([0x81, 2, 3, 4]) & 0x7fff_ffff;
    let expect_atime = u32::from_ne_bytes([5, 6, 7, 8]) & 0x7fff_ffff;
    assert_eq!((attrs.mtime.seconds, attrs.mtime.nseconds), (expect_mtime, 0), "as knfsd stores it");
    assert_eq!((attrs.atime.seconds, attrs.atime.nseconds), (expect_atime, 0));
    assert_eq!(b.create(b.root(), b"x", node, CreateMode::Exclusive, &Sattr3::default()), Ok(f), "a retry");
    let other = NewNode::File { exclusive: Some(CreateVerf3([9; 8])) };
    assert_eq!(b.create(b.root(), b"x", other, CreateMode::Exclusive, &Sattr3::default()), Err(NfsErr3::Exist));
    // Once the client has set the real times (or written data), the verifier no longer matches.
    let times = Sattr3 { mtime: SetTime3::SetToServerTime, atime: SetTime3::SetToServerTime, ..mode(0o644) };
    b.setattr(f, &times).expect("setattr");
    assert_eq!(b.create(b.root(), b"x", node, CreateMode::Exclusive, &Sattr3::default()), Err(NfsErr3::Exist));
    new_file(&b, b.root(), "plain");
    assert_eq!(b.create(b.root(), b"plain", node, CreateMode::Exclusive, &Sattr3::default()), Err(NfsErr3::Exist));
}

#[test]
fn mkdir_and_symlink_refuse_existing_names() {
    let s = Scratch::new("mkdir");
    let b = s.backend();
    new_file(&b, b.root(), "f");
    for how in [CreateMode::Guarded, CreateMode::Unchecked] {
        assert_eq!(b.create(b.root(), b"f", NewNode::Directory, how, &mode(0o755)), Err(NfsErr3::Exist));
        let link = NewNode::Symlink { target: b"t" };
        assert_eq!(b.create(b.root(), b"f", link, how, &Sattr3::default()), Err(NfsErr3::Exist));
    }
}

#[test]
fn symlinks_are_created_with_the_exact_target_and_times() {
    let s = Scratch::new("symlink");
    let b = s.backend();
    let when = nfs3_proto::NfsTime3 { seconds: 1_000_000_000, nseconds: 5 };
    let attrs = Sattr3 { mtime: SetTime3::SetToClientTime(when), ..mode(0o600) };
    let l = b.create(b.root(), b"l", NewNode::Symlink { target: b"/etc/passwd" }, CreateMode::Guarded, &attrs);
    let l = l.expect("symlink");
    let got = b.getattr(l).expect("getattr");
    assert_eq!(got.ftype, Ftype3::Lnk);
    assert_eq!(got.mtime, when);
    assert_eq!(std::fs::read_link(s.export().join("l")).expect("read_link").to_str(), Some("/etc/passwd"));
    let empty = b.create(b.root(), b"e", NewNode::Symlink { target: b"" }, CreateMode::Guarded, &attrs);
    assert!(empty.is_err());
    let nul = b.create(b.root(), b"n", NewNode::Symlink { target: b"a\0b" }, CreateMode::Guarded, &attrs);
    assert_eq!(nul, Err(NfsErr3::Inval));
}

#[test]
fn mknod_makes_fifos_sockets_and_devices_or_says_why_not() {
    let s = Scratch::new("mknod");
    let b = s.backend();
    let special = |name: &[u8], ftype, rdev| {
        b.create(b.root(), name, NewNode::Special { ftype, rdev }, CreateMode::Guarded, &mode(0o640))
    };
    let fifo = special(b"fifo", Ftype3::Fifo, SpecData3::default()).expect("fifo");
    assert_eq!(b.getattr(fifo).map(|a| (a.ftype, a.mode)), Ok((Ftype3::Fifo, 0o640)));
    assert!(std::fs::symlink_metadata(s.export().join("fifo")).expect("meta").file_type().is_fifo());
    let sock = special(b"sock", Ftype3::Sock, SpecData3::default()).expect("socket");
    assert_eq!(b.getattr(sock).map(|a| a.ftype), Ok(Ftype3::Sock));
    b.setattr(fifo, &mode(0o600)).expect("chmod a fifo through its O_PATH fd");
    assert_eq!(b.getattr(fifo).map(|a| a.mode), Ok(0o600));
    let rdev = SpecData3 { specdata1: 1, specdata2: 3 };
    match special(b"null", Ftype3::Chr, rdev) {
        Ok(dev) => {
            let attrs = b.getattr(dev).expect("getattr");
            assert_eq!((attrs.ftype, attrs.rdev), (Ftype3::Chr, rdev));
        }
        Err(e) => assert!(matches!(e, NfsErr3::Perm | NfsErr3::Acces), "unprivileged: {e:?}"),
    }
    match special(b"blk", Ftype3::Blk, SpecData3 { specdata1: 7, specdata2: 0 }) {
        Ok(dev) => assert_eq!(b.getattr(dev).map(|a| a.ftype), Ok(Ftype3::Blk)),
        Err(e) => assert!(matches!(e, NfsErr3::Perm | NfsErr3::Acces), "unprivileged: {e:?}"),
    }
    for ftype in [Ftype3::Reg, Ftype3::Dir, Ftype3::Lnk] {
        assert_eq!(special(b"bad", ftype, SpecData3::default()), Err(NfsErr3::BadType));
    }
    assert_eq!(special(b"fifo", Ftype3::Fifo, SpecData3::default()), Err(NfsErr3::Exist));
}
