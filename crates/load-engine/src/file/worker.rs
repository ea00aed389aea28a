//! One job clone of the file engine on its own OS thread, as fio runs a job: its files opened
//! (`O_DIRECT` under `direct=1`), one ring of `iodepth` entries, one aligned buffer per entry filled
//! with random bytes once (fio reuses its buffers; under `refill_buffers` each write's bytes are
//! generated afresh), `iodepth` I/Os kept in flight.
//!
//! As fio's defaults (`iodepth_batch_submit=1`, `iodepth_batch_complete_min=1`, `_max=iodepth`): each
//! I/O is submitted as soon as it is prepared; when the ring is full (or the phase has nothing more to
//! issue yet), the thread waits for at least one completion and reaps every one that is ready. Timing as
//! fio's io_uring engine: slat from preparing the I/O to its submission returning, clat from there to
//! the completion being reaped (one clock reading per reap, as fio takes one per batch).

use super::layout::LocalFile;
use crate::clone_core::{nanos, start_delay, CloneCore, CloneSetup, Op, Outcome, Phase, WorkerOutcome};
use crate::error::EIO;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::time::Instant;
use uring_io::{AlignedBuf, Completion, FileId, Ring};

/// An I/O in the ring: what it is and its timing.
#[derive(Debug, Clone, Copy)]
struct InFlight {
    op: Op,
    slat_ns: u64,
    submitted_at: Instant,
}

/// Run one clone to the end on the calling thread.
pub(super) fn run(files: Vec<LocalFile>, setup: CloneSetup) -> WorkerOutcome {
    std::thread::sleep(start_delay(&setup.spec, setup.seed));
    let mut core = CloneCore::new(setup, Instant::now());
    let depth = core.spec.iodepth.clamp(1, 4096);
    let opened = open_all(&files, &core)
        .and_then(|fds| Ring::new(depth, fds).map_err(|e| format!("setting up an io_uring of {depth} entries: {e}")));
    core.begin();
    match opened {
        Ok(ring) => {
            let align = files.iter().map(|f| f.align).max().unwrap_or(super::layout::PAGE);
            let mut worker = Worker::new(core, ring, align);
            let mut phase = Some(Phase::Io);
            while let Some(current) = phase {
                worker.run_phase();
                phase = worker.core.next_phase(current);
            }
            worker.core.finish()
        }
        Err(message) => {
            core.fail(EIO, message);
            let mut phase = Some(Phase::Close);
            while let Some(current) = phase {
                phase = core.next_phase(current);
            }
            core.finish()
        }
    }
}

/// The clone's files, opened as its job asks.
fn open_all(files: &[LocalFile], core: &CloneCore) -> Result<Vec<File>, String> {
    let spec = &core.spec;
    files
        .iter()
        .map(|f| {
            let mut options = OpenOptions::new();
            options.read(true).write(spec.rw.writes());
            if spec.direct {
                options.custom_flags(uring_io::facts::O_DIRECT);
            }
            options.open(&f.path).map_err(|e| format!("opening '{}': {e}", f.path.display()))
        })
        .collect()
}

struct Worker {
    core: CloneCore,
    ring: Ring,
    /// Buffers not in the ring.
    free: Vec<AlignedBuf>,
    /// Indexed by the token given to the ring.
    slots: Vec<Option<InFlight>>,
    free_tokens: Vec<u64>,
    reaped: Vec<Completion>,
}

impl Worker {
    fn new(core: CloneCore, ring: Ring, align: usize) -> Worker {
        let depth = ring.depth();
        let size = (core.largest_io() as usize).div_ceil(align) * align;
        let free = (0..depth)
            .map(|_| {
                let mut buf = AlignedBuf::new(size, align);
                for piece in buf.chunks_mut(core.filler.len().max(1)) {
                    piece.copy_from_slice(&core.filler[..piece.len()]);
                }
                buf
            })
            .collect();
        Worker {
            core,
            ring,
            free,
            slots: vec![None; depth],
            free_tokens: (0..depth as u64).rev().collect(),
            reaped: Vec::with_capacity(depth),
        }
    }

