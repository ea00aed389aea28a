//! Writing records onto a TCP stream (RFC 5531 §11): fragment headers, splitting a record into
//! fragments, and framing an [`XdrWriter`]'s slices for a vectored write without copying them.

use xdr::XdrWriter;

use crate::record_decoder::{LAST_FRAGMENT_BIT, MAX_FRAGMENT_LEN};

/// The 4-byte fragment header (RFC 5531 §11): `len` in the low 31 bits (higher bits of `len` are
/// dropped, so keep fragments under 2 GiB), the top bit set on the last fragment of a record.
pub fn record_marker(len: u32, last: bool) -> [u8; 4] {
    let last = if last { LAST_FRAGMENT_BIT } else { 0 };
    ((len & MAX_FRAGMENT_LEN) | last).to_be_bytes()
}

fn clamp_fragment_size(max_fragment: usize) -> usize {
    max_fragment.clamp(1, MAX_FRAGMENT_LEN as usize)
}

/// Iterator over the fragments of one record: `(header, payload)` pairs. See [`fragments`].
#[derive(Debug, Clone)]
pub struct Fragments<'a> {
    rest: &'a [u8],
    max: usize,
    done: bool,
}

/// Splits `record` into fragments of at most `max_fragment` bytes (clamped to 1..=2^31-1). An empty record
/// is one empty last fragment.
pub fn fragments(record: &[u8], max_fragment: usize) -> Fragments<'_> {
    Fragments { rest: record, max: clamp_fragment_size(max_fragment), done: false }
}

impl<'a> Iterator for Fragments<'a> {
    type Item = ([u8; 4], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let (fragment, rest) = self.rest.split_at(self.max.min(self.rest.len()));
        self.rest = rest;
        self.done = rest.is_empty();
        Some((record_marker(fragment.len() as u32, self.done), fragment))
    }
}

/// The record-marked bytes of `record` in fragments of at most `max_fragment` bytes (copied; for tests
/// and peers that fragment on purpose).
pub fn frame_record(record: &[u8], max_fragment: usize) -> Vec<u8> {
    let count = record.len() / clamp_fragment_size(max_fragment) + 1;
    let mut out = Vec::with_capacity(record.len() + 4 * count);
    for (marker, fragment) in fragments(record, max_fragment) {
        out.extend_from_slice(&marker);
        out.extend_from_slice(fragment);
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Part<'w> {
    Marker(usize),
    Data(&'w [u8]),
}

/// A record as a gather list: fragment headers interleaved with borrowed slices of the message, ready
/// for a vectored write. Nothing of the message is copied.
#[derive(Debug, Clone)]
pub struct FramedRecord<'w> {
    markers: Vec<[u8; 4]>,
    parts: Vec<Part<'w>>,
    len: usize,
}

impl<'w> FramedRecord<'w> {
    /// Frames the logical message held by `w` (inline bytes and borrowed payloads).
    /// `max_fragment` is usually [`MAX_FRAGMENT_LEN`] as `usize`: one fragment per record, as Linux does.
    pub fn from_writer(w: &'w XdrWriter<'_>, max_fragment: usize) -> Self {
        Self::from_slices(&w.slices(), max_fragment)
    }

    /// Frames a message given as consecutive slices, in fragments of at most `max_fragment` bytes.
    pub fn from_slices(slices: &[&'w [u8]], max_fragment: usize) -> Self {
        let max = clamp_fragment_size(max_fragment);
        let total: usize = slices.iter().map(|s| s.len()).sum();
        let mut framed = FramedRecord { markers: Vec::with_capacity(total / max + 1), parts: Vec::new(), len: total };
        let mut unframed = total;
        let mut fragment_left = framed.start_fragment(&mut unframed, max);
        for &slice in slices {
            let mut slice = slice;
            while !slice.is_empty() {
                if fragment_left == 0 {
                    fragment_left = framed.start_fragment(&mut unframed, max);
                }
                let (head, tail) = slice.split_at(fragment_left.min(slice.len()));
                framed.parts.push(Part::Data(head));
                fragment_left -= head.len();
                slice = tail;
            }
        }
        framed
    }

    /// Adds the header of the next fragment, of `min(max, unframed)` bytes; returns that size.
    fn start_fragment(&mut self, unframed: &mut usize, max: usize) -> usize {
        let len = max.min(*unframed);
        *unframed -= len;
        self.markers.push(record_marker(len as u32, *unframed == 0));
        self.parts.push(Part::Marker(self.markers.len() - 1));
        self.len += 4;
        len
    }

    /// Number of fragments.
    pub fn fragment_count(&self) -> usize {
        self.markers.len()
    }

    /// Bytes on the wire, fragment headers included.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: even an empty record has a fragment header.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slices to write, in order.
    pub fn slices(&self) -> Vec<&[u8]> {
        self.parts
            .iter()
            .filter_map(|part| match *part {
                Part::Marker(i) => self.markers.get(i).map(|m| m.as_slice()),
                Part::Data(d) => Some(d),
            })
            .collect()
    }

    /// The framed bytes in one vector (copied).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len);
        for slice in self.slices() {
            out.extend_from_slice(slice);
        }
        out
    }
}
