//! What an NFS reply means beyond the clone's bookkeeping: the write verifier of UNSTABLE data.

use super::{Done, Reply, Worker};
use crate::clone_core::{Op, Outcome};
use crate::error::{errno_of, EIO};
use nfs_client::StableHow;
use std::time::Instant;

impl Worker {
    pub(super) fn complete(&mut self, done: Done, now: Instant) {
        let Done { op, slat_ns, submitted_at, result } = done;
        let reply = match result {
            Ok(reply) => reply,
            Err(e) => {
                let outcome = Outcome::Failed { errno: errno_of(&e), error: e.to_string() };
                return self.core.complete(op, outcome, slat_ns, submitted_at, now);
            }
        };
        match (op, reply) {
            (Op::Read { .. }, Reply::Read(read)) => {
                let outcome = Outcome::Read { data: &read.data, eof: Some(read.eof) };
                self.core.complete(op, outcome, slat_ns, submitted_at, now);
            }
            (Op::Write { file, .. }, Reply::Write(write)) => {
                if write.committed == StableHow::Unstable {
                    self.note_unstable(file, write.verifier);
                }
                let outcome = Outcome::Write { count: u64::from(write.count) };
                self.core.complete(op, outcome, slat_ns, submitted_at, now);
            }
            (Op::Sync { file }, Reply::Sync(verifier)) => {
                self.core.complete(op, Outcome::Sync, slat_ns, submitted_at, now);
                if let Some(written_under) = self.unstable[file].take() {
                    // RFC 1813 §3.3.21: a changed verifier means the server restarted and may have lost
                    // the unstable data; the data is not stable and the run is not trustworthy.
                    if written_under != verifier {
                        let msg = format!(
                            "'{}': the server's write verifier changed before COMMIT: unstable writes may be lost",
                            self.core.name(file)
                        );
                        self.core.fail(EIO, msg);
                    }
                }
            }
            (op, _) => {
                let outcome = Outcome::Failed { errno: EIO, error: "a reply of the wrong kind came back".into() };
                self.core.complete(op, outcome, slat_ns, submitted_at, now);
            }
        }
    }

    fn note_unstable(&mut self, file: usize, verifier: [u8; 8]) {
        self.core.mark_dirty(file);
        match self.unstable[file] {
            Some(earlier) if earlier != verifier => {
                let msg = format!("'{}': the server's write verifier changed between WRITEs", self.core.name(file));
                self.core.fail(EIO, msg);
            }
            _ => self.unstable[file] = Some(verifier),
        }
    }
}
