//! LOOKUP, REMOVE, RMDIR, RENAME, LINK, READLINK, and what happens to handles afterwards.

use nfs3_proto::{Ftype3, NfsErr3};

use super::{is_stale, new_dir, new_file, read_all, write_all, Scratch};
use crate::backend::dir::DirLimits;
use crate::backend::{Backend, Caller, CreateMode, NewNode};

#[test]
fn lookup_finds_what_create_made_and_files_made_elsewhere() {
    let s = Scratch::new("lookup");
    std::fs::write(s.export().join("outside-made"), b"x").expect("write");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.lookup(b.root(), b"f"), Ok(f));
    let other = b.lookup(b.root(), b"outside-made").expect("lookup");
    assert_eq!(b.getattr(other).expect("getattr").size, 1);
    assert_eq!(b.lookup(b.root(), b"missing"), Err(NfsErr3::NoEnt));
    assert_eq!(b.lookup(f, b"x"), Err(NfsErr3::NotDir));
}

#[test]
fn handles_go_stale_after_remove() {
    let s = Scratch::new("stale");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    let d = new_dir(&b, b.root(), "d");
    b.remove(b.root(), b"f", false).expect("remove");
    b.remove(b.root(), b"d", true).expect("rmdir");
    assert!(is_stale(b.getattr(f)));
    assert!(is_stale(b.getattr(d)));
    assert!(is_stale(b.write(f, 0, b"x", nfs3_proto::StableHow::Unstable, Caller::Privileged)));
    assert!(is_stale(b.readdir(d, 0, 10)));
    assert_eq!(b.lookup(b.root(), b"f"), Err(NfsErr3::NoEnt));
}

#[test]
fn handles_go_stale_when_files_are_removed_behind_the_servers_back() {
    let s = Scratch::new("stale-external");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    std::fs::remove_file(s.export().join("f")).expect("rm");
    assert!(is_stale(b.getattr(f)), "a cached fd of an unlinked file is stale");
    let g = new_file(&b, b.root(), "g");
    b.drop_cached_fds();
    std::fs::remove_file(s.export().join("g")).expect("rm");
    assert!(is_stale(b.getattr(g)));
}

#[test]
fn a_recycled_inode_number_does_not_revive_an_old_handle() {
    let s = Scratch::new("reuse");
    let b = s.backend();
    let old = new_file(&b, b.root(), "f");
    b.remove(b.root(), b"f", false).expect("remove");
    let mut reused = false;
    for i in 0..64 {
        let name = format!("n{i}");
        let new = new_file(&b, b.root(), &name);
        assert_ne!(new, old);
        if new.id == old.id {
            reused = true;
            assert!(is_stale(b.getattr(old)), "same inode number, new generation");
            break;
        }
        b.remove(b.root(), name.as_bytes(), false).expect("remove");
    }
    assert!(is_stale(b.getattr(old)));
    let _ = reused; // whether the file system recycled the number quickly is its business
}

#[test]
fn remove_and_rmdir_check_the_kind_and_emptiness() {
    let s = Scratch::new("rmkinds");
    let b = s.backend();
    let d = new_dir(&b, b.root(), "d");
    new_file(&b, d, "inner");
    new_file(&b, b.root(), "f");
    assert_eq!(b.remove(b.root(), b"d", false), Err(NfsErr3::IsDir));
    assert_eq!(b.remove(b.root(), b"f", true), Err(NfsErr3::NotDir));
    assert_eq!(b.remove(b.root(), b"d", true), Err(NfsErr3::NotEmpty));
    assert_eq!(b.remove(b.root(), b"nothing", false), Err(NfsErr3::NoEnt));
    assert_eq!(b.getattr(d).map(|a| a.ftype), Ok(Ftype3::Dir));
}

#[test]
fn rename_across_directories_keeps_handles_valid() {
    let s = Scratch::new("rename");
    let b = s.backend();
    let (a, z) = (new_dir(&b, b.root(), "a"), new_dir(&b, b.root(), "z"));
    let f = new_file(&b, a, "f");
    write_all(&b, f, 0, b"payload");
    b.rename(a, b"f", z, b"g").expect("rename");
    assert_eq!(b.lookup(z, b"g"), Ok(f));
    assert_eq!(b.lookup(a, b"f"), Err(NfsErr3::NoEnt));
    b.drop_cached_fds();
    assert_eq!(read_all(&b, f, 0, 100).0, b"payload", "found again through its new name");
    // Moving a directory moves its subtree: children found through the moved directory.
    let inner = new_dir(&b, a, "inner");
    let deep = new_file(&b, inner, "deep");
    b.rename(b.root(), b"a", z, b"a2").expect("rename dir");
    b.drop_cached_fds();
    assert_eq!(b.getattr(deep).map(|x| x.ftype), Ok(Ftype3::Reg));
    assert_eq!(b.parent(inner), Ok(a));
    assert_eq!(b.parent(a), Ok(z));
    assert!(s.export().join("z/a2/inner/deep").exists());
}

