//! GETATTR, SETATTR, times, FSSTAT and the per-instance values.

use nfs3_proto::{Ftype3, NfsErr3, NfsTime3, Sattr3, SetTime3, StableHow};

use super::super::pages::PAGE_SIZE;
use super::{backend, create, new_dir, new_file, read_all, MIB};
use crate::backend::mem::MemBackend;
use crate::backend::{Backend, Caller, NewNode};

const OLD: NfsTime3 = NfsTime3 { seconds: 1_000, nseconds: 5 };

fn set_times(b: &MemBackend, file: crate::backend::FileId, atime: NfsTime3, mtime: NfsTime3) {
    let attrs = Sattr3 {
        atime: SetTime3::SetToClientTime(atime),
        mtime: SetTime3::SetToClientTime(mtime),
        ..Sattr3::default()
    };
    b.setattr(file, &attrs).unwrap();
}

#[test]
fn root_is_a_world_writable_directory_that_is_its_own_parent() {
    let b = backend();
    let attrs = b.getattr(b.root()).unwrap();
    assert_eq!(attrs.ftype, Ftype3::Dir);
    assert_eq!((attrs.mode, attrs.nlink, attrs.fileid), (0o777, 2, b.root().id));
    assert_eq!(b.parent(b.root()), Ok(b.root()));
}

#[test]
fn getattr_reports_type_size_used_fsid_and_fileid() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, 10, b"abc", StableHow::Unstable, Caller::Privileged).unwrap();
    let attrs = b.getattr(f).unwrap();
    assert_eq!(attrs.ftype, Ftype3::Reg);
    assert_eq!((attrs.size, attrs.used, attrs.nlink, attrs.mode), (13, PAGE_SIZE as u64, 1, 0o644));
    assert_eq!(attrs.fileid, f.id);
    assert_eq!(attrs.fsid, b.getattr(b.root()).unwrap().fsid);
    assert_ne!(attrs.fileid, b.root().id);
}

#[test]
fn create_applies_the_initial_attributes_given() {
    let b = backend();
    let attrs = Sattr3 { mode: Some(0o100_600), uid: Some(1000), gid: Some(100), size: Some(5), ..Sattr3::default() };
    let f = b
        .create(b.root(), b"f", NewNode::File { exclusive: None }, crate::backend::CreateMode::Guarded, &attrs)
        .unwrap();
    let got = b.getattr(f).unwrap();
    assert_eq!((got.mode, got.uid, got.gid, got.size), (0o600, 1000, 100, 5), "file type bits are dropped");
    assert_eq!(read_all(&b, f, 0, 10), (vec![0; 5], true));
}

#[test]
fn setattr_changes_mode_owner_and_times_and_moves_ctime() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    set_times(&b, f, OLD, OLD);
    let before = b.getattr(f).unwrap();
    let attrs = Sattr3 { mode: Some(0o4755), uid: Some(7), gid: Some(8), ..Sattr3::default() };
    let after = b.setattr(f, &attrs).unwrap();
    assert_eq!((after.mode, after.uid, after.gid), (0o4755, 7, 8));
    assert_eq!((after.atime, after.mtime), (OLD, OLD));
    assert!(after.ctime >= before.ctime);
    assert!(after.ctime > OLD);
    assert_eq!(b.getattr(f).unwrap(), after);
}

#[test]
fn setattr_to_server_time_uses_the_clock_with_nanoseconds() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    set_times(&b, f, OLD, OLD);
    let now = Sattr3 { atime: SetTime3::SetToServerTime, mtime: SetTime3::SetToServerTime, ..Sattr3::default() };
    let attrs = b.setattr(f, &now).unwrap();
    assert!(attrs.mtime > OLD && attrs.atime > OLD);
    assert_eq!(attrs.mtime, attrs.ctime, "one clock reading for the whole call");
    let many: Vec<u32> = (0..20).map(|_| b.setattr(f, &now).unwrap().mtime.nseconds).collect();
    assert!(many.iter().any(|&ns| ns % 1_000_000_000 != 0 && ns % 1000 != 0), "nanosecond precision: {many:?}");
}

#[test]
fn setattr_size_on_a_directory_is_isdir_and_on_a_symlink_inval() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    let l = create(&b, b.root(), "l", NewNode::Symlink { target: b"d" });
    let size = Sattr3 { size: Some(0), ..Sattr3::default() };
    assert_eq!(b.setattr(d, &size), Err(NfsErr3::IsDir));
    assert_eq!(b.setattr(l, &size), Err(NfsErr3::Inval));
    let failed = Sattr3 { mode: Some(0o700), size: Some(0), ..Sattr3::default() };
    assert_eq!(b.setattr(d, &failed), Err(NfsErr3::IsDir));
    assert_eq!(b.getattr(d).unwrap().mode, 0o755, "a failed SETATTR changes nothing");
    b.setattr(d, &Sattr3 { mode: Some(0o700), ..Sattr3::default() }).unwrap();
    assert_eq!(b.getattr(d).unwrap().mode, 0o700);
}

