//! CREATE (all modes), MKDIR, SYMLINK, MKNOD, LOOKUP, REMOVE, RMDIR, RENAME, LINK and stale ids.

use nfs3_proto::{CreateVerf3, Ftype3, NfsErr3, Sattr3, SpecData3, StableHow};

use super::{backend, create, list, new_dir, new_file, read_all};
use crate::backend::mem::{MemBackend, MAX_NAME_LEN, MAX_SYMLINK_LEN};
use crate::backend::{Backend, Caller, CreateMode, NewNode};

const FILE: NewNode<'static> = NewNode::File { exclusive: None };

fn exclusive(verifier: u8) -> NewNode<'static> {
    NewNode::File { exclusive: Some(CreateVerf3([verifier; 8])) }
}

#[test]
fn created_file_is_found_by_lookup() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.lookup(b.root(), b"f"), Ok(f));
    assert_eq!(b.lookup(b.root(), b"g"), Err(NfsErr3::NoEnt));
    assert_eq!(b.lookup(f, b"x"), Err(NfsErr3::NotDir));
    assert_eq!(b.parent(f), Err(NfsErr3::NotDir));
}

#[test]
fn names_are_checked_for_length_and_form() {
    let b = backend();
    let long = vec![b'a'; MAX_NAME_LEN + 1];
    let none = Sattr3::default();
    assert_eq!(b.create(b.root(), &long, FILE, CreateMode::Guarded, &none), Err(NfsErr3::NameTooLong));
    assert_eq!(b.lookup(b.root(), &long), Err(NfsErr3::NameTooLong));
    b.create(b.root(), &long[..MAX_NAME_LEN], FILE, CreateMode::Guarded, &none).unwrap();
    for bad in [&b""[..], b".", b"..", b"a/b", b"a\0b"] {
        assert_eq!(b.create(b.root(), bad, FILE, CreateMode::Guarded, &none), Err(NfsErr3::Inval), "{bad:?}");
    }
}

#[test]
fn guarded_create_of_an_existing_name_is_exist() {
    let b = backend();
    new_file(&b, b.root(), "f");
    let again = b.create(b.root(), b"f", FILE, CreateMode::Guarded, &Sattr3::default());
    assert_eq!(again, Err(NfsErr3::Exist));
    new_dir(&b, b.root(), "d");
    assert_eq!(
        b.create(b.root(), b"d", NewNode::Directory, CreateMode::Guarded, &Sattr3::default()),
        Err(NfsErr3::Exist)
    );
}

#[test]
fn unchecked_create_reuses_an_existing_file_applying_only_the_size() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, b"contents", StableHow::Unstable, Caller::Privileged).unwrap();
    let attrs = Sattr3 { mode: Some(0o600), uid: Some(99), size: Some(0), ..Sattr3::default() };
    assert_eq!(b.create(b.root(), b"f", FILE, CreateMode::Unchecked, &attrs), Ok(f));
    let got = b.getattr(f).unwrap();
    assert_eq!((got.size, got.mode, got.uid), (0, 0o644, 0));
    new_dir(&b, b.root(), "d");
    assert_eq!(b.create(b.root(), b"d", FILE, CreateMode::Unchecked, &attrs), Err(NfsErr3::Exist));
}

#[test]
fn exclusive_create_retried_with_the_same_verifier_returns_the_same_file() {
    let b = backend();
    let none = Sattr3::default();
    let f = b.create(b.root(), b"f", exclusive(1), CreateMode::Exclusive, &none).unwrap();
    assert_eq!(b.create(b.root(), b"f", exclusive(1), CreateMode::Exclusive, &none), Ok(f));
    assert_eq!(list(&b, b.root(), 10), vec!["f"]);
}

#[test]
fn exclusive_create_with_another_verifier_is_exist() {
    let b = backend();
    let none = Sattr3::default();
    b.create(b.root(), b"f", exclusive(1), CreateMode::Exclusive, &none).unwrap();
    assert_eq!(b.create(b.root(), b"f", exclusive(2), CreateMode::Exclusive, &none), Err(NfsErr3::Exist));
    new_file(&b, b.root(), "plain");
    assert_eq!(b.create(b.root(), b"plain", exclusive(0), CreateMode::Exclusive, &none), Err(NfsErr3::Exist));
}