    /// Keep up to iodepth I/Os in flight until the phase has nothing more to issue and all are reaped.
    fn run_phase(&mut self) {
        loop {
            while self.ring.in_flight() < self.ring.depth() {
                let Some(op) = self.core.next_op() else { break };
                if !self.submit(op) {
                    break;
                }
            }
            if self.ring.in_flight() == 0 {
                break;
            }
            // As fio's io_uring getevents: look at the completion queue first, enter the kernel to wait
            // only when it is empty.
            let waited = if self.ring.ready() > 0 { Ok(0) } else { self.ring.submit_and_wait(1) };
            if let Err(e) = waited {
                self.core.fail(EIO, format!("waiting for completions: {e}"));
                self.abandon();
                break;
            }
            self.ring.reap(&mut self.reaped);
            let now = Instant::now();
            self.core.on_clock(now);
            let mut reaped = std::mem::take(&mut self.reaped);
            for completion in reaped.drain(..) {
                self.complete(completion, now);
            }
            self.reaped = reaped;
        }
    }

    /// Prepare and submit `op`; false when it could not be (the clone then has failed).
    fn submit(&mut self, op: Op) -> bool {
        let (Some(token), Some(mut buf)) = (self.free_tokens.pop(), self.free.pop()) else {
            self.core.fail(EIO, "no free buffer for an I/O (a bug)".into());
            return false;
        };
        if let Op::Write { offset, len, .. } = op {
            // Verify units or refill_buffers' fresh bytes go in before the submission clock starts, as fio
            // fills its buffers.
            self.core.fill_write(&mut buf[..len as usize], offset);
        }
        let before = Instant::now();
        let queued = match op {
            Op::Read { file, offset, len } => self.ring.read(FileId(file as u32), offset, buf, len as u32, token),
            Op::Write { file, offset, len } => self.ring.write(FileId(file as u32), offset, buf, len as u32, token),
            Op::Sync { file } => {
                self.free.push(buf);
                self.ring.fsync(FileId(file as u32), self.core.data_only_sync(), token)
            }
        };
        if let Err(refused) = queued {
            self.free.extend(refused.buf);
            self.free_tokens.push(token);
            self.core.fail(EIO, format!("queueing an I/O: {}", refused.why));
            return false;
        }
        if let Err(e) = self.ring.submit() {
            self.core.fail(e.raw_os_error().unwrap_or(EIO), format!("submitting an I/O: {e}"));
        }
        let after = Instant::now();
        self.slots[token as usize] = Some(InFlight { op, slat_ns: nanos(after - before), submitted_at: after });
        self.core.submitted(op, self.ring.in_flight() as u32);
        true
    }

    fn complete(&mut self, completion: Completion, now: Instant) {
        let Completion { token, result, buf } = completion;
        let Some(InFlight { op, slat_ns, submitted_at }) = self.slots.get_mut(token as usize).and_then(Option::take)
        else {
            return;
        };
        self.free_tokens.push(token);
        let outcome = match (&result, op) {
            (Err(e), _) => Outcome::Failed { errno: e.raw_os_error().unwrap_or(EIO), error: e.to_string() },
            (Ok(n), Op::Read { .. }) => {
                let data = buf.as_deref().map_or(&[][..], |b| &b[..(*n as usize).min(b.len())]);
                Outcome::Read { data, eof: None }
            }
            (Ok(n), Op::Write { .. }) => Outcome::Write { count: u64::from(*n) },
            (Ok(_), Op::Sync { .. }) => Outcome::Sync,
        };
        self.core.complete(op, outcome, slat_ns, submitted_at, now);
        self.free.extend(buf);
    }

    /// The ring cannot be waited on: nothing in flight is accounted, the ring's drop waits for it.
    fn abandon(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
    }
}
