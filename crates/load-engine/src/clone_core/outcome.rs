//! What a finished I/O means, whatever carried it: statistics, verification, short transfers.

use super::{nanos, CloneCore, Op};
use crate::error::EIO;
use report::Dir;
use std::time::Instant;

/// How an I/O ended, as an engine saw it.
#[derive(Debug)]
pub enum Outcome<'a> {
    /// A read: the bytes that came back (fewer than asked at the end of a file); `eof` when the
    /// transport says whether the end of the file was reached.
    Read { data: &'a [u8], eof: Option<bool> },
    /// A write: the bytes written.
    Write { count: u64 },
    /// A sync (fsync, fdatasync, COMMIT).
    Sync,
    /// The I/O failed: an errno-like code and what went wrong.
    Failed { errno: i32, error: String },
}

impl CloneCore {
    /// Account for `op`, submitted at `submitted_at` after `slat_ns` of preparation, ending `now`.
    pub fn complete(&mut self, op: Op, outcome: Outcome<'_>, slat_ns: u64, submitted_at: Instant, now: Instant) {
        let clat_ns = nanos(now.saturating_duration_since(submitted_at));
        if let Op::Write { file, .. } = op {
            self.state[file].writes_in_flight -= 1;
        }
        match (op, outcome) {
            (_, Outcome::Failed { errno, error }) => {
                let what = match op {
                    Op::Read { file, offset, len } => {
                        format!("read of {len} bytes at {offset} in '{}'", self.name(file))
                    }
                    Op::Write { file, offset, len } => {
                        format!("write of {len} bytes at {offset} in '{}'", self.name(file))
                    }
                    Op::Sync { file } => format!("sync of '{}'", self.name(file)),
                };
                self.fail(errno, format!("{what}: {error}"));
            }
            (Op::Read { file, offset, len }, Outcome::Read { data, eof }) => {
                let got = data.len() as u64;
                self.recorder.record_io(Dir::Read, got, slat_ns, clat_ns, now);
                self.live.add(Dir::Read, got);
                if let Some(verifier) = self.verifier {
                    if got < len {
                        let eof = eof.map_or_else(String::new, |e| format!(" (eof {e})"));
                        self.verify_failed(format!(
                            "short read in '{}' at offset {offset}: {got} of {len} bytes{eof}",
                            self.name(file)
                        ));
                    } else if let Err(failure) = verifier.check(data, offset) {
                        self.verify_failed(format!("'{}': {failure}", self.name(file)));
                    }
                }
            }
            (Op::Write { file, offset, len }, Outcome::Write { count }) => {
                let count = count.min(len);
                self.recorder.record_io(Dir::Write, count, slat_ns, clat_ns, now);
                self.live.add(Dir::Write, count);
                if count < len {
                    if self.verifier.is_some() {
                        let msg = format!("short write in '{}' at {offset}: {count} of {len} bytes", self.name(file));
                        self.fail(EIO, msg);
                        return;
                    }
                    // A short write is finished by writing the rest (RFC 1813 §3.3.7 for NFS, as fio
                    // requeues the residual of a short write).
                    self.queue.push_front(Op::Write { file, offset: offset + count, len: len - count });
                }
                if let (Some(verifier), Some(map)) = (self.verifier, self.state[file].written.as_mut()) {
                    let region = self.regions[file];
                    let first = (offset - region.start) / verifier.interval();
                    map.set_range(first, count.div_ceil(verifier.interval()));
                }
            }
            (Op::Sync { file }, Outcome::Sync) => {
                self.recorder.record_sync(clat_ns.saturating_add(slat_ns));
                self.state[file].dirty = false;
            }
            _ => self.fail(EIO, "an outcome of the wrong kind came back for an I/O".into()),
        }
    }

    fn verify_failed(&mut self, message: String) {
        self.verify_errors += 1;
        if self.verify_errors <= 10 {
            tracing::error!("job '{}': verify: {message}", self.spec.name);
        }
        if self.spec.verify_fatal {
            self.fail(crate::error::EILSEQ, format!("verify: {message}"));
        } else if self.error.is_none() {
            self.error = Some(format!("verify: {message}"));
        }
    }
}
