//! The export can never be left: not through symbolic links (absolute or relative), not through "..", not
//! through names with '/', not through a directory swapped for a link behind the server's back.

use std::os::unix::fs::symlink;

use nfs3_proto::{Ftype3, NfsErr3, Sattr3, StableHow};

use super::{is_stale, new_dir, new_file, read_all, Scratch};
use crate::backend::{Backend, Caller, CreateMode, NewNode};

/// A scratch tree with a secret file outside the export and links pointing at it.
fn tree_with_links(tag: &str) -> Scratch {
    let s = Scratch::new(tag);
    std::fs::write(s.outside().join("secret"), b"outside the export").expect("write secret");
    std::fs::create_dir(s.outside().join("outdir")).expect("mkdir outdir");
    let export = s.export();
    std::fs::create_dir(export.join("sub")).expect("mkdir sub");
    symlink(s.outside().join("secret"), export.join("abs")).expect("symlink abs");
    symlink("../secret", export.join("rel")).expect("symlink rel");
    symlink("../../secret", export.join("sub/deeprel")).expect("symlink deeprel");
    symlink(s.outside().join("outdir"), export.join("absdir")).expect("symlink absdir");
    symlink("../outdir", export.join("reldir")).expect("symlink reldir");
    symlink(s.outside().join("newfile"), export.join("dangling")).expect("symlink dangling");
    s
}

#[test]
fn symlinks_pointing_outside_are_returned_by_readlink_never_followed() {
    let s = tree_with_links("links");
    let b = s.backend();
    let sub = b.lookup(b.root(), b"sub").expect("sub");
    for (dir, name, target) in [
        (b.root(), "abs", s.outside().join("secret").display().to_string()),
        (b.root(), "rel", "../secret".to_string()),
        (sub, "deeprel", "../../secret".to_string()),
    ] {
        let link = b.lookup(dir, name.as_bytes()).expect("lookup link");
        let attrs = b.getattr(link).expect("getattr link");
        assert_eq!(attrs.ftype, Ftype3::Lnk, "{name} is reported as the link itself");
        assert_eq!(attrs.size, target.len() as u64);
        assert_eq!(b.readlink(link).expect("readlink").data.to_vec(), target.as_bytes());
        assert_eq!(b.read(link, 0, 100).map(|_| ()), Err(NfsErr3::Inval), "reading {name} does not follow it");
        assert_eq!(b.write(link, 0, b"x", StableHow::FileSync, Caller::Privileged).map(|_| ()), Err(NfsErr3::Inval));
        let truncate = Sattr3 { size: Some(0), ..Sattr3::default() };
        assert_eq!(b.setattr(link, &truncate).map(|_| ()), Err(NfsErr3::Inval));
    }
    assert_eq!(std::fs::read(s.outside().join("secret")).expect("secret"), b"outside the export");
}

#[test]
fn symlinks_to_outside_directories_cannot_be_used_as_directories() {
    let s = tree_with_links("dirlinks");
    std::fs::write(s.outside().join("outdir/inner"), b"x").expect("write inner");
    let b = s.backend();
    for name in ["absdir", "reldir"] {
        let link = b.lookup(b.root(), name.as_bytes()).expect("lookup");
        assert_eq!(b.lookup(link, b"inner"), Err(NfsErr3::NotDir));
        assert_eq!(b.readdir(link, 0, 10).map(|_| ()), Err(NfsErr3::NotDir));
        let made =
            b.create(link, b"planted", NewNode::File { exclusive: None }, CreateMode::Guarded, &Sattr3::default());
        assert_eq!(made, Err(NfsErr3::NotDir));
        assert_eq!(b.remove(link, b"inner", false), Err(NfsErr3::NotDir));
        assert_eq!(b.parent(link), Err(NfsErr3::NotDir));
    }
    assert!(!s.outside().join("outdir/planted").exists());
    assert!(s.outside().join("outdir/inner").exists());
}

#[test]
fn creating_over_a_dangling_symlink_never_creates_the_target() {
    let s = tree_with_links("dangling");
    let b = s.backend();
    for how in [CreateMode::Unchecked, CreateMode::Guarded, CreateMode::Exclusive] {
        let node = NewNode::File { exclusive: Some(nfs3_proto::CreateVerf3([1; 8])) };
        assert_eq!(b.create(b.root(), b"dangling", node, how, &Sattr3::default()), Err(NfsErr3::Exist));
    }
    assert_eq!(
        b.create(b.root(), b"dangling", NewNode::Directory, CreateMode::Guarded, &Sattr3::default()),
        Err(NfsErr3::Exist)
    );
    assert!(!s.outside().join("newfile").exists());
}

