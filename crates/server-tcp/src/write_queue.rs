//! Records waiting to be written — replies, and the server's backward calls — each framed as one
//! record-marked fragment, gathered many at a time into one vectored write, with partial writes resumed
//! where they stopped. Records leave whole and in order, so a backward call never splits a reply.

use std::collections::VecDeque;
use std::io::IoSlice;

use nfs_server::Reply;
use onc_rpc::{record_marker, MAX_FRAGMENT_LEN};

/// Most slices handed to one vectored write (Linux's IOV_MAX is 1024; a reply takes 2 plus 2 per payload
/// plus one per slice of its data: an NFSv3 READ of 1 MiB from `mem:`'s 64 KiB pages 20). A batch that
/// needs more goes out in several writes.
pub(crate) const MAX_IOV: usize = 256;

#[derive(Debug)]
struct Outgoing {
    marker: [u8; 4],
    reply: Reply,
    /// Bytes on the wire, marker included.
    len: usize,
    /// A backward call (the server calling the client) rather than a reply.
    call: bool,
}

impl Outgoing {
    /// The record's pieces in wire order: the marker, then the reply's inline bytes with every payload
    /// and its padding at its place (some pieces may be empty).
    fn parts(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(&self.marker[..]).chain(self.reply.pieces())
    }
}

/// Why a reply was not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReplyTooLarge {
    pub len: usize,
}

/// Records fully written by one [`WriteQueue::consume`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub replies: usize,
    pub calls: usize,
}

/// The records of one connection not yet fully written, oldest first.
#[derive(Debug, Default)]
pub(crate) struct WriteQueue {
    queue: VecDeque<Outgoing>,
    /// Bytes of the front record already written.
    front_written: usize,
    /// Unwritten bytes over all queued records, markers included.
    bytes: usize,
    /// Backward calls queued.
    calls: usize,
}

impl WriteQueue {
    /// Queues `reply` as a single-fragment record (RFC 5531 §11); returns its length on the wire.
    pub(crate) fn push(&mut self, reply: Reply) -> Result<usize, ReplyTooLarge> {
        self.push_record(reply, false)
    }

    /// Queues a backward call record (RFC 5531 §11 framing, like a reply); returns its length on the wire.
    pub(crate) fn push_call(&mut self, record: Vec<u8>) -> Result<usize, ReplyTooLarge> {
        self.push_record(Reply::from_inline(record), true)
    }

