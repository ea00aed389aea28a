//! Choosing the next I/O, and the queued ones (syncs, verify reads, closing syncs).

use super::{CloneCore, Op, Phase};
use fio_job::Rw;

const READ: usize = 0;
const WRITE: usize = 1;

impl CloneCore {
    /// The next I/O of the current phase, or `None` when the phase has nothing more to issue now.
    pub fn next_op(&mut self) -> Option<Op> {
        if let Some(&op) = self.queue.front() {
            // fsync as fio does it: the sync goes out once the writes before it have completed, and
            // nothing is issued past it until then.
            if let Op::Sync { file } = op {
                if self.state[file].writes_in_flight > 0 {
                    return None;
                }
            }
            return self.queue.pop_front();
        }
        if self.phase != Phase::Io || self.stopping {
            return None;
        }
        let direction = match self.spec.rw {
            Rw::Read | Rw::RandRead => READ,
            Rw::Write | Rw::RandWrite => WRITE,
            Rw::ReadWrite | Rw::RandRw => {
                if self.rng.u8(0..100) < self.spec.rwmixread {
                    READ
                } else {
                    WRITE
                }
            }
        };
        let len = self.sizers[direction].next(&mut self.rng);
        let place = match self.next_place(len) {
            Some(place) => place,
            None => {
                self.stopping = true;
                return None;
            }
        };
        self.issued_in_pass += place.len;
        Some(if direction == READ {
            Op::Read { file: place.file, offset: place.offset, len: place.len }
        } else {
            Op::Write { file: place.file, offset: place.offset, len: place.len }
        })
    }

    /// A place in the current pass; when the pass is over (budget spent or every block visited), start
    /// the next one if loops remain or the job is time based.
    fn next_place(&mut self, len: u64) -> Option<crate::offsets::Place> {
        for _ in 0..2 {
            if self.issued_in_pass < self.pass_bytes {
                if let Some(place) = self.plan.next(len, &mut self.rng) {
                    return Some(place);
                }
            }
            if !self.spec.time_based {
                self.passes_left = self.passes_left.saturating_sub(1);
                if self.passes_left == 0 {
                    return None;
                }
            }
            self.plan.restart();
            self.issued_in_pass = 0;
        }
        None
    }

    /// An engine handed `op` to its transport, with `in_flight` I/Os now outstanding (this one included).
    pub fn submitted(&mut self, op: Op, in_flight: u32) {
        self.recorder.record_depth(in_flight);
        if let Op::Write { file, .. } = op {
            self.wrote = true;
            self.state[file].writes_in_flight += 1;
            self.count_write_for_sync(file);
        }
    }

    /// Whether each write needs bytes of its own ([`CloneCore::fill_write`]: verify units, or
    /// `refill_buffers`) rather than the shared `filler`.
    pub fn fills_writes(&self) -> bool {
        self.verifier.is_some() || self.refill.is_some()
    }

    /// Fill a write buffer for `offset`: with verify units, or under `refill_buffers` with fresh random
    /// bytes; otherwise a no-op (the buffer's random bytes are reused, as fio reuses its buffers). Called
    /// before the submission clock starts, as fio fills its buffers.
    pub fn fill_write(&mut self, buf: &mut [u8], offset: u64) {
        if let Some(verifier) = self.verifier {
            verifier.fill(buf, offset, self.rng.u64(..));
        } else if let Some(rng) = &mut self.refill {
            crate::buffers::refill(buf, rng);
        }
    }

    /// `fsync=N` / `fdatasync=N`: a sync after every N writes to a file.
    fn count_write_for_sync(&mut self, file: usize) {
        let every = match (self.spec.fsync, self.spec.fdatasync) {
            (0, 0) => return,
            (0, n) | (n, _) => n,
        };
        let state = &mut self.state[file];
        state.writes_since_sync += 1;
        if state.writes_since_sync >= every {
            state.writes_since_sync = 0;
            self.queue.push_back(Op::Sync { file });
        }
    }

    /// Whether a sync of the I/O phase is an fdatasync (`fdatasync=N` without `fsync=N`).
    pub fn data_only_sync(&self) -> bool {
        self.spec.fsync == 0 && self.spec.fdatasync > 0 && self.phase == Phase::Io
    }

    /// Read back every unit written, in runs of up to the largest I/O size (and the engine's limit).
    pub(super) fn queue_verify_reads(&mut self) {
        let Some(verifier) = self.verifier else { return };
        let unit = verifier.interval();
        let largest = self.largest_io().min(self.max_read);
        let max_units = (largest / unit).max(1);
        for (file, state) in self.state.iter().enumerate() {
            let Some(map) = &state.written else { continue };
            let region = self.regions[file];
            for (first, count) in map.runs(max_units) {
                let offset = region.start + first * unit;
                let end = (offset + count * unit).min(region.start + region.len);
                self.queue.push_back(Op::Read { file, offset, len: end - offset });
            }
        }
    }

    /// Sync what an engine marked dirty, and every written file under `end_fsync`.
    pub(super) fn queue_closing_syncs(&mut self) {
        for (file, state) in self.state.iter().enumerate() {
            if state.dirty || (self.spec.end_fsync && self.wrote) {
                self.queue.push_back(Op::Sync { file });
            }
        }
    }
}
