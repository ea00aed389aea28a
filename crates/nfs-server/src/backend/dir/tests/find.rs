//! Finding files the identity map does not know (`dir/find.rs`): after a restart (a new backend on the same
//! directory), removed and recycled inodes, the bounds on searching, and the set-id rule of WRITE.

use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

use nfs3_proto::{Ftype3, NfsErr3, StableHow};

use super::*;
use crate::backend::Caller;

#[test]
fn a_new_backend_finds_files_it_never_saw() {
    let s = Scratch::new("find-restart");
    let (deep, d) = {
        let b = s.backend();
        let d = new_dir(&b, b.root(), "d");
        let e = new_dir(&b, d, "e");
        let deep = new_file(&b, e, "deep");
        write_all(&b, deep, 0, b"kept");
        (deep, d)
    };
    let b = s.backend();
    assert_eq!(b.getattr(deep).map(|a| a.size), Ok(4), "found by searching the export");
    assert_eq!(b.finder.walks(), 1);
    assert_eq!(read_all(&b, deep, 0, 10).0, b"kept");
    assert_eq!(b.getattr(d).map(|a| a.ftype), Ok(Ftype3::Dir), "its directory was learned on the way");
    assert_eq!(b.finder.walks(), 1);
}

#[test]
fn a_removed_file_is_stale_after_a_restart_even_when_its_inode_number_is_reused() {
    let s = Scratch::new("find-reuse");
    let old = {
        let b = s.backend();
        new_file(&b, b.root(), "old")
    };
    std::fs::remove_file(s.export().join("old")).expect("remove behind the server's back");
    // ext4 hands a freed inode number out again soon: try to make a new file with the old number.
    let mut reused = false;
    for i in 0..64 {
        let path = s.export().join(format!("new{i}"));
        std::fs::write(&path, b"x").expect("create");
        if std::fs::metadata(&path).map(|m| m.ino()).ok() == Some(old.id) {
            reused = true;
            break;
        }
    }
    let b = s.backend();
    assert_eq!(b.getattr(old), Err(NfsErr3::Stale), "inode number reused: {reused}");
    assert_eq!(b.write(old, 0, b"x", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::Stale));
}

#[test]
fn missing_files_are_remembered_and_searches_pause_after_a_miss() {
    let s = Scratch::new("find-bounds");
    let (gone, other, later) = {
        let b = s.backend();
        let gone = new_file(&b, b.root(), "gone");
        let other = new_file(&b, b.root(), "other");
        let d = new_dir(&b, b.root(), "d");
        (gone, other, new_file(&b, d, "later"))
    };
    std::fs::remove_file(s.export().join("gone")).expect("remove");
    let b = s.backend();
    assert_eq!(b.getattr(gone), Err(NfsErr3::Stale));
    assert_eq!(b.finder.walks(), 1);
    for _ in 0..100 {
        assert_eq!(b.getattr(gone), Err(NfsErr3::Stale), "remembered as missing");
    }
    assert_eq!(b.finder.walks(), 1, "no further walk for the same missing file");
    // Just after a miss, an unknown file waits (clients retry NFS3ERR_JUKEBOX), without a walk.
    assert_eq!(b.getattr(other), Err(NfsErr3::Jukebox));
    assert_eq!(b.finder.walks(), 1);
    let deadline = Instant::now() + Duration::from_secs(30);
    let found = loop {
        match b.getattr(other) {
            Err(NfsErr3::Jukebox) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(100)),
            other => break other,
        }
    };
    assert_eq!(found.map(|a| a.ftype), Ok(Ftype3::Reg), "found once the pause is over");
    assert_eq!(b.finder.walks(), 2);
    // A walk that finds its file starts no pause: the next unknown file is searched for at once.
    assert_eq!(b.getattr(later).map(|a| a.ftype), Ok(Ftype3::Reg));
    assert_eq!(b.finder.walks(), 3);
}

#[test]
fn files_removed_through_the_server_are_stale_without_a_walk() {
    let s = Scratch::new("find-removed");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    b.remove(b.root(), b"f", false).expect("remove");
    b.drop_cached_fds();
    assert_eq!(b.getattr(f), Err(NfsErr3::Stale));
    assert_eq!(b.finder.walks(), 0);
}

#[test]
fn a_search_reads_at_most_its_budget_of_entries() {
    let s = Scratch::new("find-budget");
    let target = {
        let b = s.backend();
        for i in 0..50 {
            new_file(&b, b.root(), &format!("a{i:02}"));
        }
        let z = new_dir(&b, b.root(), "z");
        new_file(&b, z, "target")
    };
    let b = s.backend_with(DirLimits { max_search_entries: 10, ..DirLimits::default() });
    assert_eq!(b.getattr(target), Err(NfsErr3::Stale), "beyond the budget");
    let b = s.backend();
    assert_eq!(b.getattr(target).map(|a| a.ftype), Ok(Ftype3::Reg), "within the default budget");
}

#[test]
fn forged_file_ids_are_refused_before_any_walk_when_their_type_is_unknown() {
    let s = Scratch::new("find-type");
    let b = s.backend();
    assert_eq!(b.getattr(FileId { id: 12345, generation: 0xf << 60 }), Err(NfsErr3::Stale));
    assert_eq!(b.finder.walks(), 0);
}

#[test]
fn handles_identity_is_the_same_for_every_backend_on_a_directory() {
    let s = Scratch::new("find-identity");
    let (a, b) = (s.backend(), s.backend());
    assert_eq!(a.persistence(), b.persistence());
    assert_eq!(a.root(), b.root());
    assert_ne!(a.write_verifier(), b.write_verifier(), "the write verifier changes on every start");
}

#[test]
fn an_unprivileged_write_clears_set_id_bits() {
    let s = Scratch::new("setid");
    let b = s.backend();
    for (mode, privileged, expect) in
        [(0o6755, false, 0o0755), (0o6745, false, 0o2745), (0o4644, false, 0o0644), (0o6755, true, 0o6755)]
    {
        let f = new_file(&b, b.root(), &format!("f{mode:o}{privileged}"));
        b.setattr(f, &mode_bits(mode)).expect("chmod");
        let caller = if privileged { Caller::Privileged } else { Caller::Unprivileged };
        b.write(f, 0, &[1; 4096], StableHow::Unstable, caller).expect("write");
        assert_eq!(b.getattr(f).map(|a| a.mode), Ok(expect), "{mode:o} privileged {privileged}");
        let on_disk = std::fs::metadata(s.export().join(format!("f{mode:o}{privileged}"))).map(|m| m.mode() & 0o7777);
        assert_eq!(on_disk.ok(), Some(expect));
    }
}

fn mode_bits(bits: u32) -> nfs3_proto::Sattr3 {
    mode(bits)
}
