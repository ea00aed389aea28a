//! The ring and the buffers against real files under /var/tmp (tmpfs may refuse O_DIRECT).

use crate::{facts, AlignedBuf, FileId, Ring};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

/// A file of `len` bytes (byte i = i mod 251) under /var/tmp, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, len: usize) -> TempFile {
        let path = std::env::temp_dir().join(format!("uring-io-{tag}-{}", std::process::id()));
        let path = if path.starts_with("/tmp") {
            PathBuf::from("/var/tmp").join(path.file_name().expect("name"))
        } else {
            path
        };
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        File::create(&path).and_then(|mut f| f.write_all(&data)).expect("test file written");
        TempFile(path)
    }

    fn open(&self, direct: bool) -> File {
        let mut options = OpenOptions::new();
        options.read(true).write(true);
        if direct {
            options.custom_flags(facts::O_DIRECT);
        }
        options.open(&self.0).expect("test file opens")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn buffers_are_aligned_zeroed_and_of_the_asked_length() {
    for align in [512, 4096, 65536] {
        let buf = AlignedBuf::new(12_345, align);
        assert_eq!(buf.as_ptr() as usize % align, 0);
        assert_eq!((buf.len(), buf.align()), (12_345, align));
        assert!(buf.iter().all(|b| *b == 0));
    }
}

#[test]
fn reads_come_back_with_their_buffer_token_and_data() {
    let file = TempFile::new("read", 1 << 20);
    let mut ring = Ring::new(8, vec![file.open(true)]).expect("ring");
    for i in 0..8u64 {
        ring.read(FileId(0), i * 65536, AlignedBuf::new(4096, 4096), 4096, 100 + i).expect("queued");
    }
    assert!(ring.read(FileId(0), 0, AlignedBuf::new(4096, 4096), 4096, 9).is_err(), "a ninth is refused");
    let mut done = Vec::new();
    while done.len() < 8 {
        ring.submit_and_wait(1).expect("submit");
        ring.reap(&mut done);
    }
    assert_eq!(ring.in_flight(), 0);
    done.sort_by_key(|c| c.token);
    for (i, c) in done.iter().enumerate() {
        assert_eq!(c.token, 100 + i as u64);
        assert_eq!(*c.result.as_ref().expect("read ok"), 4096);
        let buf = c.buf.as_ref().expect("buffer back");
        assert_eq!(buf[0], ((i * 65536) % 251) as u8);
        assert_eq!(buf[4095], ((i * 65536 + 4095) % 251) as u8);
    }
}

#[test]
fn writes_and_fsync_land_in_the_file() {
    let file = TempFile::new("write", 8192);
    let mut ring = Ring::new(4, vec![file.open(false)]).expect("ring");
    let mut buf = AlignedBuf::new(4096, 4096);
    buf.fill(0xab);
    ring.write(FileId(0), 4096, buf, 100, 1).expect("queued");
    ring.submit_and_wait(1).expect("submit");
    let mut done = Vec::new();
    ring.reap(&mut done);
    assert_eq!(*done[0].result.as_ref().expect("written"), 100);
    ring.fsync(FileId(0), true, 2).expect("queued");
    ring.submit_and_wait(1).expect("submit");
    ring.reap(&mut done);
    assert_eq!((done[1].token, done[1].result.as_ref().ok()), (2, Some(&0)));
    let back = std::fs::read(&file.0).expect("read back");
    assert!(back[4096..4196].iter().all(|b| *b == 0xab));
    assert_eq!(back[4196], (4196 % 251) as u8);
}

#[test]
fn an_error_comes_back_as_the_errno_with_the_buffer() {
    let file = TempFile::new("einval", 8192);
    let mut ring = Ring::new(2, vec![file.open(true)]).expect("ring");
    // O_DIRECT at an offset that is no multiple of any block size.
    ring.read(FileId(0), 1, AlignedBuf::new(4096, 4096), 4096, 7).expect("queued");
    ring.submit_and_wait(1).expect("submit");
    let mut done = Vec::new();
    ring.reap(&mut done);
    assert_eq!(done[0].result.as_ref().map_err(|e| e.raw_os_error()).unwrap_err(), Some(libc::EINVAL));
    assert!(done[0].buf.is_some());
}

#[test]
fn unknown_files_and_short_buffers_are_refused_with_the_buffer_back() {
    let file = TempFile::new("refuse", 4096);
    let mut ring = Ring::new(2, vec![file.open(false)]).expect("ring");
    let refused = ring.read(FileId(3), 0, AlignedBuf::new(512, 512), 512, 0).unwrap_err();
    assert_eq!((refused.why, refused.buf.map(|b| b.len())), ("no such registered file", Some(512)));
    let refused = ring.write(FileId(0), 0, AlignedBuf::new(512, 512), 4096, 0).unwrap_err();
    assert!(refused.why.contains("larger than the buffer"));
    assert_eq!(ring.in_flight(), 0);
}

#[test]
fn dropping_a_ring_waits_for_what_is_in_flight() {
    let file = TempFile::new("drop", 1 << 20);
    let mut ring = Ring::new(16, vec![file.open(false)]).expect("ring");
    for i in 0..16 {
        ring.read(FileId(0), i * 4096, AlignedBuf::new(65536, 4096), 65536, i).expect("queued");
    }
    ring.submit().expect("submit");
    drop(ring);
}

#[test]
fn a_regular_file_is_not_a_block_device() {
    let file = TempFile::new("facts", 4096);
    assert!(facts::block_device_size(&file.open(false)).is_err());
    facts::drop_cached_pages(&file.open(false)).expect("fadvise works on a regular file");
}
