//! READ, WRITE, COMMIT and FSSTAT.

use std::os::unix::fs::MetadataExt;

use nfs3_proto::{NfsErr3, StableHow};

use super::{new_dir, new_file, read_all, write_all, Scratch};
use crate::backend::dir::DirLimits;
use crate::backend::{Backend, Caller};

#[test]
fn data_written_reads_back_with_end_of_file_reported() {
    let s = Scratch::new("rw");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"hello world");
    assert_eq!(read_all(&b, f, 0, 5), (b"hello".to_vec(), false));
    assert_eq!(read_all(&b, f, 6, 5), (b"world".to_vec(), true), "a read ending exactly at the end is eof");
    assert_eq!(read_all(&b, f, 6, 100), (b"world".to_vec(), true));
    assert_eq!(read_all(&b, f, 100, 10), (Vec::new(), true));
    assert_eq!(read_all(&b, f, u64::MAX, 10), (Vec::new(), true));
    assert_eq!(read_all(&b, f, 0, 0), (Vec::new(), false));
    assert_eq!(std::fs::read(s.export().join("f")).expect("read"), b"hello world");
    let empty = new_file(&b, b.root(), "empty");
    assert_eq!(read_all(&b, empty, 0, 0), (Vec::new(), true));
}

#[test]
fn a_read_is_a_copy_counted_byte_for_byte() {
    let s = Scratch::new("clear");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"abc");
    let (served, eof) = b.read(f, 1, 10).expect("read");
    assert!(eof);
    assert_eq!((served.data.to_vec(), served.copied), (b"bc".to_vec(), 2));
}

#[test]
fn sparse_files_read_zeros_in_holes_and_use_less_space_than_their_size() {
    let s = Scratch::new("sparse");
    let b = s.backend();
    let f = new_file(&b, b.root(), "sparse");
    write_all(&b, f, 10 << 20, b"tail");
    let attrs = b.getattr(f).expect("getattr");
    assert_eq!(attrs.size, (10 << 20) + 4);
    assert!(attrs.used < 1 << 20, "hole not allocated: used {}", attrs.used);
    let (data, eof) = read_all(&b, f, 4096, 8192);
    assert!(!eof);
    assert!(data.len() == 8192 && data.iter().all(|&x| x == 0));
    assert_eq!(read_all(&b, f, 10 << 20, 100), (b"tail".to_vec(), true));
}

#[test]
fn writes_beyond_four_gibibytes_land_at_their_offset() {
    let s = Scratch::new("large");
    let b = s.backend();
    let f = new_file(&b, b.root(), "large");
    let offset = (5u64 << 30) + 123;
    let done = b.write(f, offset, b"far away", StableHow::Unstable, Caller::Privileged).expect("write");
    assert_eq!(done.count, 8);
    assert_eq!(b.getattr(f).expect("getattr").size, offset + 8);
    assert_eq!(read_all(&b, f, offset, 8), (b"far away".to_vec(), true));
    assert_eq!(read_all(&b, f, 1 << 32, 4), (vec![0; 4], false));
    let meta = std::fs::metadata(s.export().join("large")).expect("metadata");
    assert_eq!(meta.len(), offset + 8);
    assert!(meta.blocks() * 512 < 1 << 20, "stays sparse on disk");
}

#[test]
fn writes_past_the_largest_file_size_are_fbig() {
    let s = Scratch::new("fbig");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    assert_eq!(
        b.write(f, u64::MAX - 1, b"xy", StableHow::Unstable, Caller::Privileged).map(|_| ()),
        Err(NfsErr3::FBig)
    );
    assert_eq!(
        b.write(f, i64::MAX as u64, b"x", StableHow::Unstable, Caller::Privileged).map(|_| ()),
        Err(NfsErr3::FBig)
    );
}