#[test]
fn rename_over_a_file_makes_the_replaced_file_stale() {
    let s = Scratch::new("rename-over");
    let b = s.backend();
    let (x, y) = (new_file(&b, b.root(), "x"), new_file(&b, b.root(), "y"));
    b.rename(b.root(), b"x", b.root(), b"y").expect("rename");
    assert!(is_stale(b.getattr(y)));
    assert_eq!(b.lookup(b.root(), b"y"), Ok(x));
    let d = new_dir(&b, b.root(), "d");
    let e = new_dir(&b, b.root(), "e");
    new_file(&b, e, "keep");
    assert_eq!(b.rename(b.root(), b"d", b.root(), b"e"), Err(NfsErr3::NotEmpty));
    assert_eq!(b.rename(b.root(), b"d", b.root(), b"y"), Err(NfsErr3::NotDir));
    assert_eq!(b.rename(b.root(), b"y", b.root(), b"d"), Err(NfsErr3::IsDir));
    assert_eq!(b.rename(b.root(), b"d", d, b"into-itself"), Err(NfsErr3::Inval));
    assert_eq!(b.rename(b.root(), b"missing", b.root(), b"m"), Err(NfsErr3::NoEnt));
}

#[test]
fn hard_links_count_and_survive_removing_one_name() {
    let s = Scratch::new("links");
    let b = s.backend();
    let d = new_dir(&b, b.root(), "d");
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"shared");
    b.link(f, d, b"g").expect("link");
    b.link(f, b.root(), b"h").expect("link");
    assert_eq!(b.getattr(f).map(|a| a.nlink), Ok(3));
    assert_eq!(b.lookup(d, b"g"), Ok(f));
    assert_eq!(b.link(f, d, b"g"), Err(NfsErr3::Exist));
    assert_eq!(b.link(d, b.root(), b"dirlink"), Err(NfsErr3::IsDir));
    b.remove(b.root(), b"f", false).expect("remove");
    assert_eq!(b.getattr(f).map(|a| a.nlink), Ok(2));
    b.drop_cached_fds();
    assert_eq!(read_all(&b, f, 0, 100).0, b"shared", "found through a remaining name");
    b.remove(d, b"g", false).expect("remove");
    b.remove(b.root(), b"h", false).expect("remove");
    assert!(is_stale(b.getattr(f)));
}

#[test]
fn renaming_one_hard_link_onto_another_changes_nothing() {
    let s = Scratch::new("samefile");
    let b = s.backend();
    let f = new_file(&b, b.root(), "a");
    b.link(f, b.root(), b"b").expect("link");
    b.rename(b.root(), b"a", b.root(), b"b").expect("rename");
    assert_eq!(b.getattr(f).map(|a| a.nlink), Ok(2));
    assert_eq!(b.lookup(b.root(), b"a"), Ok(f));
}

#[test]
fn symlinks_read_back_their_target_bytes() {
    let s = Scratch::new("readlink");
    let b = s.backend();
    let target = b"some/where/\xff\xfe-not-utf8";
    let l = b.create(b.root(), b"l", NewNode::Symlink { target }, CreateMode::Guarded, &Default::default());
    let l = l.expect("symlink");
    assert_eq!(b.readlink(l).map(|t| t.data.to_vec()), Ok(target.to_vec()));
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.readlink(f).map(|_| ()), Err(NfsErr3::Inval));
    b.link(l, b.root(), b"l2").expect("hard link to a symlink");
    assert_eq!(b.lookup(b.root(), b"l2"), Ok(l));
}

#[test]
fn forgotten_files_are_found_again_by_a_search() {
    let s = Scratch::new("evict");
    let b = s.backend_with(DirLimits { max_known_files: 16, max_open_files: 16, ..DirLimits::default() });
    let first = new_file(&b, b.root(), "first");
    for i in 0..200 {
        new_file(&b, b.root(), &format!("f{i}"));
    }
    b.drop_cached_fds();
    assert!(b.map_read().len() <= 17);
    assert!(!b.map_read().contains(first), "evicted from the identity map");
    assert_eq!(b.getattr(first).map(|a| a.ftype), Ok(Ftype3::Reg), "found by searching the export");
    assert_eq!(b.finder.walks(), 1);
    assert_eq!(b.lookup(b.root(), b"first"), Ok(first));
}
