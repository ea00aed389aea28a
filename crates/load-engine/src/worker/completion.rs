//! What a finished call means: statistics, verification, short transfers, and stability.

use super::{nanos, Done, Op, Reply, Worker};
use crate::error::{errno_of, EIO};
use nfs_client::StableHow;
use report::Dir;
use std::time::Instant;

impl Worker {
    pub(super) fn complete(&mut self, done: Done, now: Instant) {
        let clat_ns = nanos(now.saturating_duration_since(done.submitted_at));
        if let Op::Write { file, .. } = done.op {
            self.state[file].writes_in_flight -= 1;
        }
        let reply = match done.result {
            Ok(reply) => reply,
            Err(e) => {
                let what = match done.op {
                    Op::Read { file, offset, len } => {
                        format!("read of {len} bytes at {offset} in '{}'", self.name(file))
                    }
                    Op::Write { file, offset, len } => {
                        format!("write of {len} bytes at {offset} in '{}'", self.name(file))
                    }
                    Op::Sync { file } => format!("commit of '{}'", self.name(file)),
                };
                self.fail(errno_of(&e), format!("{what}: {e}"));
                return;
            }
        };
        match (done.op, reply) {
            (Op::Read { file, offset, len }, Reply::Read(read)) => {
                let got = read.data.len() as u64;
                self.recorder.record_io(Dir::Read, got, done.slat_ns, clat_ns, now);
                self.live.add(Dir::Read, got);
                if let Some(verifier) = self.verifier {
                    if got < len {
                        self.verify_failed(format!(
                            "short read in '{}' at offset {offset}: {got} of {len} bytes (eof {})",
                            self.name(file),
                            read.eof
                        ));
                    } else if let Err(failure) = verifier.check(&read.data, offset) {
                        self.verify_failed(format!("'{}': {failure}", self.name(file)));
                    }
                }
            }
            (Op::Write { file, offset, len }, Reply::Write(write)) => {
                let count = u64::from(write.count).min(len);
                self.recorder.record_io(Dir::Write, count, done.slat_ns, clat_ns, now);
                self.live.add(Dir::Write, count);
                if write.committed == StableHow::Unstable {
                    self.note_unstable(file, write.verifier);
                }
                if count < len {
                    if self.verifier.is_some() {
                        let msg = format!("short write in '{}' at {offset}: {count} of {len} bytes", self.name(file));
                        self.fail(EIO, msg);
                        return;
                    }
                    // RFC 1813 §3.3.7: the server may write less than asked; the client sends the rest.
                    self.queue.push_front(Op::Write { file, offset: offset + count, len: len - count });
                }
                if let (Some(verifier), Some(map)) = (self.verifier, self.state[file].written.as_mut()) {
                    let region = self.files[file].region;
                    let first = (offset - region.start) / verifier.interval();
                    map.set_range(first, count.div_ceil(verifier.interval()));
                }
            }
            (Op::Sync { file }, Reply::Sync(verifier)) => {
                self.recorder.record_sync(nanos(now.saturating_duration_since(done.submitted_at)) + done.slat_ns);
                if let Some(written_under) = self.state[file].unstable.take() {
                    // RFC 1813 §3.3.21: a changed verifier means the server restarted and may have lost
                    // the unstable data; the data is not stable and the run is not trustworthy.
                    if written_under != verifier {
                        let msg = format!(
                            "'{}': the server's write verifier changed before COMMIT: unstable writes may be lost",
                            self.name(file)
                        );
                        self.fail(EIO, msg);
                    }
                }
            }
            _ => self.fail(EIO, "a reply of the wrong kind came back for a call".into()),
        }
    }

    fn note_unstable(&mut self, file: usize, verifier: [u8; 8]) {
        let state = &mut self.state[file];
        match state.unstable {
            Some(earlier) if earlier != verifier => {
                let msg = format!("'{}': the server's write verifier changed between WRITEs", self.name(file));
                self.fail(EIO, msg);
            }
            _ => state.unstable = Some(verifier),
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

    fn name(&self, file: usize) -> &str {
        &self.files[file].name
    }
}
