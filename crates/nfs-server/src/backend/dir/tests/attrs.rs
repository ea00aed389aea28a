//! GETATTR and SETATTR.

use std::os::unix::fs::MetadataExt;

use nfs3_proto::{Ftype3, NfsErr3, NfsTime3, Sattr3, SetTime3};

use super::{mode, new_dir, new_file, read_all, write_all, Scratch};
use crate::backend::Backend;

#[test]
fn attributes_come_from_the_file_with_nanosecond_times() {
    let s = Scratch::new("getattr");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"12345");
    let a = b.getattr(f).expect("getattr");
    let meta = std::fs::symlink_metadata(s.export().join("f")).expect("metadata");
    assert_eq!(a.ftype, Ftype3::Reg);
    assert_eq!(a.size, 5);
    assert_eq!(a.fileid, meta.ino());
    assert_eq!(a.fileid, f.id);
    assert_eq!(a.fsid, meta.dev());
    assert_eq!((a.uid, a.gid, a.nlink), (meta.uid(), meta.gid(), 1));
    assert_eq!(a.mode, meta.mode() & 0o7777);
    assert_eq!(a.mtime, NfsTime3 { seconds: meta.mtime() as u32, nseconds: meta.mtime_nsec() as u32 });
    assert_eq!(a.ctime, NfsTime3 { seconds: meta.ctime() as u32, nseconds: meta.ctime_nsec() as u32 });
    let root = b.getattr(b.root()).expect("root");
    assert_eq!(root.ftype, Ftype3::Dir);
    assert_eq!(root.fileid, b.root().id);
}

#[test]
fn setattr_changes_mode_size_and_times() {
    let s = Scratch::new("setattr");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"0123456789");
    let a = b.setattr(f, &Sattr3 { size: Some(4), ..mode(0o604) }).expect("setattr");
    assert_eq!((a.size, a.mode), (4, 0o604));
    assert_eq!(read_all(&b, f, 0, 100), (b"0123".to_vec(), true));
    let a = b.setattr(f, &Sattr3 { size: Some(1 << 20), ..Sattr3::default() }).expect("extend");
    assert_eq!(a.size, 1 << 20);
    assert_eq!(read_all(&b, f, 4, 4).0, vec![0; 4], "extended with zeros");
    let when = NfsTime3 { seconds: 1_234_567_890, nseconds: 987_654_321 };
    let times =
        Sattr3 { atime: SetTime3::SetToClientTime(when), mtime: SetTime3::SetToClientTime(when), ..Default::default() };
    let a = b.setattr(f, &times).expect("times");
    assert_eq!((a.atime, a.mtime), (when, when));
    let before = a.ctime;
    let now = Sattr3 { mtime: SetTime3::SetToServerTime, ..Default::default() };
    let a = b.setattr(f, &now).expect("server time");
    assert!(a.mtime.seconds > when.seconds, "mtime set to now");
    assert_eq!(a.atime, when, "atime untouched");
    assert!(a.ctime >= before);
    let bad = Sattr3 {
        atime: SetTime3::SetToClientTime(NfsTime3 { seconds: 1, nseconds: 1_000_000_000 }),
        ..Default::default()
    };
    assert_eq!(b.setattr(f, &bad).map(|_| ()), Err(NfsErr3::Inval));
    assert_eq!(b.setattr(f, &Sattr3::default()).map(|a| a.size), Ok(1 << 20), "nothing to change");
}

#[test]
fn setattr_changes_owners_when_the_server_may() {
    let s = Scratch::new("chown");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    let me = b.getattr(f).expect("getattr");
    let same = Sattr3 { uid: Some(me.uid), gid: Some(me.gid), ..Default::default() };
    assert_eq!(b.setattr(f, &same).map(|a| (a.uid, a.gid)), Ok((me.uid, me.gid)));
    let other = Sattr3 { uid: Some(4242), gid: Some(4343), ..Default::default() };
    match b.setattr(f, &other) {
        Ok(a) => assert_eq!((a.uid, a.gid), (4242, 4343)),
        Err(e) => assert_eq!(e, NfsErr3::Perm, "unprivileged servers cannot give files away"),
    }
    let minus_one = Sattr3 { uid: Some(u32::MAX), ..Default::default() };
    assert_eq!(b.setattr(f, &minus_one).map(|_| ()), Err(NfsErr3::Inval));
}

#[test]
fn setattr_size_is_refused_on_directories_and_links() {
    let s = Scratch::new("setattr-kinds");
    let b = s.backend();
    let d = new_dir(&b, b.root(), "d");
    assert_eq!(b.setattr(d, &Sattr3 { size: Some(0), ..Default::default() }).map(|_| ()), Err(NfsErr3::IsDir));
    assert_eq!(b.setattr(d, &mode(0o700)).map(|a| a.mode), Ok(0o700));
    std::os::unix::fs::symlink("target", s.export().join("l")).expect("symlink");
    let l = b.lookup(b.root(), b"l").expect("lookup");
    let when = NfsTime3 { seconds: 1_500_000_000, nseconds: 1 };
    let a = b.setattr(l, &Sattr3 { mtime: SetTime3::SetToClientTime(when), ..mode(0o600) }).expect("link times");
    assert_eq!((a.ftype, a.mtime), (Ftype3::Lnk, when), "the link itself changes, mode is ignored");
}
