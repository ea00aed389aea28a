//! READDIR paging, cookies and the cookie verifier.

use std::collections::HashSet;

use nfs3_proto::NfsErr3;

use super::super::dir::FIRST_COOKIE;
use super::{backend, list, new_dir, new_file};
use crate::backend::Backend;

#[test]
fn readdir_lists_every_entry_in_pages_until_eof() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    assert_eq!(b.readdir(d, 0, 10).unwrap().entries, Vec::new());
    assert!(b.readdir(d, 0, 10).unwrap().eof);
    for i in 0..25 {
        new_file(&b, d, &format!("f{i}"));
    }
    let first = b.readdir(d, 0, 10).unwrap();
    assert_eq!(first.entries.len(), 10);
    assert!(!first.eof);
    assert!(first.entries.iter().all(|e| e.cookie >= FIRST_COOKIE));
    assert_eq!(b.lookup(d, &first.entries[0].name), Ok(first.entries[0].file));
    let names = list(&b, d, 7);
    assert_eq!(names.len(), 25);
    assert_eq!(names.iter().collect::<HashSet<_>>().len(), 25);
    let exact = b.readdir(d, first.entries[9].cookie, 15).unwrap();
    assert_eq!((exact.entries.len(), exact.eof), (15, true), "eof on the page holding the last entry");
}

#[test]
fn cookies_stay_valid_across_inserts_and_removes() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    for i in 0..10 {
        new_file(&b, d, &format!("f{i}"));
    }
    let first = b.readdir(d, 0, 4).unwrap();
    let resume = first.entries[3].cookie;
    // Remove the entry the cookie came from, one already listed and one not yet listed; add new ones.
    for name in ["f3", "f0", "f7"] {
        b.remove(d, name.as_bytes(), false).unwrap();
    }
    new_file(&b, d, "new1");
    new_file(&b, d, "f0");
    let rest = b.readdir(d, resume, 100).unwrap();
    let names: Vec<_> = rest.entries.iter().map(|e| String::from_utf8_lossy(&e.name).into_owned()).collect();
    assert_eq!(names, ["f4", "f5", "f6", "f8", "f9", "new1", "f0"]);
    assert!(rest.eof);
    assert_eq!(b.cookie_verifier(d), Ok(0), "no change needed: the verifier stays put");
}

#[test]
fn resuming_after_the_cookies_of_dot_and_dotdot_lists_everything() {
    let b = backend();
    new_file(&b, b.root(), "a");
    new_file(&b, b.root(), "b");
    for cookie in [0, 1, 2] {
        assert_eq!(b.readdir(b.root(), cookie, 10).unwrap().entries.len(), 2, "cookie {cookie}");
    }
}

#[test]
fn a_cookie_never_handed_out_is_bad_cookie() {
    let b = backend();
    new_file(&b, b.root(), "a");
    let last = b.readdir(b.root(), 0, 10).unwrap().entries[0].cookie;
    assert!(b.readdir(b.root(), last, 10).unwrap().eof);
    assert_eq!(b.readdir(b.root(), last + 1, 10), Err(NfsErr3::BadCookie));
    assert_eq!(b.readdir(b.root(), u64::MAX, 10), Err(NfsErr3::BadCookie));
}

#[test]
fn renaming_within_a_directory_keeps_the_entry_where_it_was() {
    let b = backend();
    for name in ["a", "b", "c"] {
        new_file(&b, b.root(), name);
    }
    let before = b.readdir(b.root(), 0, 10).unwrap();
    b.rename(b.root(), b"a", b.root(), b"z").unwrap();
    let after = b.readdir(b.root(), 0, 10).unwrap();
    assert_eq!(after.entries[0].name, b"z");
    assert_eq!(after.entries[0].cookie, before.entries[0].cookie);
    assert_eq!(after.entries[0].file, before.entries[0].file);
    b.rename(b.root(), b"z", b.root(), b"c").unwrap();
    assert_eq!(list(&b, b.root(), 1), ["c", "b"], "the renamed entry keeps its place; the replaced one is gone");
}

#[test]
fn a_zero_entry_page_is_empty_and_not_eof_when_entries_remain() {
    let b = backend();
    new_file(&b, b.root(), "a");
    let page = b.readdir(b.root(), 0, 0).unwrap();
    assert!(page.entries.is_empty());
    assert!(!page.eof);
    assert!(b.readdir(b.root(), 0, usize::MAX).unwrap().eof);
}

#[test]
fn readdir_and_cookie_verifier_of_a_file_are_notdir() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.readdir(f, 0, 10), Err(NfsErr3::NotDir));
    assert_eq!(b.cookie_verifier(f), Err(NfsErr3::NotDir));
    assert_eq!(b.cookie_verifier(b.root()), Ok(0));
}

#[test]
fn a_thousand_entries_list_once_each_in_creation_order() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    let expected: Vec<String> = (0..1000).map(|i| format!("entry-{i:04}")).collect();
    for name in &expected {
        new_file(&b, d, name);
    }
    assert_eq!(list(&b, d, 64), expected);
}