#[test]
fn exclusive_create_verifier_is_forgotten_after_the_first_setattr() {
    let b = backend();
    let none = Sattr3::default();
    let f = b.create(b.root(), b"f", exclusive(3), CreateMode::Exclusive, &none).unwrap();
    b.setattr(f, &Sattr3 { mode: Some(0o600), ..Sattr3::default() }).unwrap();
    assert_eq!(b.create(b.root(), b"f", exclusive(3), CreateMode::Exclusive, &none), Err(NfsErr3::Exist));
}

#[test]
fn directories_count_their_subdirectories_in_nlink() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    assert_eq!(b.getattr(b.root()).unwrap().nlink, 3);
    assert_eq!(b.getattr(d).unwrap().nlink, 2);
    assert_eq!(b.parent(d), Ok(b.root()));
    new_file(&b, d, "file");
    new_dir(&b, d, "sub");
    assert_eq!(b.getattr(d).unwrap().nlink, 3, "files do not count");
    b.remove(d, b"sub", true).unwrap();
    assert_eq!(b.getattr(d).unwrap().nlink, 2);
}

#[test]
fn remove_and_rmdir_check_the_type_and_emptiness() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    new_file(&b, d, "f");
    assert_eq!(b.remove(b.root(), b"d", true), Err(NfsErr3::NotEmpty));
    assert_eq!(b.remove(b.root(), b"d", false), Err(NfsErr3::IsDir));
    assert_eq!(b.remove(d, b"f", true), Err(NfsErr3::NotDir));
    assert_eq!(b.remove(d, b"missing", false), Err(NfsErr3::NoEnt));
    b.remove(d, b"f", false).unwrap();
    b.remove(b.root(), b"d", true).unwrap();
    assert_eq!(b.getattr(d), Err(NfsErr3::Stale));
    assert_eq!(b.lookup(b.root(), b"d"), Err(NfsErr3::NoEnt));
}

#[test]
fn removed_ids_are_stale_even_when_the_slot_is_reused() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.remove(b.root(), b"f", false).unwrap();
    assert_eq!(b.getattr(f), Err(NfsErr3::Stale));
    assert_eq!(b.setattr(f, &Sattr3::default()), Err(NfsErr3::Stale));
    let g = new_file(&b, b.root(), "g");
    assert_eq!(g.id, f.id, "the slot is recycled");
    assert_ne!(g.generation, f.generation);
    assert_eq!(b.getattr(f), Err(NfsErr3::Stale));
    assert_eq!(b.getattr(g).unwrap().fileid, g.id);
    let bogus = crate::backend::FileId { id: 0, generation: f.generation };
    assert_eq!(b.getattr(bogus), Err(NfsErr3::Stale));
    assert_eq!(b.getattr(crate::backend::FileId { id: u64::MAX, generation: 0 }), Err(NfsErr3::Stale));
}

#[test]
fn creating_in_a_removed_directory_is_stale() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    b.remove(b.root(), b"d", true).unwrap();
    assert_eq!(b.create(d, b"f", FILE, CreateMode::Guarded, &Sattr3::default()), Err(NfsErr3::Stale));
    assert_eq!(b.readdir(d, 0, 10), Err(NfsErr3::Stale));
}

#[test]
fn creating_past_the_file_limit_is_nospc_until_one_is_removed() {
    let b = MemBackend::with_max_files(1 << 20, 3);
    new_file(&b, b.root(), "a");
    new_file(&b, b.root(), "b");
    assert_eq!(b.create(b.root(), b"c", FILE, CreateMode::Guarded, &Sattr3::default()), Err(NfsErr3::NoSpc));
    b.remove(b.root(), b"a", false).unwrap();
    new_file(&b, b.root(), "c");
}

