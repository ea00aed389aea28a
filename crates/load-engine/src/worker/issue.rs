//! Submitting a chosen I/O as NFS calls.

use super::{split, Submitted, Worker};
use crate::clone_core::{nanos, Op};
use bytes::Bytes;
use nfs_client::StableHow;
use std::time::Instant;

impl Worker {
    /// Hand `op` to the client; returns the call, its submission latency and when it was submitted.
    /// As in fio, filling a write buffer (verify patterns, `refill_buffers`) happens before the submission
    /// clock starts.
    pub(super) fn submit(&mut self, op: Op) -> (Submitted, u64, Instant) {
        let data = match op {
            Op::Write { offset, len, .. } => self.write_data(offset, len),
            _ => Bytes::new(),
        };
        let before = Instant::now();
        let submitted = match op {
            Op::Read { file, offset, len } => {
                let open = &self.files[file].file;
                Submitted::Read(
                    split::pieces(offset, len, self.client.rsize())
                        .map(|(at, n)| (self.client.submit_read(open, at, n as u32), n))
                        .collect(),
                )
            }
            Op::Write { file, offset, .. } => {
                // A direct write is stable when acknowledged (what O_DIRECT through the Linux client gives
                // for a single-RPC write); buffered writes are UNSTABLE and committed on fsync or close.
                let stable = if self.core.spec.direct { StableHow::FileSync } else { StableHow::Unstable };
                let open = &self.files[file].file;
                Submitted::Write(
                    split::pieces(offset, data.len() as u64, self.client.wsize())
                        .map(|(at, n)| {
                            let start = (at - offset) as usize;
                            (self.client.submit_write(open, at, data.slice(start..start + n as usize), stable), n)
                        })
                        .collect(),
                )
            }
            Op::Sync { file } => Submitted::Sync(self.client.submit_commit(&self.files[file].file, 0, 0)),
        };
        let after = Instant::now();
        (submitted, nanos(after - before), after)
    }

    /// The bytes of a write: the shared filler (fio reuses its buffers), or a buffer of its own for
    /// verify units or `refill_buffers`.
    fn write_data(&mut self, offset: u64, len: u64) -> Bytes {
        if !self.core.fills_writes() {
            return self.core.filler.slice(..len as usize);
        }
        let mut buf = vec![0u8; len as usize];
        self.core.fill_write(&mut buf, offset);
        Bytes::from(buf)
    }
}
