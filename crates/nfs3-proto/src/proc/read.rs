//! READ (RFC 1813 §3.3.6): read from a file. The data is borrowed from the reply buffer on decode and
//! recorded as a payload (not copied) on encode.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs3Result;
use crate::types::{Count3, FileHandle3, Offset3, PostOpAttr};

xdr_struct! {
    /// `READ3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct ReadArgs {
        pub file: FileHandle3,
        pub offset: Offset3,
        pub count: Count3,
    }
}

/// `READ3resok`. `count` is carried as sent: the RFC declares it separately from `data`'s length, and
/// a decoder that forced them equal would break the byte-exact round trip. [`ReadResOk::new`] sets it
/// from the data; a client can check [`ReadResOk::count_matches_data`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadResOk<'a> {
    pub file_attributes: PostOpAttr,
    pub count: Count3,
    pub eof: bool,
    pub data: &'a [u8],
}

impl<'a> ReadResOk<'a> {
    /// A reply carrying `data`, with `count` equal to its length.
    pub fn new(file_attributes: PostOpAttr, eof: bool, data: &'a [u8]) -> Self {
        ReadResOk { file_attributes, count: data.len() as u32, eof, data }
    }

    pub fn count_matches_data(&self) -> bool {
        self.count as usize == self.data.len()
    }
}

impl XdrEncode for ReadResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.file_attributes.encode(w);
        w.put_u32(self.count);
        w.put_bool(self.eof);
        w.put_payload(self.data);
    }
}

impl<'a> XdrDecode<'a> for ReadResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ReadResOk {
            file_attributes: PostOpAttr::decode(r)?,
            count: r.get_u32()?,
            eof: r.get_bool()?,
            // RFC 1813 §3.3.6: `opaque data<>`, bounded only by the bytes present.
            data: r.get_opaque("READ3resok.data", u32::MAX)?,
        })
    }
}

xdr_struct! {
    /// `READ3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReadResFail {
        pub file_attributes: PostOpAttr,
    }
}

/// `READ3res`.
pub type ReadRes<'a> = Nfs3Result<ReadResOk<'a>, ReadResFail>;
