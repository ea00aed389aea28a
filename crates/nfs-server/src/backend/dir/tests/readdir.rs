//! READDIR paging, cookies and verifiers.

use std::collections::{BTreeMap, BTreeSet};

use nfs3_proto::NfsErr3;

use super::{new_dir, new_file, Scratch};
use crate::backend::{Backend, DirEntry, FileId};

/// Lists `dir` completely in pages of `page` entries, returning every entry and the number of pages.
fn list_all(b: &impl Backend, dir: FileId, page: usize) -> (Vec<DirEntry>, usize) {
    let (mut all, mut cookie, mut pages) = (Vec::new(), 0, 0);
    loop {
        let p = b.readdir(dir, cookie, page).expect("readdir");
        pages += 1;
        assert!(p.entries.len() <= page);
        assert!(p.entries.iter().all(|e| e.cookie != 0), "0 is reserved for the start");
        if let Some(last) = p.entries.last() {
            cookie = last.cookie;
        }
        all.extend(p.entries);
        if p.eof {
            return (all, pages);
        }
        assert!(pages < 100_000, "listing does not end");
    }
}

#[test]
fn pages_through_a_thousand_entries_with_cookies() {
    let s = Scratch::new("readdir1000");
    for i in 0..1200 {
        std::fs::write(s.export().join(format!("entry-{i:04}")), b"").expect("write");
    }
    let b = s.backend();
    let (all, pages) = list_all(&b, b.root(), 50);
    assert_eq!(all.len(), 1200);
    assert!(pages >= 24);
    let names: BTreeSet<_> = all.iter().map(|e| e.name.clone()).collect();
    assert_eq!(names.len(), 1200, "no entry repeated");
    assert!(!names.contains(&b"."[..]) && !names.contains(&b".."[..]));
    for e in &all {
        assert_eq!(b.lookup(b.root(), &e.name), Ok(e.file), "the listed identity is the looked-up one");
    }
    // Entries listed are usable as handles without a LOOKUP.
    let fresh = s.backend();
    let (listed, _) = list_all(&fresh, fresh.root(), 1000);
    let first = listed.first().expect("an entry");
    assert_eq!(fresh.getattr(first.file).map(|a| a.fileid), Ok(first.file.id));
}

#[test]
fn cookies_stay_valid_while_entries_are_removed_between_pages() {
    let s = Scratch::new("readdir-rm");
    let b = s.backend();
    let dir = new_dir(&b, b.root(), "d");
    for i in 0..1000 {
        new_file(&b, dir, &format!("f{i}"));
    }
    let verifier = b.cookie_verifier(dir).expect("verifier");
    // Like `rm -rf`: read a page, remove what it listed, continue from the last cookie.
    let (mut cookie, mut seen) = (0, BTreeMap::new());
    loop {
        let page = b.readdir(dir, cookie, 100).expect("readdir");
        for e in &page.entries {
            assert!(seen.insert(e.name.clone(), e.cookie).is_none(), "listed twice");
            b.remove(dir, &e.name, false).expect("remove");
        }
        if let Some(last) = page.entries.last() {
            cookie = last.cookie;
        }
        assert_eq!(b.cookie_verifier(dir), Ok(verifier), "removals do not invalidate cookies");
        if page.eof {
            break;
        }
    }
    assert_eq!(seen.len(), 1000, "no survivor skipped");
    assert!(b.readdir(dir, 0, 10).expect("empty").entries.is_empty());
    b.remove(b.root(), b"d", true).expect("rmdir");
}

#[test]
fn an_empty_directory_lists_nothing_and_ends() {
    let s = Scratch::new("readdir-empty");
    let b = s.backend();
    let d = new_dir(&b, b.root(), "d");
    let page = b.readdir(d, 0, 10).expect("readdir");
    assert!(page.entries.is_empty() && page.eof);
    new_file(&b, d, "one");
    let page = b.readdir(d, 0, 0).expect("readdir");
    assert!(page.entries.is_empty() && !page.eof, "a zero-entry page is not the end");
    let page = b.readdir(d, 0, 1).expect("readdir");
    assert_eq!(page.entries.len(), 1);
    assert!(page.eof);
}

#[test]
fn verifiers_are_stable_and_readdir_of_a_file_is_notdir() {
    let s = Scratch::new("readdir-verf");
    let b = s.backend();
    let d = new_dir(&b, b.root(), "d");
    let v = b.cookie_verifier(d).expect("verifier");
    new_file(&b, d, "x");
    assert_eq!(b.cookie_verifier(d), Ok(v));
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.readdir(f, 0, 10).map(|_| ()), Err(NfsErr3::NotDir));
    assert_eq!(b.cookie_verifier(f), Err(NfsErr3::NotDir));
}

#[test]
fn a_cookie_that_cannot_be_seeked_to_is_bad_cookie() {
    let s = Scratch::new("readdir-bad");
    let b = s.backend();
    new_file(&b, b.root(), "f");
    match b.readdir(b.root(), u64::MAX, 10) {
        Err(e) => assert_eq!(e, NfsErr3::BadCookie),
        Ok(page) => assert!(page.entries.len() <= 1, "never more than the directory holds"),
    }
}