#[test]
fn symlink_target_is_read_back_by_readlink() {
    let b = backend();
    let l = create(&b, b.root(), "l", NewNode::Symlink { target: b"../some/where" });
    assert_eq!(b.readlink(l).map(|t| (t.data.to_vec(), t.copied)), Ok((b"../some/where".to_vec(), 0)));
    let attrs = b.getattr(l).unwrap();
    assert_eq!((attrs.ftype, attrs.size, attrs.mode), (Ftype3::Lnk, 13, 0o777));
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.readlink(f), Err(NfsErr3::Inval));
    let none = Sattr3::default();
    let empty = b.create(b.root(), b"e", NewNode::Symlink { target: b"" }, CreateMode::Guarded, &none);
    assert_eq!(empty, Err(NfsErr3::Inval));
    let long = vec![b'x'; MAX_SYMLINK_LEN + 1];
    let long = b.create(b.root(), b"e", NewNode::Symlink { target: &long }, CreateMode::Guarded, &none);
    assert_eq!(long, Err(NfsErr3::NameTooLong));
}

#[test]
fn mknod_makes_devices_fifos_and_sockets_but_no_other_types() {
    let b = backend();
    let rdev = SpecData3 { specdata1: 8, specdata2: 1 };
    let blk = create(&b, b.root(), "sda1", NewNode::Special { ftype: Ftype3::Blk, rdev });
    let chr = create(&b, b.root(), "null", NewNode::Special { ftype: Ftype3::Chr, rdev });
    let fifo = create(&b, b.root(), "fifo", NewNode::Special { ftype: Ftype3::Fifo, rdev });
    let sock = create(&b, b.root(), "sock", NewNode::Special { ftype: Ftype3::Sock, rdev });
    assert_eq!((b.getattr(blk).unwrap().ftype, b.getattr(blk).unwrap().rdev), (Ftype3::Blk, rdev));
    assert_eq!(b.getattr(chr).unwrap().ftype, Ftype3::Chr);
    assert_eq!(b.getattr(fifo).unwrap().rdev, SpecData3::default(), "no device numbers for a FIFO");
    assert_eq!(b.getattr(sock).unwrap().ftype, Ftype3::Sock);
    for ftype in [Ftype3::Reg, Ftype3::Dir, Ftype3::Lnk] {
        let node = NewNode::Special { ftype, rdev };
        assert_eq!(b.create(b.root(), b"x", node, CreateMode::Guarded, &Sattr3::default()), Err(NfsErr3::BadType));
    }
}

#[test]
fn hard_links_count_names_and_the_file_lives_until_the_last_is_removed() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, b"shared", StableHow::Unstable, Caller::Privileged).unwrap();
    b.link(f, d, b"g").unwrap();
    assert_eq!(b.getattr(f).unwrap().nlink, 2);
    assert_eq!(b.lookup(d, b"g"), Ok(f));
    assert_eq!(b.link(f, d, b"g"), Err(NfsErr3::Exist));
    assert_eq!(b.link(d, b.root(), b"dirlink"), Err(NfsErr3::IsDir));
    assert_eq!(b.link(f, f, b"x"), Err(NfsErr3::NotDir));
    b.remove(b.root(), b"f", false).unwrap();
    assert_eq!(b.getattr(f).unwrap().nlink, 1);
    assert_eq!(read_all(&b, f, 0, 10), (b"shared".to_vec(), true));
    b.remove(d, b"g", false).unwrap();
    assert_eq!(b.getattr(f), Err(NfsErr3::Stale));
    assert_eq!(super::used_bytes(&b), 0);
}

#[test]
fn rename_over_an_existing_file_replaces_it() {
    let b = backend();
    let a = new_file(&b, b.root(), "a");
    let old = new_file(&b, b.root(), "b");
    b.write(old, 0, b"old", StableHow::Unstable, Caller::Privileged).unwrap();
    b.rename(b.root(), b"a", b.root(), b"b").unwrap();
    assert_eq!(b.lookup(b.root(), b"b"), Ok(a));
    assert_eq!(b.lookup(b.root(), b"a"), Err(NfsErr3::NoEnt));
    assert_eq!(b.getattr(old), Err(NfsErr3::Stale));
    assert_eq!(super::used_bytes(&b), 0, "the replaced file's pages are freed");
    assert_eq!(list(&b, b.root(), 10), vec!["b"]);
}

#[test]
fn rename_over_a_file_with_other_links_keeps_it_alive() {
    let b = backend();
    new_file(&b, b.root(), "a");
    let target = new_file(&b, b.root(), "b");
    b.link(target, b.root(), b"c").unwrap();
    b.rename(b.root(), b"a", b.root(), b"b").unwrap();
    assert_eq!(b.getattr(target).unwrap().nlink, 1);
}

