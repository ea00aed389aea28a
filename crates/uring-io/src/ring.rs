//! One io_uring over a set of registered files. The ring owns what the kernel may touch while an
//! operation is in flight — the buffer of each read and write, and the files — and hands each buffer
//! back with its completion; its `Drop` waits for every operation still in flight.

use crate::buffer::AlignedBuf;
use io_uring::{opcode, squeue, types, IoUring};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// A file registered with a [`Ring`]: its index in the files the ring was made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileId(pub u32);

/// A finished operation: the caller's token, the kernel's result (bytes moved, or 0 for fsync) and the
/// buffer the operation held.
#[derive(Debug)]
pub struct Completion {
    pub token: u64,
    pub result: io::Result<u32>,
    pub buf: Option<AlignedBuf>,
}

/// Why an operation was not queued, with its buffer given back.
#[derive(Debug)]
pub struct Refused {
    pub why: &'static str,
    pub buf: Option<AlignedBuf>,
}

/// What a slot of the ring holds while its operation is in flight.
#[derive(Debug)]
struct Slot {
    token: u64,
    buf: Option<AlignedBuf>,
}

/// An io_uring of `depth` entries; at most `depth` operations are in flight at once. A ring is used by
/// the thread that made it (it is set up single-issuer, as fio's): submitting from another thread fails
/// with an error, nothing worse.
pub struct Ring {
    ring: IoUring,
    files: Vec<File>,
    slots: Vec<Option<Slot>>,
    free: Vec<u32>,
    in_flight: usize,
    /// Queued but not yet handed to the kernel by `submit`.
    queued: usize,
}

impl std::fmt::Debug for Ring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ring")
            .field("depth", &self.slots.len())
            .field("files", &self.files.len())
            .field("in_flight", &self.in_flight)
            .finish()
    }
}

impl Ring {
    /// A ring of `depth` entries (1..=4096) with `files` registered, in order ([`FileId`] 0, 1, ...).
    pub fn new(depth: u32, files: Vec<File>) -> io::Result<Ring> {
        let depth = depth.clamp(1, 4096);
        let cq = depth.saturating_mul(2).max(2);
        // As fio's io_uring engine sets it up: completions are posted when the issuing thread asks for
        // them (it enters with GETEVENTS at every submission) rather than by interrupting it. Kernels
        // before 6.1 lack DEFER_TASKRUN: then the plain ring.
        let ring = match IoUring::builder()
            .setup_cqsize(cq)
            .setup_coop_taskrun()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(depth)
        {
            Ok(ring) => ring,
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => IoUring::builder().setup_cqsize(cq).build(depth)?,
            Err(e) => return Err(e),
        };
        if !files.is_empty() {
            let fds: Vec<i32> = files.iter().map(|f| f.as_raw_fd()).collect();
            ring.submitter().register_files(&fds)?;
        }
        Ok(Ring {
            ring,
            files,
            slots: (0..depth).map(|_| None).collect(),
            free: (0..depth).rev().collect(),
            in_flight: 0,
            queued: 0,
        })
    }

    /// The most operations in flight at once.
    pub fn depth(&self) -> usize {
        self.slots.len()
    }

    /// Operations queued or submitted and not yet reaped.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// A registered file.
    pub fn file(&self, id: FileId) -> Option<&File> {
        self.files.get(id.0 as usize)
    }

    /// Queue a read of `len` bytes at `offset` of `file` into the start of `buf`.
    pub fn read(&mut self, file: FileId, offset: u64, buf: AlignedBuf, len: u32, token: u64) -> Result<(), Refused> {
        self.queue_buffered(file, offset, buf, len, token, true)
    }

    /// Queue a write of the first `len` bytes of `buf` at `offset` of `file`.
    pub fn write(&mut self, file: FileId, offset: u64, buf: AlignedBuf, len: u32, token: u64) -> Result<(), Refused> {
        self.queue_buffered(file, offset, buf, len, token, false)
    }

    /// Queue an fsync (`data_only`: fdatasync) of `file`.
    pub fn fsync(&mut self, file: FileId, data_only: bool, token: u64) -> Result<(), Refused> {
        if !self.has_file(file) {
            return Err(Refused { why: "no such registered file", buf: None });
        }
        let flags = if data_only { types::FsyncFlags::DATASYNC } else { types::FsyncFlags::empty() };
        let entry = opcode::Fsync::new(types::Fixed(file.0)).flags(flags).build();
        self.push(entry, Slot { token, buf: None })
    }

