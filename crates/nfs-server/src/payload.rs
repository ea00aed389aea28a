//! The bytes of one bulk result (READ data, READLINK text) as the service hands them to a transport: a
//! list of [`Bytes`] slices that may reference the backend's own memory (the `mem:` backend's pages), so
//! that no layer copies them before they reach the wire — TCP writes them as iovecs, RPC-over-RDMA
//! RDMA-Writes them from where they lie.
//!
//! A slice is immutable for as long as anyone holds it: the `mem:` backend copies a page that a reply
//! still holds before writing into it (copy-on-write), so a reply never sees its bytes change.
//!
//! [`Served`] is what a backend returns: the data and how many of its bytes the backend copied into a
//! buffer of its own to produce it (the `dir:` backend's `pread`), for the server's "bytes copied per
//! byte served" figure.

use std::fmt;

use bytes::Bytes;

/// The slices of one payload, in order. One slice is held in place (no list is allocated: an NFSv3 READ
/// within one page, or a `dir:` read); more go in a vector.
#[derive(Clone, Default)]
pub struct PayloadData {
    repr: Repr,
}

#[derive(Clone)]
enum Repr {
    One(Bytes),
    Many(Vec<Bytes>),
}

impl Default for Repr {
    fn default() -> Self {
        Repr::One(Bytes::new())
    }
}

impl PayloadData {
    /// Nothing (allocates nothing).
    pub fn new() -> PayloadData {
        PayloadData::default()
    }

    /// Room for `slices` slices, for a builder that knows how many it will push.
    pub fn with_capacity(slices: usize) -> PayloadData {
        match slices {
            0 | 1 => PayloadData::new(),
            n => PayloadData { repr: Repr::Many(Vec::with_capacity(n)) },
        }
    }

    /// Appends `slice` (an empty one is left out).
    pub fn push(&mut self, slice: Bytes) {
        if slice.is_empty() {
            return;
        }
        match &mut self.repr {
            Repr::One(first) if first.is_empty() => *first = slice,
            Repr::One(first) => {
                let first = std::mem::take(first);
                self.repr = Repr::Many(vec![first, slice]);
            }
            Repr::Many(all) => all.push(slice),
        }
    }

    /// The slices in order, none of them empty.
    pub fn slices(&self) -> &[Bytes] {
        match &self.repr {
            Repr::One(first) if first.is_empty() => &[],
            Repr::One(first) => std::slice::from_ref(first),
            Repr::Many(all) => all,
        }
    }

    /// Bytes in all the slices.
    pub fn len(&self) -> usize {
        self.slices().iter().map(Bytes::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.slices().is_empty()
    }

    /// The bytes as one buffer (a copy; tests, and the few replies that must be flat).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        for slice in self.slices() {
            out.extend_from_slice(slice);
        }
        out
    }

    /// Keeps the first `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        match &mut self.repr {
            Repr::One(first) => first.truncate(len),
            Repr::Many(all) => {
                let mut room = len;
                all.retain_mut(|slice| {
                    slice.truncate(room);
                    room -= slice.len();
                    !slice.is_empty()
                });
            }
        }
    }
}

impl From<Bytes> for PayloadData {
    fn from(slice: Bytes) -> PayloadData {
        PayloadData { repr: Repr::One(slice) }
    }
}

impl From<Vec<u8>> for PayloadData {
    fn from(buf: Vec<u8>) -> PayloadData {
        PayloadData::from(Bytes::from(buf))
    }
}

impl From<&'static [u8]> for PayloadData {
    fn from(bytes: &'static [u8]) -> PayloadData {
        PayloadData::from(Bytes::from_static(bytes))
    }
}

impl PartialEq<[u8]> for PayloadData {
    fn eq(&self, other: &[u8]) -> bool {
        self.len() == other.len() && {
            let mut rest = other;
            self.slices().iter().all(|slice| {
                let (head, tail) = rest.split_at(slice.len());
                rest = tail;
                head == &slice[..]
            })
        }
    }
}

/// Equal bytes, however they are cut into slices.
impl PartialEq for PayloadData {
    fn eq(&self, other: &PayloadData) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

impl Eq for PayloadData {}

impl fmt::Debug for PayloadData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadData").field("len", &self.len()).field("slices", &self.slices().len()).finish()
    }
}

/// Bulk data a backend hands out for a reply, and how many of its bytes it copied to make it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Served {
    pub data: PayloadData,
    /// Bytes of `data` the backend copied into a buffer of its own (0: all of it references storage).
    pub copied: usize,
}

impl Served {
    /// Data that references the backend's storage: nothing was copied.
    pub fn shared(data: PayloadData) -> Served {
        Served { data, copied: 0 }
    }

    /// Data the backend read or copied into `buf`, which becomes the payload without a further copy.
    pub fn copied(buf: Vec<u8>) -> Served {
        let copied = buf.len();
        Served { data: PayloadData::from(buf), copied }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_slice_needs_no_list_and_empty_slices_are_left_out() {
        let mut data = PayloadData::new();
        data.push(Bytes::new());
        assert!(data.is_empty() && data.slices().is_empty());
        data.push(Bytes::from_static(b"abc"));
        assert!(matches!(data.repr, Repr::One(_)), "one slice is held in place");
        data.push(Bytes::from_static(b"de"));
        assert_eq!((data.len(), data.slices().len()), (5, 2));
        assert_eq!(data.to_vec(), b"abcde");
        assert!(data == b"abcde"[..]);
        assert!(data != b"abcdf"[..]);
    }

    #[test]
    fn truncation_keeps_the_first_bytes_across_slices() {
        let mut data = PayloadData::new();
        for part in [&b"abc"[..], b"def", b"ghi"] {
            data.push(Bytes::from_static(part));
        }
        data.truncate(4);
        assert_eq!((data.to_vec(), data.slices().len()), (b"abcd".to_vec(), 2));
        data.truncate(0);
        assert!(data.is_empty());
    }

    #[test]
    fn a_copied_buffer_counts_its_bytes_and_shared_data_none() {
        assert_eq!(Served::copied(vec![1; 7]).copied, 7);
        assert_eq!(Served::shared(PayloadData::from(&b"xyz"[..])).copied, 0);
    }
}