    fn push_record(&mut self, reply: Reply, call: bool) -> Result<usize, ReplyTooLarge> {
        let body = reply.len();
        let Ok(body32) = u32::try_from(body) else {
            return Err(ReplyTooLarge { len: body });
        };
        if body32 > MAX_FRAGMENT_LEN {
            return Err(ReplyTooLarge { len: body });
        }
        let len = body + 4;
        self.queue.push_back(Outgoing { marker: record_marker(body32, true), reply, len, call });
        self.bytes += len;
        self.calls += usize::from(call);
        Ok(len)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Unwritten bytes queued.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Backward calls queued and not fully written.
    pub(crate) fn calls(&self) -> usize {
        self.calls
    }

    /// Fills `iov` with the unwritten bytes, oldest first, as far as it holds; returns the slices used.
    pub(crate) fn gather<'a>(&'a self, iov: &mut [IoSlice<'a>]) -> usize {
        let mut used = 0;
        let mut skip = self.front_written;
        for outgoing in &self.queue {
            for part in outgoing.parts() {
                if skip >= part.len() {
                    skip -= part.len();
                    continue;
                }
                let part = part.get(skip..).unwrap_or_default();
                skip = 0;
                let Some(slot) = iov.get_mut(used) else {
                    return used;
                };
                *slot = IoSlice::new(part);
                used += 1;
            }
            skip = 0;
        }
        used
    }

    /// Records that `written` more bytes went out; returns the records now fully written.
    pub(crate) fn consume(&mut self, written: usize) -> Written {
        let mut left = written.min(self.bytes);
        self.bytes -= left;
        let mut done = Written::default();
        while let Some(front) = self.queue.front() {
            let remaining = front.len - self.front_written;
            if left < remaining {
                self.front_written += left;
                break;
            }
            left -= remaining;
            self.front_written = 0;
            match self.queue.pop_front() {
                Some(Outgoing { call: true, .. }) => {
                    done.calls += 1;
                    self.calls -= 1;
                }
                _ => done.replies += 1,
            }
        }
        done
    }

    /// Drops everything queued (the connection is closing); returns the number of records dropped.
    pub(crate) fn clear(&mut self) -> usize {
        let dropped = self.queue.len();
        self.queue.clear();
        self.front_written = 0;
        self.bytes = 0;
        self.calls = 0;
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(inline: &[u8], payload: &[u8], at: usize) -> Reply {
        Reply::with_payload(inline.to_vec(), at, payload.to_vec())
    }

    fn gathered(queue: &WriteQueue) -> Vec<u8> {
        let mut iov = [IoSlice::new(&[]); MAX_IOV];
        let used = queue.gather(&mut iov);
        iov[..used].iter().flat_map(|s| s.iter().copied()).collect()
    }

    fn framed(r: &Reply) -> Vec<u8> {
        let body = r.to_vec();
        let mut out = record_marker(body.len() as u32, true).to_vec();
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn gathers_each_reply_as_one_marked_fragment_with_its_payload_padded() {
        let mut queue = WriteQueue::default();
        let a = reply(b"headtail", b"xyz", 4);
        let b = reply(b"only", b"", 0);
        assert_eq!(queue.push(a.clone()), Ok(4 + 8 + 4));
        queue.push(b.clone()).unwrap();
        let mut want = framed(&a);
        want.extend(framed(&b));
        assert_eq!(gathered(&queue), want);
        assert_eq!(queue.bytes(), want.len());
    }

    #[test]
    fn resumes_a_partial_write_inside_any_piece() {
        let a = reply(b"headtail", b"payload", 4);
        let b = reply(b"second", b"", 0);
        let mut whole = framed(&a);
        whole.extend(framed(&b));
        for cut in 0..=whole.len() {
            let mut queue = WriteQueue::default();
            queue.push(a.clone()).unwrap();
            queue.push(b.clone()).unwrap();
            let done = queue.consume(cut);
            assert_eq!(gathered(&queue), whole[cut..], "cut at {cut}");
            let expect_done = usize::from(cut >= framed(&a).len()) + usize::from(cut == whole.len());
            assert_eq!(done, Written { replies: expect_done, calls: 0 }, "cut at {cut}");
            assert_eq!(queue.is_empty(), cut == whole.len());
        }
    }

    #[test]
    fn stops_gathering_when_the_slice_array_is_full() {
        let mut queue = WriteQueue::default();
        for _ in 0..MAX_IOV {
            queue.push(reply(b"ab", b"cd", 1)).unwrap();
        }
        let mut iov = [IoSlice::new(&[]); MAX_IOV];
        assert_eq!(queue.gather(&mut iov), MAX_IOV);
    }

    #[test]
    fn a_payload_at_past_the_inline_bytes_puts_the_payload_last() {
        let mut queue = WriteQueue::default();
        let r = reply(b"ab", b"c", 99);
        queue.push(r.clone()).unwrap();
        assert_eq!(gathered(&queue), framed(&r));
    }

    #[test]
    fn a_reply_with_several_payloads_is_one_record_with_each_payload_at_its_place() {
        let mut several = Reply::from_inline(b"headmidtail".to_vec());
        several.push_payload(4, b"first".to_vec());
        several.push_payload(7, b"second!!".to_vec());
        let mut queue = WriteQueue::default();
        let len = queue.push(several.clone()).unwrap();
        let mut want = record_marker(11 + 8 + 8, true).to_vec();
        want.extend(b"headfirst\0\0\0midsecond!!tail");
        assert_eq!((gathered(&queue), len), (want.clone(), want.len()));
        for cut in 0..=want.len() {
            let mut queue = WriteQueue::default();
            queue.push(several.clone()).unwrap();
            queue.consume(cut);
            assert_eq!(gathered(&queue), want[cut..], "cut at {cut}");
        }
    }

    #[test]
    fn a_payload_of_several_slices_is_written_from_where_they_lie() {
        let parts = [&b"page one "[..], b"page two ", b"end"];
        let mut data = nfs_server::PayloadData::new();
        for part in parts {
            data.push(bytes::Bytes::from_static(part));
        }
        let mut queue = WriteQueue::default();
        queue.push(Reply::with_payload(b"headtail".to_vec(), 4, data)).unwrap();
        let mut iov = [IoSlice::new(&[]); MAX_IOV];
        let used = queue.gather(&mut iov);
        let slices: Vec<*const u8> = iov[..used].iter().map(|s| s.as_ptr()).collect();
        for part in parts {
            assert!(slices.contains(&part.as_ptr()), "each slice is an iovec of its own, not a copy");
        }
        let mut want = record_marker(8 + 24, true).to_vec();
        want.extend(b"headpage one page two end\0\0\0tail");
        assert_eq!(gathered(&queue), want);
        queue.consume(4 + 4 + 12);
        assert_eq!(gathered(&queue), want[20..], "resumed inside the second slice");
    }

    #[test]
    fn a_backward_call_goes_out_whole_between_replies_and_is_counted_apart() {
        let mut queue = WriteQueue::default();
        let first = reply(b"head", b"data", 4);
        queue.push(first.clone()).unwrap();
        queue.push_call(b"callback".to_vec()).unwrap();
        queue.push(reply(b"last", b"", 0)).unwrap();
        assert_eq!(queue.calls(), 1);
        let mut want = framed(&first);
        want.extend(record_marker(8, true));
        want.extend(b"callback");
        assert_eq!(gathered(&queue)[..want.len()], want[..]);
        assert_eq!(queue.consume(want.len() - 1), Written { replies: 1, calls: 0 });
        assert_eq!(queue.consume(1), Written { replies: 0, calls: 1 });
        assert_eq!(queue.calls(), 0);
        assert_eq!(queue.consume(8), Written { replies: 1, calls: 0 });
        assert!(queue.is_empty());
    }

    #[test]
    fn clearing_drops_every_reply() {
        let mut queue = WriteQueue::default();
        queue.push(reply(b"abcd", b"", 0)).unwrap();
        queue.consume(2);
        assert_eq!(queue.clear(), 1);
        assert!(queue.is_empty());
        assert_eq!(queue.bytes(), 0);
    }
}