    fn queue_buffered(
        &mut self,
        file: FileId,
        offset: u64,
        mut buf: AlignedBuf,
        len: u32,
        token: u64,
        read: bool,
    ) -> Result<(), Refused> {
        if len as usize > buf.len() {
            return Err(Refused { why: "the length is larger than the buffer", buf: Some(buf) });
        }
        if !self.has_file(file) {
            return Err(Refused { why: "no such registered file", buf: Some(buf) });
        }
        let ptr = buf.as_mut_ptr();
        let entry = if read {
            opcode::Read::new(types::Fixed(file.0), ptr, len).offset(offset).build()
        } else {
            opcode::Write::new(types::Fixed(file.0), ptr, len).offset(offset).build()
        };
        // The buffer moves into the slot: its heap block, which `ptr` points into, does not move.
        self.push(entry, Slot { token, buf: Some(buf) })
    }

    fn has_file(&self, file: FileId) -> bool {
        (file.0 as usize) < self.files.len()
    }

    fn push(&mut self, entry: squeue::Entry, slot: Slot) -> Result<(), Refused> {
        let Some(index) = self.free.pop() else {
            return Err(Refused { why: "the ring is full", buf: slot.buf });
        };
        let entry = entry.user_data(u64::from(index));
        // SAFETY: the entry points at a buffer (when it has one) that the slot below owns until the
        // completion with this index is reaped, or until Drop has waited for it; it names a registered
        // file that the ring keeps open as long as itself. The submission queue holds `depth` entries and
        // at most `depth` slots are taken, so the push cannot find the queue full.
        #[allow(unsafe_code)]
        let pushed = unsafe { self.ring.submission().push(&entry) };
        if pushed.is_err() {
            self.free.push(index);
            return Err(Refused { why: "the submission queue is full", buf: slot.buf });
        }
        self.slots[index as usize] = Some(slot);
        self.in_flight += 1;
        self.queued += 1;
        Ok(())
    }

    /// Hand the queued operations to the kernel and collect the completions ready by then; returns how
    /// many operations it took.
    pub fn submit(&mut self) -> io::Result<usize> {
        self.enter(0)
    }

    /// Hand the queued operations to the kernel and wait until at least `want` completions are ready
    /// (at most the operations in flight).
    pub fn submit_and_wait(&mut self, want: usize) -> io::Result<usize> {
        self.enter(want.min(self.in_flight))
    }

    /// io_uring_enter with GETEVENTS (deferred completions are posted only on such an enter), as fio
    /// submits.
    fn enter(&mut self, want: usize) -> io::Result<usize> {
        /// IORING_ENTER_GETEVENTS (include/uapi/linux/io_uring.h).
        const GETEVENTS: u32 = 1;
        let to_submit = self.queued as u32;
        let want = want as u32;
        let submitter = self.ring.submitter();
        // SAFETY: no argument pointer is passed (None); every entry handed over points at a buffer that
        // its slot owns until the completion is reaped (see push).
        #[allow(unsafe_code)]
        let n = retry(|| unsafe { submitter.enter::<libc::sigset_t>(to_submit, want, GETEVENTS, None) })?;
        self.queued = self.queued.saturating_sub(n);
        Ok(n)
    }

    /// Completions ready to be reaped now (no system call).
    pub fn ready(&mut self) -> usize {
        self.ring.completion().len()
    }

    /// Move every ready completion to `out`.
    pub fn reap(&mut self, out: &mut Vec<Completion>) {
        for cqe in self.ring.completion() {
            let index = cqe.user_data() as usize;
            let Some(slot) = self.slots.get_mut(index).and_then(Option::take) else { continue };
            self.free.push(index as u32);
            self.in_flight -= 1;
            let result = match cqe.result() {
                r if r < 0 => Err(io::Error::from_raw_os_error(-r)),
                r => Ok(r as u32),
            };
            out.push(Completion { token: slot.token, result, buf: slot.buf });
        }
    }
}

/// A system call again while a signal interrupted it.
fn retry(mut call: impl FnMut() -> io::Result<usize>) -> io::Result<usize> {
    loop {
        match call() {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        let mut done = Vec::new();
        while self.in_flight > 0 {
            if self.submit_and_wait(1).is_err() {
                // The kernel may still write into the buffers it holds: leak them rather than free them.
                for slot in self.slots.iter_mut().filter_map(Option::take) {
                    std::mem::forget(slot.buf);
                }
                return;
            }
            self.reap(&mut done);
            done.clear();
        }
    }
}
