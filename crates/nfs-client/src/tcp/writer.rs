//! The writer task of a TCP connection: drains the queue into a [`Batch`] (record marker and inline
//! bytes copied into one buffer, WRITE payloads referenced) and sends it with vectored writes, so a
//! burst of calls costs one lock and few system calls, and WRITE data is never copied.

use std::io::{self, IoSlice};
use std::sync::Arc;

use bytes::Bytes;
use onc_rpc::record_marker;
use tokio::io::{AsyncWrite, AsyncWriteExt};

use super::connection::Connection;
use crate::transport::RpcCall;

/// Slices per `writev` (Linux's IOV_MAX is 1024; a batch rarely needs more than a few).
const MAX_IOV: usize = 64;
/// A batch buffer that grew past this is released after use.
const KEEP_BUFFER: usize = 1 << 20;
const ZEROS: [u8; 4] = [0; 4];

#[derive(Debug)]
enum Segment {
    /// `buf[start..end]`.
    Inline {
        start: usize,
        end: usize,
    },
    Payload(Bytes),
    /// XDR padding after a payload.
    Zeros(usize),
}

/// Records ready to write: inline bytes copied into `buf`, payloads borrowed.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    buf: Vec<u8>,
    segments: Vec<Segment>,
}

impl Batch {
    pub(crate) fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// Appends `record` (a reply to a call of the server's) as one single-fragment record.
    pub(crate) fn push_record(&mut self, record: &[u8]) {
        self.inline(&record_marker(record.len() as u32, true));
        self.inline(record);
    }

    /// Appends `call` as one single-fragment record (RFC 5531 §11), as the Linux client sends them.
    pub(crate) fn push(&mut self, call: &RpcCall) {
        self.inline(&record_marker(call.wire_len() as u32, true));
        match &call.payload {
            None => self.inline(&call.inline),
            Some(payload) => {
                let (head, tail) = call.inline.split_at(payload.offset.min(call.inline.len()));
                self.inline(head);
                if !payload.data.is_empty() {
                    self.segments.push(Segment::Payload(payload.data.clone()));
                }
                let pad = xdr::padding(payload.data.len());
                if pad > 0 {
                    self.segments.push(Segment::Zeros(pad));
                }
                self.inline(tail);
            }
        }
    }

    fn inline(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let start = self.buf.len();
        self.buf.extend_from_slice(bytes);
        let end = self.buf.len();
        match self.segments.last_mut() {
            Some(Segment::Inline { end: last_end, .. }) if *last_end == start => *last_end = end,
            _ => self.segments.push(Segment::Inline { start, end }),
        }
    }

    fn bytes<'a>(buf: &'a [u8], segment: &'a Segment) -> &'a [u8] {
        match segment {
            Segment::Inline { start, end } => buf.get(*start..*end).unwrap_or_default(),
            Segment::Payload(b) => b,
            Segment::Zeros(n) => ZEROS.get(..*n).unwrap_or_default(),
        }
    }

    /// Writes the whole batch, then empties it.
    pub(crate) async fn write_to<W: AsyncWrite + Unpin>(&mut self, w: &mut W) -> io::Result<()> {
        let (mut first, mut offset) = (0, 0);
        while first < self.segments.len() {
            let mut iov = [IoSlice::new(&[]); MAX_IOV];
            let mut n = 0;
            for (slot, segment) in iov.iter_mut().zip(&self.segments[first..]) {
                let bytes = Self::bytes(&self.buf, segment);
                *slot = IoSlice::new(if n == 0 { bytes.get(offset..).unwrap_or_default() } else { bytes });
                n += 1;
            }
            let mut written = w.write_vectored(&iov[..n]).await?;
            if written == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            while written > 0 && first < self.segments.len() {
                let left = Self::bytes(&self.buf, &self.segments[first]).len() - offset;
                if written < left {
                    offset += written;
                    written = 0;
                } else {
                    written -= left;
                    first += 1;
                    offset = 0;
                }
            }
        }
        self.segments.clear();
        self.buf.clear();
        if self.buf.capacity() > KEEP_BUFFER {
            self.buf = Vec::new();
        }
        Ok(())
    }
}

/// Sends queued calls until the socket fails (the driver then reconnects) or the task is aborted.
pub(crate) async fn run<W: AsyncWrite + Unpin>(conn: Arc<Connection>, mut socket: W) -> io::Result<()> {
    let mut batch = Batch::default();
    loop {
        conn.take_queued(&mut batch);
        if batch.is_empty() {
            conn.wake.notified().await;
            continue;
        }
        batch.write_to(&mut socket).await?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::BulkPayload;

    #[tokio::test]
    async fn batch_frames_each_call_and_places_the_payload_with_its_padding() {
        let mut batch = Batch::default();
        let small =
            RpcCall { xid: 1, proc: "NULL", inline: vec![1; 8], payload: None, reply_payload: 0, reply_len: None };
        let payload = BulkPayload { data: Bytes::from_static(b"abcde"), offset: 4 };
        let write = RpcCall {
            xid: 2,
            proc: "WRITE",
            inline: vec![2; 6],
            payload: Some(payload),
            reply_payload: 0,
            reply_len: None,
        };
        batch.push(&small);
        batch.push(&write);
        let mut out = Vec::new();
        batch.write_to(&mut out).await.expect("written");
        let mut expected = record_marker(8, true).to_vec();
        expected.extend([1; 8]);
        expected.extend(record_marker(14, true));
        expected.extend([2; 4]);
        expected.extend(b"abcde\0\0\0");
        expected.extend([2; 2]);
        assert_eq!(out, expected);
        assert!(batch.is_empty());
    }
}
