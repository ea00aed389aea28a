//! XDR (RFC 4506) for nfsbench's protocol crates: no I/O, no `unsafe`, no copies of bulk data.
//!
//! - [`XdrReader`] decodes from a byte slice. Variable-length items are checked against their declared
//!   maximum *and* against the bytes actually present before anything is allocated, so a hostile
//!   4 GiB length prefix in a 16-byte buffer costs nothing. Opaque data is returned borrowed (`&'a [u8]`).
//! - [`XdrWriter`] encodes into a growable buffer. Bulk payloads (NFS READ/WRITE data) are *not* copied:
//!   [`XdrWriter::put_payload`] records a borrowed slice and the XDR position where it sits, so a
//!   transport can send the message as a gather list (TCP `writev`) or move the payload out of band
//!   (RPC-over-RDMA read/write chunks, which need exactly that position).
//! - [`XdrEncode`] / [`XdrDecode`] are the traits every protocol type implements; [`decode_exact`]
//!   decodes a whole buffer and rejects trailing bytes.
//!
//! Errors are one enum, [`XdrError`]; every decoder in the workspace returns it (or wraps it).
//!
//! The protocol crates declare their types with this crate's macros: [`xdr_struct!`] (fields in
//! order), [`xdr_enum!`] (a wire enum with `from_u32`/`as_u32`/`name`) and [`wire_status!`] (a status
//! and its failure-only companion).

mod error;
mod macros;
mod reader;
mod writer;

pub use error::XdrError;
pub use reader::XdrReader;
pub use writer::{Payload, XdrWriter};

/// Bytes of zero padding that follow `len` bytes of opaque data (RFC 4506 §3.9: round up to 4).
pub const fn padding(len: usize) -> usize {
    (4 - (len & 3)) & 3
}

/// A type with an XDR encoding.
pub trait XdrEncode {
    /// Appends the encoding of `self` to `w`. Bulk data may be borrowed from `self` for as long as `w` lives.
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>);

    /// Encodes into a fresh, flat byte vector (payloads copied in). Convenient for tests and small messages.
    fn to_xdr_bytes(&self) -> Vec<u8> {
        let mut w = XdrWriter::new();
        self.encode(&mut w);
        w.into_vec()
    }
}

/// A type decodable from XDR, possibly borrowing from the input buffer.
pub trait XdrDecode<'a>: Sized {
    /// Decodes one value from the reader, advancing it.
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError>;
}

/// Decodes a value that must occupy the whole buffer; trailing bytes are an error.
pub fn decode_exact<'a, T: XdrDecode<'a>>(buf: &'a [u8]) -> Result<T, XdrError> {
    let mut r = XdrReader::new(buf);
    let v = T::decode(&mut r)?;
    r.finish()?;
    Ok(v)
}

macro_rules! impl_primitive {
    ($t:ty, $get:ident, $put:ident) => {
        impl XdrEncode for $t {
            #[inline]
            fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
                w.$put(*self);
            }
        }
        impl<'a> XdrDecode<'a> for $t {
            #[inline]
            fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
                r.$get()
            }
        }
    };
}
impl_primitive!(u32, get_u32, put_u32);
impl_primitive!(i32, get_i32, put_i32);
impl_primitive!(u64, get_u64, put_u64);
impl_primitive!(i64, get_i64, put_i64);
impl_primitive!(bool, get_bool, put_bool);

/// XDR optional-data (`*T`, RFC 4506 §4.19): a boolean discriminant then the value when present.
impl<T: XdrEncode> XdrEncode for Option<T> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Some(v) => {
                w.put_bool(true);
                v.encode(w);
            }
            None => w.put_bool(false),
        }
    }
}

impl<'a, T: XdrDecode<'a>> XdrDecode<'a> for Option<T> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        if r.get_bool()? {
            Ok(Some(T::decode(r)?))
        } else {
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests;