#[test]
fn dot_dot_and_slashes_in_names_cannot_escape() {
    let s = tree_with_links("dotdot");
    let b = s.backend();
    let root = b.root();
    assert_eq!(b.lookup(root, b".."), Ok(root), "the root is its own parent");
    assert_eq!(b.lookup(root, b"."), Ok(root));
    assert_eq!(b.parent(root), Ok(root));
    for bad in [&b"../secret"[..], b"sub/../../secret", b"/etc/passwd", b"a\0b", b""] {
        assert_eq!(b.lookup(root, bad), Err(NfsErr3::Inval), "{:?}", String::from_utf8_lossy(bad));
        let made = b.create(root, bad, NewNode::Directory, CreateMode::Guarded, &Sattr3::default());
        assert_eq!(made, Err(NfsErr3::Inval));
    }
    let f = new_file(&b, root, "f");
    for name in [&b".."[..], b"."] {
        assert_eq!(b.remove(root, name, false), Err(NfsErr3::Inval));
        assert_eq!(b.remove(root, name, true), Err(NfsErr3::Inval));
        assert_eq!(b.rename(root, b"f", root, name), Err(NfsErr3::Inval));
        assert_eq!(b.rename(root, name, root, b"g"), Err(NfsErr3::Inval));
        assert_eq!(b.link(f, root, name), Err(NfsErr3::Exist));
        let made = b.create(root, name, NewNode::Symlink { target: b"/etc" }, CreateMode::Guarded, &Sattr3::default());
        assert_eq!(made, Err(NfsErr3::Exist));
    }
    assert_eq!(b.rename(root, b"f", root, b"../escaped"), Err(NfsErr3::Inval));
    assert!(!s.outside().join("escaped").exists());
    assert!(s.outside().join("secret").exists());
}

#[test]
fn parents_stop_at_the_root() {
    let s = Scratch::new("parents");
    let b = s.backend();
    let a = new_dir(&b, b.root(), "a");
    let c = new_dir(&b, a, "c");
    assert_eq!(b.parent(c), Ok(a));
    assert_eq!(b.lookup(c, b".."), Ok(a));
    assert_eq!(b.parent(a), Ok(b.root()));
    assert_eq!(b.parent(b.parent(a).expect("root")), Ok(b.root()));
    let f = new_file(&b, a, "f");
    assert_eq!(b.parent(f), Err(NfsErr3::NotDir));
}

#[test]
fn a_parent_never_learned_by_name_is_still_usable() {
    let s = Scratch::new("unlearned-parent");
    std::fs::create_dir_all(s.export().join("x/y")).expect("mkdir");
    let b = s.backend();
    let x = b.lookup(b.root(), b"x").expect("x");
    let y = b.lookup(x, b"y").expect("y");
    // A fresh backend that only knows y (as a client holding y's handle after a lookup would).
    let b2 = s.backend();
    let y2 = b2.lookup(b2.lookup(b2.root(), b"x").expect("x"), b"y").expect("y");
    assert_eq!(y2, y);
    let px = b2.parent(y2).expect("parent");
    assert_eq!(px, x);
    assert_eq!(b2.getattr(px).expect("getattr").ftype, Ftype3::Dir);
}

#[test]
fn a_directory_swapped_for_an_outside_symlink_goes_stale_instead_of_being_followed() {
    let s = tree_with_links("swap");
    std::fs::write(s.export().join("sub/file"), b"inside").expect("write");
    std::fs::write(s.outside().join("outdir/file"), b"OUTSIDE").expect("write");
    let b = s.backend();
    let sub = b.lookup(b.root(), b"sub").expect("sub");
    let file = b.lookup(sub, b"file").expect("file");
    assert_eq!(read_all(&b, file, 0, 100).0, b"inside");
    // Behind the server's back: sub becomes a link to a directory outside holding a file of the same name.
    std::fs::rename(s.export().join("sub"), s.outside().join("moved")).expect("move sub out");
    symlink(s.outside().join("outdir"), s.export().join("sub")).expect("swap in link");
    b.drop_cached_fds();
    assert!(is_stale(b.getattr(file)));
    assert!(is_stale(b.getattr(sub)));
    assert!(is_stale(b.lookup(sub, b"file")));
    assert!(is_stale(b.read(file, 0, 100)));
}

#[test]
fn other_mounts_below_the_export_are_not_entered_by_name() {
    // /proc is a different file system from the temp dir; a symlink to it is still only a link.
    let s = Scratch::new("mounts");
    symlink("/proc", s.export().join("proc")).expect("symlink");
    let b = s.backend();
    let link = b.lookup(b.root(), b"proc").expect("lookup");
    assert_eq!(b.getattr(link).expect("getattr").ftype, Ftype3::Lnk);
    assert_eq!(b.lookup(link, b"self"), Err(NfsErr3::NotDir));
}
