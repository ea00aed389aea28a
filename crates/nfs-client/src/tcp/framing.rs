//! Record marking on the receive side (RFC 5531 §11), sans I/O and zero-copy: records are split off
//! the front of the reader's [`BytesMut`] as [`Bytes`] that share its buffer.
//!
//! `onc_rpc::RecordDecoder` copies every byte into a record `Vec`; here a record that arrives as one
//! fragment (what Linux, libtirpc and our server send) is never copied after the socket read, so READ
//! data handed to the caller is a slice of the very buffer the kernel filled. Multi-fragment records
//! are joined (copied). The same [`RecordLimits`] apply, checked as soon as a fragment header is seen.

use bytes::{Buf, Bytes, BytesMut};
use onc_rpc::{RecordLimits, RpcError, LAST_FRAGMENT_BIT, MAX_FRAGMENT_LEN};

/// Splits records off a receive buffer: the client's sans-I/O receive framing, public so it can be
/// fuzzed on its own. An error is fatal to the stream.
#[derive(Debug)]
pub struct RecordSplitter {
    limits: RecordLimits,
    /// Earlier fragments of a record that came in several.
    partial: BytesMut,
    /// Fragments of the current record seen so far.
    fragments: usize,
}

impl RecordSplitter {
    pub fn new(limits: RecordLimits) -> Self {
        RecordSplitter { limits, partial: BytesMut::new(), fragments: 0 }
    }

    /// The next fragment header in `buf`, checked against the limits; `None` until 4 bytes are there.
    fn header(&self, buf: &[u8]) -> Result<Option<(usize, bool)>, RpcError> {
        let Some(word) = buf.first_chunk::<4>() else { return Ok(None) };
        let word = u32::from_be_bytes(*word);
        let len = word & MAX_FRAGMENT_LEN;
        let total = self.partial.len() as u64 + u64::from(len);
        // RFC 5531 §11 leaves record sizes to the implementation: ours are bounded by rsize + headers.
        if total > self.limits.max_record as u64 {
            return Err(RpcError::RecordTooLarge { len: total, fragment_len: len, max: self.limits.max_record });
        }
        if self.fragments >= self.limits.max_fragments {
            return Err(RpcError::TooManyFragments { max: self.limits.max_fragments });
        }
        Ok(Some((len as usize, word & LAST_FRAGMENT_BIT != 0)))
    }

    /// Takes the next complete record off the front of `buf`, if one is there.
    pub fn next(&mut self, buf: &mut BytesMut) -> Result<Option<Bytes>, RpcError> {
        loop {
            let Some((len, last)) = self.header(buf)? else { return Ok(None) };
            if buf.len() - 4 < len {
                return Ok(None);
            }
            buf.advance(4);
            let fragment = buf.split_to(len);
            if last && self.fragments == 0 {
                return Ok(Some(fragment.freeze()));
            }
            self.fragments += 1;
            self.partial.extend_from_slice(&fragment);
            if last {
                self.fragments = 0;
                return Ok(Some(self.partial.split().freeze()));
            }
        }
    }

    /// Bytes that must still arrive before [`next`](Self::next) can finish the fragment at the front
    /// of `buf` (at least 1), so the reader can make room for a large record in one allocation.
    pub fn wanted(&self, buf: &[u8]) -> usize {
        match buf.first_chunk::<4>() {
            None => 4 - buf.len(),
            Some(word) => {
                let len = (u32::from_be_bytes(*word) & MAX_FRAGMENT_LEN) as usize;
                (4 + len).saturating_sub(buf.len()).max(1)
            }
        }
    }

    /// True between records (the peer may close here without losing anything).
    pub fn at_boundary(&self, buf: &[u8]) -> bool {
        buf.is_empty() && self.fragments == 0
    }
}

#[cfg(test)]
mod tests {
    use onc_rpc::{frame_record, record_marker};

    use super::*;

    fn limits(max_record: usize, max_fragments: usize) -> RecordLimits {
        RecordLimits { max_record, max_fragments }
    }

    #[test]
    fn splits_records_fed_one_byte_at_a_time() {
        let mut wire = frame_record(b"first record", 1 << 20);
        wire.extend(frame_record(b"second", 1 << 20));
        let mut splitter = RecordSplitter::new(RecordLimits::default());
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for byte in wire {
            buf.extend_from_slice(&[byte]);
            while let Some(record) = splitter.next(&mut buf).expect("valid stream") {
                out.push(record);
            }
        }
        assert_eq!(out, [Bytes::from_static(b"first record"), Bytes::from_static(b"second")]);
        assert!(splitter.at_boundary(&buf));
    }

    #[test]
    fn single_fragment_record_shares_the_receive_buffer() {
        let mut buf = BytesMut::from(&frame_record(&[7u8; 4096], 1 << 20)[..]);
        let start = buf.as_ptr() as usize;
        let record = RecordSplitter::new(RecordLimits::default()).next(&mut buf).expect("ok").expect("record");
        assert_eq!(record.as_ptr() as usize, start + 4);
    }

    #[test]
    fn joins_a_record_sent_in_several_fragments() {
        let wire = frame_record(b"0123456789", 3);
        let mut buf = BytesMut::from(&wire[..]);
        let mut splitter = RecordSplitter::new(RecordLimits::default());
        assert_eq!(splitter.next(&mut buf).expect("ok"), Some(Bytes::from_static(b"0123456789")));
        assert!(splitter.at_boundary(&buf));
    }

    #[test]
    fn rejects_a_fragment_header_over_the_record_limit_before_its_payload_arrives() {
        let mut buf = BytesMut::from(&record_marker(1 << 30, true)[..]);
        let err = RecordSplitter::new(limits(1 << 20, 16)).next(&mut buf).expect_err("too large");
        assert!(matches!(err, RpcError::RecordTooLarge { .. }), "{err:?}");
    }

    #[test]
    fn rejects_an_endless_run_of_empty_fragments() {
        let mut buf = BytesMut::new();
        for _ in 0..5 {
            buf.extend_from_slice(&record_marker(0, false));
        }
        let err = RecordSplitter::new(limits(1 << 20, 4)).next(&mut buf).expect_err("too many");
        assert_eq!(err, RpcError::TooManyFragments { max: 4 });
    }

    #[test]
    fn wants_the_rest_of_a_large_fragment_at_once() {
        let mut buf = BytesMut::from(&record_marker(1 << 20, true)[..]);
        buf.extend_from_slice(&[0; 100]);
        let splitter = RecordSplitter::new(RecordLimits::default());
        assert_eq!(splitter.wanted(&buf), (1 << 20) - 100);
        assert_eq!(splitter.wanted(&buf[..2]), 2);
    }
}
