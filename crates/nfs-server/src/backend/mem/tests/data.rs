//! READ, WRITE, COMMIT, truncation, sparse files and the capacity cap.

use nfs3_proto::{NfsErr3, Sattr3, StableHow};

use super::super::pages::{MAX_FILE_SIZE, MAX_READ, PAGE_SIZE};
use super::{backend, new_dir, new_file, read_all, used_bytes, MIB};
use crate::backend::mem::MemBackend;
use crate::backend::{Backend, Caller, NewNode};

const PAGE: u64 = PAGE_SIZE as u64;
const GIB: u64 = 1 << 30;

#[test]
fn writes_then_reads_back_the_same_bytes() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    let done = b.write(f, 0, b"hello world", StableHow::FileSync, Caller::Privileged).unwrap();
    assert_eq!(done.count, 11);
    assert_eq!(read_all(&b, f, 0, 100), (b"hello world".to_vec(), true));
    assert_eq!(read_all(&b, f, 6, 3), (b"wor".to_vec(), false));
    assert_eq!(b.getattr(f).unwrap().size, 11);
}

#[test]
fn reading_a_hole_returns_zeros_and_allocates_nothing() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, MIB, b"end", StableHow::Unstable, Caller::Privileged).unwrap();
    let (head, eof) = read_all(&b, f, 0, 8192);
    assert_eq!(head, vec![0; 8192]);
    assert!(!eof);
    let attrs = b.getattr(f).unwrap();
    assert_eq!(attrs.size, MIB + 3);
    assert_eq!(attrs.used, PAGE, "only the written page is allocated");
}

#[test]
fn read_spanning_pages_and_holes_joins_them_in_order() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, PAGE - 2, b"abcd", StableHow::Unstable, Caller::Privileged).unwrap();
    b.write(f, 3 * PAGE, b"z", StableHow::Unstable, Caller::Privileged).unwrap();
    let (data, eof) = read_all(&b, f, PAGE - 2, (2 * PAGE + 3) as u32);
    assert!(eof);
    assert_eq!(&data[..4], b"abcd");
    assert!(data[4..data.len() - 1].iter().all(|&x| x == 0));
    assert_eq!(data.last(), Some(&b'z'));
    assert_eq!(b.getattr(f).unwrap().used, 3 * PAGE, "pages 0, 1 and 3; page 2 is a hole");
}

#[test]
fn read_at_or_past_end_of_file_is_empty_with_eof() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(read_all(&b, f, 0, 10), (Vec::new(), true));
    b.write(f, 0, b"abc", StableHow::Unstable, Caller::Privileged).unwrap();
    assert_eq!(read_all(&b, f, 3, 10), (Vec::new(), true));
    assert_eq!(read_all(&b, f, u64::MAX, 10), (Vec::new(), true));
    assert_eq!(read_all(&b, f, 0, 3), (b"abc".to_vec(), true), "a read ending exactly at EOF reports it");
}

#[test]
fn a_read_hands_out_the_page_itself_and_copies_nothing() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, &[7; 4096], StableHow::Unstable, Caller::Privileged).unwrap();
    let (first, _) = b.read(f, 0, 4096).unwrap();
    let (again, _) = b.read(f, 0, 4096).unwrap();
    assert_eq!(first.data.to_vec(), vec![7; 4096]);
    assert_eq!(first.copied, 0, "nothing copied");
    assert_eq!(first.data.slices()[0].as_ptr(), again.data.slices()[0].as_ptr(), "both are the page itself");
    assert_eq!(b.read(b.root(), 0, 10).map(|_| ()), Err(NfsErr3::IsDir));
}

#[test]
fn huge_read_count_over_a_hole_is_answered_short() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.setattr(f, &Sattr3 { size: Some(1 << 40), ..Sattr3::default() }).unwrap();
    let (data, eof) = read_all(&b, f, 0, u32::MAX);
    assert_eq!(data.len(), MAX_READ as usize);
    assert!(!eof);
    assert_eq!(used_bytes(&b), 0);
}

#[test]
fn write_past_4_gib_works_and_stays_sparse() {
    let b = backend();
    let f = new_file(&b, b.root(), "big");
    let offset = 5 * GIB + 123;
    b.write(f, offset, b"far away", StableHow::FileSync, Caller::Privileged).unwrap();
    let attrs = b.getattr(f).unwrap();
    assert_eq!(attrs.size, offset + 8);
    assert_eq!(attrs.used, PAGE);
    assert_eq!(read_all(&b, f, offset, 8), (b"far away".to_vec(), true));
    assert_eq!(read_all(&b, f, 4 * GIB, 16).0, vec![0; 16]);
    assert_eq!(used_bytes(&b), PAGE);
}

#[test]
fn write_crossing_the_4_gib_boundary_is_read_back_whole() {
    let b = backend();
    let f = new_file(&b, b.root(), "big");
    let data: Vec<u8> = (0..=255).collect();
    b.write(f, 4 * GIB - 100, &data, StableHow::Unstable, Caller::Privileged).unwrap();
    assert_eq!(read_all(&b, f, 4 * GIB - 100, 256), (data, true));
}