#[test]
fn stability_is_reported_as_asked_and_file_sync_reaches_the_disk_path() {
    let s = Scratch::new("stable");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    for (i, how) in [StableHow::Unstable, StableHow::DataSync, StableHow::FileSync].into_iter().enumerate() {
        let done = b.write(f, i as u64 * 4096, &[i as u8 + 1; 4096], how, Caller::Privileged).expect("write");
        assert_eq!(done.committed, how);
        assert_eq!(done.count, 4096);
    }
    assert_eq!(b.commit(f, 0, 0), Ok(()));
    assert_eq!(b.commit(f, 4096, 100), Ok(()));
    let on_disk = std::fs::read(s.export().join("f")).expect("read");
    assert_eq!(on_disk.len(), 3 * 4096);
    assert!(on_disk[8192..].iter().all(|&x| x == 3));
    assert_eq!(b.write(f, 0, b"", StableHow::FileSync, Caller::Privileged).map(|d| d.count), Ok(0));
}

#[test]
fn io_on_directories_and_special_files_is_refused() {
    let s = Scratch::new("notreg");
    let b = s.backend();
    let d = new_dir(&b, b.root(), "d");
    assert_eq!(b.read(d, 0, 10).map(|_| ()), Err(NfsErr3::IsDir));
    assert_eq!(b.write(d, 0, b"x", StableHow::Unstable, Caller::Privileged).map(|_| ()), Err(NfsErr3::IsDir));
    assert_eq!(b.commit(d, 0, 0), Err(NfsErr3::IsDir));
    assert_eq!(b.read(b.root(), 0, 10).map(|_| ()), Err(NfsErr3::IsDir));
}

#[test]
fn random_io_reuses_one_cached_descriptor_and_survives_cache_eviction() {
    let s = Scratch::new("fdcache");
    let limits = DirLimits { max_known_files: 1000, max_open_files: 16, ..DirLimits::default() };
    let b = s.backend_with(limits);
    let files: Vec<_> = (0..40).map(|i| new_file(&b, b.root(), &format!("f{i}"))).collect();
    assert!(b.fds.len() <= 16, "at most one fd per shard: {}", b.fds.len());
    for round in 0..3u8 {
        for (i, &f) in files.iter().enumerate() {
            let data = [round, i as u8];
            write_all(&b, f, u64::from(round) * 2, &data);
            assert_eq!(read_all(&b, f, u64::from(round) * 2, 2).0, data);
        }
    }
    assert!(b.fds.len() <= 16);
}

#[test]
fn fsstat_reports_the_file_system_totals() {
    let s = Scratch::new("fsstat");
    let b = s.backend();
    let st = b.fsstat().expect("fsstat");
    assert!(st.total_bytes > 0 && st.total_bytes >= st.free_bytes && st.free_bytes >= st.avail_bytes);
    assert!(st.total_files >= st.free_files);
}

#[test]
fn each_backend_instance_has_its_own_write_verifier() {
    let s = Scratch::new("verf");
    let (one, two) = (s.backend(), s.backend());
    assert_ne!(one.write_verifier(), two.write_verifier());
    assert_eq!(one.write_verifier(), one.write_verifier());
}

#[test]
fn a_descriptor_without_enough_access_is_reopened_for_the_same_inode() {
    use std::os::fd::AsFd;

    use crate::backend::dir::open::{open_child, verify, Access};

    let s = Scratch::new("upgrade");
    let b = s.backend();
    let f = new_file(&b, b.root(), "f");
    write_all(&b, f, 0, b"abc");
    // Cache an O_PATH descriptor, as the server holds when its own credentials could not open the file.
    let root = b.resolve(b.root()).expect("root");
    let (fd, _) = open_child(root.fd.as_fd(), b"f", nfs3_proto::Ftype3::Lnk).expect("open O_PATH");
    b.cache(verify(fd, f, Access::Path).expect("verify"));
    assert_eq!(b.resolve(f).map(|h| h.access), Ok(Access::Path));
    assert_eq!(read_all(&b, f, 0, 10), (b"abc".to_vec(), true));
    write_all(&b, f, 3, b"def");
    assert_eq!(b.resolve(f).map(|h| h.access), Ok(Access::ReadWrite));
    assert_eq!(std::fs::read(s.export().join("f")).expect("read"), b"abcdef");
}
