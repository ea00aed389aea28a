//! Splitting a TCP byte stream into RPC records (RFC 5531 §11), sans I/O.
//!
//! Each fragment starts with a 4-byte big-endian header: the top bit marks the last fragment of a
//! record, the low 31 bits give the fragment's length. [`RecordDecoder`] takes bytes as they arrive, in
//! any split, and hands out complete records. Each byte is copied exactly once, from the caller's buffer
//! into the record being assembled; a finished record is handed out as the `Vec` it was assembled in.

use std::collections::VecDeque;

use crate::RpcError;

/// RFC 5531 §11: the top bit of a fragment header marks the last fragment of a record.
pub const LAST_FRAGMENT_BIT: u32 = 0x8000_0000;
/// RFC 5531 §11: the low 31 bits of a fragment header are its length.
pub const MAX_FRAGMENT_LEN: u32 = 0x7fff_ffff;
/// Default record limit: a 1 MiB NFS READ/WRITE payload plus generous room for RPC and NFS headers.
pub const DEFAULT_MAX_RECORD: usize = (1 << 20) + (64 << 10);
/// Default bound on fragments per record. libtirpc fragments at its send buffer size (tens of KiB) and
/// the Linux kernel sends one fragment per record, so real peers stay far below this.
pub const DEFAULT_MAX_FRAGMENTS: usize = 1024;

/// Limits a [`RecordDecoder`] enforces on every record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLimits {
    /// Largest record (sum of its fragments' payloads) accepted, in bytes. This is also the most the
    /// decoder will allocate for one record, and it does so only once a fragment header proves it needed.
    pub max_record: usize,
    /// Most fragments one record may have, empty ones included.
    pub max_fragments: usize,
}

impl Default for RecordLimits {
    fn default() -> Self {
        RecordLimits { max_record: DEFAULT_MAX_RECORD, max_fragments: DEFAULT_MAX_FRAGMENTS }
    }
}

/// Reassembles records from a record-marked byte stream. Push bytes with [`push`](Self::push), take
/// complete records with [`pop`](Self::pop). Errors are fatal to the stream: once one is returned, every
/// later `push` returns it again (records completed before the error can still be popped).
#[derive(Debug, Default)]
pub struct RecordDecoder {
    limits: RecordLimits,
    /// Fragment header being collected, `header_len` bytes of it so far.
    header: [u8; 4],
    header_len: usize,
    /// Inside a fragment whose header has been read: `fragment_left` payload bytes still to come.
    in_fragment: bool,
    fragment_left: usize,
    last_fragment: bool,
    /// Fragments seen for the record being assembled.
    fragments: usize,
    record: Vec<u8>,
    ready: VecDeque<Vec<u8>>,
    /// An emptied buffer handed back with [`recycle`](Self::recycle), used for the next record.
    spare: Option<Vec<u8>>,
    failed: Option<RpcError>,
}

impl RecordDecoder {
    pub fn new(limits: RecordLimits) -> Self {
        RecordDecoder { limits, ..Self::default() }
    }

    pub fn limits(&self) -> RecordLimits {
        self.limits
    }

    /// Consumes `data`, completing as many records as it finishes.
    pub fn push(&mut self, mut data: &[u8]) -> Result<(), RpcError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        loop {
            if !self.in_fragment {
                if data.is_empty() {
                    return Ok(());
                }
                let take = (4 - self.header_len).min(data.len());
                let (head, tail) = data.split_at(take);
                if let Some(dst) = self.header.get_mut(self.header_len..self.header_len + take) {
                    dst.copy_from_slice(head);
                }
                self.header_len += take;
                data = tail;
                if self.header_len < 4 {
                    return Ok(());
                }
                self.header_len = 0;
                if let Err(err) = self.start_fragment(u32::from_be_bytes(self.header)) {
                    self.failed = Some(err.clone());
                    return Err(err);
                }
            }
            let take = self.fragment_left.min(data.len());
            let (head, tail) = data.split_at(take);
            self.record.extend_from_slice(head);
            self.fragment_left -= take;
            data = tail;
            if self.fragment_left > 0 {
                return Ok(());
            }
            self.in_fragment = false;
            if self.last_fragment {
                self.ready.push_back(std::mem::take(&mut self.record));
                self.fragments = 0;
            }
        }
    }

    /// Checks a fragment header against the limits before a byte of its payload is buffered.
    fn start_fragment(&mut self, header: u32) -> Result<(), RpcError> {
        // RFC 5531 §11: top bit = last fragment, low 31 bits = fragment length.
        let len = header & MAX_FRAGMENT_LEN;
        self.fragments += 1;
        if self.fragments > self.limits.max_fragments {
            return Err(RpcError::TooManyFragments { max: self.limits.max_fragments });
        }
        let total = self.record.len() as u64 + u64::from(len);
        if total > self.limits.max_record as u64 {
            return Err(RpcError::RecordTooLarge { len: total, fragment_len: len, max: self.limits.max_record });
        }
        if self.record.capacity() == 0 {
            if let Some(spare) = self.spare.take() {
                self.record = spare;
            }
        }
        // Bounded by max_record, checked just above; reserving now spares re-copying as the record grows.
        self.record.reserve(len as usize);
        self.in_fragment = true;
        self.fragment_left = len as usize;
        self.last_fragment = header & LAST_FRAGMENT_BIT != 0;
        Ok(())
    }

    /// The oldest complete record, if any.
    pub fn pop(&mut self) -> Option<Vec<u8>> {
        self.ready.pop_front()
    }

    /// The oldest complete record, left in place.
    pub fn peek(&self) -> Option<&[u8]> {
        self.ready.front().map(Vec::as_slice)
    }

    /// Complete records waiting to be popped.
    pub fn ready_len(&self) -> usize {
        self.ready.len()
    }

    /// Returns a record's buffer once the caller is done with it, so the next record can reuse the
    /// allocation. Buffers larger than the record limit are dropped rather than kept.
    pub fn recycle(&mut self, mut buf: Vec<u8>) {
        if self.spare.is_none() && buf.capacity() <= self.limits.max_record {
            buf.clear();
            self.spare = Some(buf);
        }
    }

    /// Payload bytes buffered for the record being assembled (not counting complete records).
    pub fn partial_len(&self) -> usize {
        self.record.len()
    }

    /// True between records: no partial header, fragment or multi-fragment record is pending, so the
    /// peer may close the connection here without losing data.
    pub fn is_at_record_boundary(&self) -> bool {
        !self.in_fragment && self.header_len == 0 && self.fragments == 0
    }

    /// To be called at end of stream: fails if the stream stopped inside a record.
    pub fn finish(&self) -> Result<(), RpcError> {
        if let Some(err) = &self.failed {
            return Err(err.clone());
        }
        if self.is_at_record_boundary() {
            Ok(())
        } else {
            Err(RpcError::TruncatedRecord { buffered: self.record.len() + self.header_len })
        }
    }

    #[cfg(test)]
    pub(crate) fn partial_capacity(&self) -> usize {
        self.record.capacity()
    }
}

/// Splits a whole record-marked stream (e.g. one direction of a captured TCP connection) into records.
pub fn split_records(stream: &[u8], limits: RecordLimits) -> Result<Vec<Vec<u8>>, RpcError> {
    let mut decoder = RecordDecoder::new(limits);
    decoder.push(stream)?;
    decoder.finish()?;
    Ok(decoder.ready.into_iter().collect())
}