#[test]
fn renaming_a_directory_into_its_own_subtree_is_inval() {
    let b = backend();
    let a = new_dir(&b, b.root(), "a");
    let sub = new_dir(&b, a, "sub");
    let deeper = new_dir(&b, sub, "deeper");
    assert_eq!(b.rename(b.root(), b"a", deeper, b"a"), Err(NfsErr3::Inval));
    assert_eq!(b.rename(b.root(), b"a", a, b"self"), Err(NfsErr3::Inval));
    assert_eq!(b.lookup(b.root(), b"a"), Ok(a));
    b.rename(a, b"sub", b.root(), b"sub").unwrap();
    assert_eq!(b.parent(sub), Ok(b.root()));
}

#[test]
fn rename_replaces_only_compatible_targets() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    let full = new_dir(&b, b.root(), "full");
    new_file(&b, full, "x");
    new_dir(&b, b.root(), "empty");
    new_file(&b, b.root(), "f");
    // RFC 1813 §3.3.14: incompatible types or a non-empty directory target are NFS3ERR_EXIST.
    assert_eq!(b.rename(b.root(), b"d", b.root(), b"full"), Err(NfsErr3::Exist));
    assert_eq!(b.rename(b.root(), b"d", b.root(), b"f"), Err(NfsErr3::Exist));
    assert_eq!(b.rename(b.root(), b"f", b.root(), b"empty"), Err(NfsErr3::Exist));
    let links = b.getattr(b.root()).unwrap().nlink;
    b.rename(b.root(), b"d", b.root(), b"empty").unwrap();
    assert_eq!(b.lookup(b.root(), b"empty"), Ok(d));
    assert_eq!(b.getattr(b.root()).unwrap().nlink, links - 1, "one subdirectory fewer");
}

#[test]
fn rename_across_directories_moves_the_entry_and_the_link_counts() {
    let b = backend();
    let from = new_dir(&b, b.root(), "from");
    let to = new_dir(&b, b.root(), "to");
    let moved = new_dir(&b, from, "moved");
    let file = new_file(&b, from, "file");
    b.rename(from, b"moved", to, b"here").unwrap();
    b.rename(from, b"file", to, b"file2").unwrap();
    assert_eq!(b.lookup(to, b"here"), Ok(moved));
    assert_eq!(b.lookup(to, b"file2"), Ok(file));
    assert_eq!(b.parent(moved), Ok(to));
    assert_eq!((b.getattr(from).unwrap().nlink, b.getattr(to).unwrap().nlink), (2, 3));
    assert!(list(&b, from, 10).is_empty());
    b.remove(b.root(), b"from", true).unwrap();
}

#[test]
fn rename_between_two_names_of_one_file_or_onto_itself_does_nothing() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.link(f, b.root(), b"g").unwrap();
    b.rename(b.root(), b"f", b.root(), b"g").unwrap();
    b.rename(b.root(), b"f", b.root(), b"f").unwrap();
    assert_eq!((b.lookup(b.root(), b"f"), b.lookup(b.root(), b"g")), (Ok(f), Ok(f)));
    assert_eq!(b.getattr(f).unwrap().nlink, 2);
}

#[test]
fn rename_of_a_missing_name_is_noent_and_outside_directories_notdir() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.rename(b.root(), b"missing", b.root(), b"x"), Err(NfsErr3::NoEnt));
    assert_eq!(b.rename(b.root(), b"f", f, b"x"), Err(NfsErr3::NotDir));
    assert_eq!(b.rename(f, b"x", b.root(), b"y"), Err(NfsErr3::NotDir));
}

#[test]
fn linking_past_the_link_limit_is_mlink() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    for i in 1..super::super::namespace::MAX_LINKS {
        b.link(f, b.root(), format!("l{i}").as_bytes()).unwrap();
    }
    assert_eq!(b.link(f, b.root(), b"one-too-many"), Err(NfsErr3::Mlink));
    assert_eq!(b.lookup(b.root(), b"one-too-many"), Err(NfsErr3::NoEnt));
}
