//! Tests for the crate: round trips of every operation, hand-assembled RFC layouts, hostile inputs.

mod attr;
mod compound;
mod hostile;
mod layout;
mod roundtrip;
mod samples;

use xdr::{XdrEncode, XdrWriter};

/// Encodes through a writer and flattens, payloads included.
fn encode<T: XdrEncode>(value: &T) -> Vec<u8> {
    let mut w = XdrWriter::new();
    value.encode(&mut w);
    w.to_vec()
}

/// Big-endian words and byte strings glued together, for hand-assembled messages.
struct Bytes(Vec<u8>);

impl Bytes {
    fn new() -> Self {
        Bytes(Vec::new())
    }

    fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }

    fn raw(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(b);
        self
    }

    /// `opaque<>`: length, bytes, zero padding to 4.
    fn opaque(self, b: &[u8]) -> Self {
        let pad = xdr::padding(b.len());
        self.u32(b.len() as u32).raw(b).raw(&[0; 3][..pad])
    }
}
