//! NFSv4.2 file operations (RFC 7862): ALLOCATE (§15.1), DEALLOCATE (§15.4), SEEK (§15.11), READ_PLUS
//! (§15.10), CLONE (§15.13), IO_ADVISE (§15.5). READ_PLUS data is not DDP-eligible (RFC 8267 §4.2 lists
//! READ's only), so it is plain opaque data.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{Nfs4Result, Void};
use crate::types::{encode_array, Bitmap4, Count4, Length4, Offset4, Stateid4};

xdr_struct! {
    /// `ALLOCATE4args`: reserve space for the range.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AllocateArgs {
        pub stateid: Stateid4,
        pub offset: Offset4,
        pub length: Length4,
    }
}

/// `ALLOCATE4res`: status only.
pub type AllocateRes = Nfs4Result<Void>;

/// `DEALLOCATE4args`: punch a hole over the range (the same fields as ALLOCATE's).
pub type DeallocateArgs = AllocateArgs;
/// `DEALLOCATE4res`: status only.
pub type DeallocateRes = Nfs4Result<Void>;

xdr_enum! {
    /// `data_content4` (RFC 7862 §15.10.1).
    pub enum DataContent4 as "data_content4" {
        Data = 0 => "NFS4_CONTENT_DATA",
        Hole = 1 => "NFS4_CONTENT_HOLE",
    }
}

xdr_struct! {
    /// `SEEK4args`: the next data or hole at or after `offset`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct SeekArgs {
        pub stateid: Stateid4,
        pub offset: Offset4,
        pub what: DataContent4,
    }
}

xdr_struct! {
    /// `SEEK4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SeekResOk {
        pub eof: bool,
        pub offset: Offset4,
    }
}

/// `SEEK4res`.
pub type SeekRes = Nfs4Result<SeekResOk>;

xdr_struct! {
    /// `READ_PLUS4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReadPlusArgs {
        pub stateid: Stateid4,
        pub offset: Offset4,
        pub count: Count4,
    }
}

/// `read_plus_content` (RFC 7862 §15.10.2): a run of data or a hole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReadPlusContent<'a> {
    /// `data4`: bytes at `offset`, borrowed on decode.
    Data { offset: Offset4, data: &'a [u8] },
    /// `data_info4`: a hole of `length` bytes at `offset`.
    Hole { offset: Offset4, length: Length4 },
}

impl XdrEncode for ReadPlusContent<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            ReadPlusContent::Data { offset, data } => {
                DataContent4::Data.encode(w);
                w.put_u64(*offset);
                w.put_opaque(data);
            }
            ReadPlusContent::Hole { offset, length } => {
                DataContent4::Hole.encode(w);
                w.put_u64(*offset);
                w.put_u64(*length);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for ReadPlusContent<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match DataContent4::decode(r)? {
            DataContent4::Data => {
                ReadPlusContent::Data { offset: r.get_u64()?, data: r.get_opaque("data4.data", u32::MAX)? }
            }
            DataContent4::Hole => ReadPlusContent::Hole { offset: r.get_u64()?, length: r.get_u64()? },
        })
    }
}

/// The most segments one READ_PLUS result decodes.
pub const READ_PLUS_SEGMENTS_MAX: u32 = 1024;

/// `READ_PLUS4resok`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ReadPlusResOk<'a> {
    pub eof: bool,
    pub contents: Vec<ReadPlusContent<'a>>,
}

impl XdrEncode for ReadPlusResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_bool(self.eof);
        encode_array(&self.contents, w);
    }
}

impl<'a> XdrDecode<'a> for ReadPlusResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ReadPlusResOk {
            eof: r.get_bool()?,
            contents: r.get_vec("rpr_contents", READ_PLUS_SEGMENTS_MAX, 16, ReadPlusContent::decode)?,
        })
    }
}

/// `READ_PLUS4res`.
pub type ReadPlusRes<'a> = Nfs4Result<ReadPlusResOk<'a>>;

xdr_struct! {
    /// `CLONE4args`: share the source range's blocks with the destination range.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CloneArgs {
        pub src_stateid: Stateid4,
        pub dst_stateid: Stateid4,
        pub src_offset: Offset4,
        pub dst_offset: Offset4,
        pub count: Length4,
    }
}

/// `CLONE4res`: status only.
pub type CloneRes = Nfs4Result<Void>;

xdr_struct! {
    /// `IO_ADVISE4args`: `hints` is a bitmap of `IO_ADVISE_type4` values.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct IoAdviseArgs {
        pub stateid: Stateid4,
        pub offset: Offset4,
        pub count: Length4,
        pub hints: Bitmap4,
    }
}

xdr_struct! {
    /// `IO_ADVISE4resok`: the hints the server will act on.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct IoAdviseResOk {
        pub hints: Bitmap4,
    }
}

/// `IO_ADVISE4res`.
pub type IoAdviseRes = Nfs4Result<IoAdviseResOk>;