#[test]
fn write_that_would_pass_the_capacity_is_nospc_and_changes_nothing() {
    let b = MemBackend::new(4 * PAGE);
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.write(f, 0, &vec![1; 5 * PAGE_SIZE], StableHow::Unstable, Caller::Privileged), Err(NfsErr3::NoSpc));
    assert_eq!(b.getattr(f).unwrap().size, 0);
    assert_eq!(used_bytes(&b), 0);
    b.write(f, 0, &vec![1; 4 * PAGE_SIZE], StableHow::Unstable, Caller::Privileged).unwrap();
    assert_eq!(used_bytes(&b), 4 * PAGE);
    let g = new_file(&b, b.root(), "g");
    assert_eq!(b.write(g, 0, b"x", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::NoSpc));
    b.write(f, 100, b"overwrite needs no new page", StableHow::Unstable, Caller::Privileged).unwrap();
    assert_eq!(b.fsstat().unwrap().free_bytes, 0);
}

#[test]
fn removing_a_file_gives_its_pages_back() {
    let b = MemBackend::new(2 * PAGE);
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, &vec![1; 2 * PAGE_SIZE], StableHow::Unstable, Caller::Privileged).unwrap();
    b.remove(b.root(), b"f", false).unwrap();
    assert_eq!(used_bytes(&b), 0);
    let g = new_file(&b, b.root(), "g");
    b.write(g, 0, &vec![2; 2 * PAGE_SIZE], StableHow::Unstable, Caller::Privileged).unwrap();
}

#[test]
fn truncating_gives_pages_back_and_later_growth_reads_zeros() {
    let b = MemBackend::new(3 * PAGE);
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, &vec![0xff; 3 * PAGE_SIZE], StableHow::Unstable, Caller::Privileged).unwrap();
    let attrs = b.setattr(f, &Sattr3 { size: Some(PAGE + 10), ..Sattr3::default() }).unwrap();
    assert_eq!((attrs.size, attrs.used), (PAGE + 10, 2 * PAGE));
    assert_eq!(used_bytes(&b), 2 * PAGE);
    b.setattr(f, &Sattr3 { size: Some(3 * PAGE), ..Sattr3::default() }).unwrap();
    let (data, _) = read_all(&b, f, PAGE, PAGE as u32);
    assert!(data[..10].iter().all(|&x| x == 0xff));
    assert!(data[10..].iter().all(|&x| x == 0), "bytes cut off by the truncation come back as zeros");
    b.setattr(f, &Sattr3 { size: Some(0), ..Sattr3::default() }).unwrap();
    assert_eq!(used_bytes(&b), 0);
    assert_eq!(b.getattr(f).unwrap().used, 0);
}

#[test]
fn writes_and_sizes_beyond_the_maximum_file_size_are_fbig() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(b.max_file_size(), MAX_FILE_SIZE);
    assert_eq!(b.write(f, MAX_FILE_SIZE - 1, b"ab", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::FBig));
    assert_eq!(b.write(f, u64::MAX, b"a", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::FBig));
    b.write(f, MAX_FILE_SIZE - 1, b"a", StableHow::Unstable, Caller::Privileged).unwrap();
    assert_eq!(b.getattr(f).unwrap().size, MAX_FILE_SIZE);
    let too_big = Sattr3 { size: Some(MAX_FILE_SIZE + 1), ..Sattr3::default() };
    assert_eq!(b.setattr(f, &too_big), Err(NfsErr3::FBig));
}

#[test]
fn zero_length_write_changes_nothing() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    let before = b.getattr(f).unwrap();
    let done = b.write(f, 1 << 40, b"", StableHow::Unstable, Caller::Privileged).unwrap();
    assert_eq!(done.count, 0);
    let after = b.getattr(f).unwrap();
    assert_eq!((after.size, after.mtime, after.ctime), (before.size, before.mtime, before.ctime));
}

#[test]
fn write_reports_the_stability_it_was_asked_for() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    for stable in [StableHow::Unstable, StableHow::DataSync, StableHow::FileSync] {
        assert_eq!(b.write(f, 0, b"x", stable, Caller::Privileged).unwrap().committed, stable);
    }
}

#[test]
fn data_calls_on_directories_are_isdir_and_on_other_types_inval() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    let l = super::create(&b, b.root(), "l", NewNode::Symlink { target: b"d" });
    assert_eq!(b.write(d, 0, b"x", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::IsDir));
    assert_eq!(b.read(d, 0, 1).map(|_| ()), Err(NfsErr3::IsDir));
    assert_eq!(b.commit(d, 0, 0), Err(NfsErr3::IsDir));
    assert_eq!(b.write(l, 0, b"x", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::Inval));
    assert_eq!(b.read(l, 0, 1).map(|_| ()), Err(NfsErr3::Inval));
    assert_eq!(b.commit(l, 0, 0), Err(NfsErr3::Inval));
}

#[test]
fn commit_succeeds_on_files_and_is_stale_after_removal() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, b"data", StableHow::Unstable, Caller::Privileged).unwrap();
    b.commit(f, 0, 0).unwrap();
    b.commit(f, 2, 2).unwrap();
    b.remove(b.root(), b"f", false).unwrap();
    assert_eq!(b.commit(f, 0, 0), Err(NfsErr3::Stale));
    assert_eq!(b.write(f, 0, b"x", StableHow::Unstable, Caller::Privileged), Err(NfsErr3::Stale));
    assert_eq!(b.read(f, 0, 1).map(|_| ()), Err(NfsErr3::Stale));
}