#[test]
fn write_and_truncate_move_mtime_and_ctime() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    set_times(&b, f, OLD, OLD);
    let written = {
        b.write(f, 0, b"x", StableHow::Unstable, Caller::Privileged).unwrap();
        b.getattr(f).unwrap()
    };
    assert!(written.mtime > OLD);
    assert_eq!(written.mtime, written.ctime);
    set_times(&b, f, OLD, OLD);
    let truncated = b.setattr(f, &Sattr3 { size: Some(0), ..Sattr3::default() }).unwrap();
    assert!(truncated.mtime > OLD);
}

#[test]
fn reads_move_atime_only_when_it_is_not_newer_than_mtime() {
    let b = backend();
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, b"abc", StableHow::Unstable, Caller::Privileged).unwrap();
    set_times(&b, f, OLD, OLD);
    read_all(&b, f, 0, 3);
    let first = b.getattr(f).unwrap().atime;
    assert!(first > OLD, "atime was older than ctime, so the read moved it");
    set_times(&b, f, OLD, NfsTime3 { seconds: 1, nseconds: 0 });
    let ctime = b.getattr(f).unwrap().ctime;
    // atime (OLD) is now older than ctime, so the next read moves it; then it stays put.
    read_all(&b, f, 0, 3);
    let moved = b.getattr(f).unwrap().atime;
    assert!(moved >= ctime);
    read_all(&b, f, 0, 3);
    assert_eq!(b.getattr(f).unwrap().atime, moved);
}

#[test]
fn changing_a_directory_moves_its_mtime_and_ctime() {
    let b = backend();
    let d = new_dir(&b, b.root(), "d");
    set_times(&b, d, OLD, OLD);
    new_file(&b, d, "f");
    let attrs = b.getattr(d).unwrap();
    assert!(attrs.mtime > OLD);
    assert_eq!(attrs.mtime, attrs.ctime);
    set_times(&b, d, OLD, OLD);
    b.remove(d, b"f", false).unwrap();
    assert!(b.getattr(d).unwrap().mtime > OLD);
}

#[test]
fn fsstat_reports_capacity_usage_and_file_counts() {
    let b = MemBackend::with_max_files(64 * MIB, 10);
    let stats = b.fsstat().unwrap();
    assert_eq!((stats.total_bytes, stats.free_bytes, stats.avail_bytes), (64 * MIB, 64 * MIB, 64 * MIB));
    assert_eq!((stats.total_files, stats.free_files, stats.avail_files), (10, 9, 9));
    let f = new_file(&b, b.root(), "f");
    b.write(f, 0, b"x", StableHow::Unstable, Caller::Privileged).unwrap();
    let stats = b.fsstat().unwrap();
    assert_eq!(stats.free_bytes, 64 * MIB - PAGE_SIZE as u64);
    assert_eq!(stats.free_files, 8);
}

#[test]
fn describe_names_the_capacity() {
    assert_eq!(MemBackend::new(1 << 30).describe(), "mem:1GiB");
    assert_eq!(MemBackend::new(512 * MIB).describe(), "mem:512MiB");
    assert_eq!(MemBackend::new(1000).describe(), "mem:1000");
}

#[test]
fn write_verifier_and_fsid_differ_between_instances_and_stay_fixed_within_one() {
    let (a, b) = (backend(), backend());
    assert_ne!(a.write_verifier(), b.write_verifier());
    assert_eq!(a.write_verifier(), a.write_verifier());
    assert_ne!(a.getattr(a.root()).unwrap().fsid, b.getattr(b.root()).unwrap().fsid);
    assert_ne!(a.root(), b.root(), "a handle from another instance is stale");
    assert_eq!(a.getattr(b.root()), Err(NfsErr3::Stale));
}

#[test]
fn memory_backend_never_blocks_and_uses_nanosecond_times() {
    let b = backend();
    assert!(!b.may_block());
    assert_eq!(b.time_delta(), NfsTime3 { seconds: 0, nseconds: 1 });
}

#[test]
fn an_unprivileged_write_clears_set_id_bits() {
    let b = backend();
    for (mode, caller, count, expect) in [
        (0o6755, Caller::Unprivileged, 4096, 0o0755),
        (0o6745, Caller::Unprivileged, 4096, 0o2745),
        (0o4644, Caller::Unprivileged, 1, 0o0644),
        (0o6755, Caller::Unprivileged, 0, 0o6755),
        (0o6755, Caller::Privileged, 4096, 0o6755),
    ] {
        let f = new_file(&b, b.root(), &format!("f{mode:o}{caller:?}{count}"));
        b.setattr(f, &Sattr3 { mode: Some(mode), ..Sattr3::default() }).expect("chmod");
        b.write(f, 0, &vec![1; count], StableHow::Unstable, caller).expect("write");
        assert_eq!(b.getattr(f).map(|a| a.mode), Ok(expect), "{mode:o} {caller:?} {count} bytes");
    }
}
