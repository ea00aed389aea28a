//! Choosing and submitting the next call.

use super::{split, Op, Phase, Submitted, Worker};
use bytes::Bytes;
use fio_job::Rw;
use nfs_client::StableHow;
use std::time::Instant;

const READ: usize = 0;
const WRITE: usize = 1;

impl Worker {
    /// The next call of the current phase, or `None` when the phase has nothing more to issue.
    pub(super) fn next_op(&mut self) -> Option<Op> {
        if let Some(&op) = self.queue.front() {
            // fsync as fio does it: the COMMIT goes out once the writes before it have completed, and
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

    /// Hand `op` to the client; returns the call, its submission latency and when it was submitted.
    /// As in fio, filling a write buffer (verify patterns) happens before the submission clock starts.
    pub(super) fn submit(&mut self, op: Op) -> (Submitted, u64, Instant) {
        let data = match op {
            Op::Write { offset, len, .. } => self.write_data(offset, len),
            _ => Bytes::new(),
        };
        let before = Instant::now();
        let submitted = match op {
            Op::Read { file, offset, len } => {
                let fh = &self.files[file].fh;
                Submitted::Read(
                    split::pieces(offset, len, self.client.rsize())
                        .map(|(at, n)| (self.client.submit_read(fh, at, n as u32), n))
                        .collect(),
                )
            }
            Op::Write { file, offset, .. } => {
                self.wrote = true;
                // A direct write is stable when acknowledged (what O_DIRECT through the Linux client gives
                // for a single-RPC write); buffered writes are UNSTABLE and committed on fsync or close.
                let stable = if self.spec.direct { StableHow::FileSync } else { StableHow::Unstable };
                let fh = &self.files[file].fh;
                let submitted = split::pieces(offset, data.len() as u64, self.client.wsize())
                    .map(|(at, n)| {
                        let start = (at - offset) as usize;
                        (self.client.submit_write(fh, at, data.slice(start..start + n as usize), stable), n)
                    })
                    .collect();
                self.state[file].writes_in_flight += 1;
                self.count_write_for_sync(file);
                Submitted::Write(submitted)
            }
            Op::Sync { file } => Submitted::Sync(self.client.submit_commit(&self.files[file].fh, 0, 0)),
        };
        let after = Instant::now();
        (submitted, super::nanos(after - before), after)
    }

    fn write_data(&mut self, offset: u64, len: u64) -> Bytes {
        match self.verifier {
            Some(verifier) => {
                let mut buf = vec![0u8; len as usize];
                verifier.fill(&mut buf, offset, self.rng.u64(..));
                Bytes::from(buf)
            }
            None => self.filler.slice(..len as usize),
        }
    }

    /// `fsync=N` / `fdatasync=N`: a COMMIT after every N writes to a file.
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

    /// Read back every unit written, in runs of up to the largest read size.
    pub(super) fn queue_verify_reads(&mut self) {
        let Some(verifier) = self.verifier else { return };
        let unit = verifier.interval();
        let largest = self.sizers[READ].max().max(self.sizers[WRITE].max()).min(u64::from(self.client.rsize()));
        let max_units = (largest / unit).max(1);
        for (file, state) in self.state.iter().enumerate() {
            let Some(map) = &state.written else { continue };
            let region = self.files[file].region;
            for (first, count) in map.runs(max_units) {
                let offset = region.start + first * unit;
                let end = (offset + count * unit).min(region.start + region.len);
                self.queue.push_back(Op::Read { file, offset, len: end - offset });
            }
        }
    }

    /// COMMIT what is still unstable, and every written file under `end_fsync`.
    pub(super) fn queue_closing_syncs(&mut self) {
        for (file, state) in self.state.iter().enumerate() {
            if state.unstable.is_some() || (self.spec.end_fsync && self.wrote) {
                self.queue.push_back(Op::Sync { file });
            }
        }
    }
}
