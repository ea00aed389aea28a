//! WRITE (RFC 1813 §3.3.7): write to a file. The data is borrowed from the call buffer on decode and
//! recorded as a payload (not copied) on encode.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs3Result;
use crate::types::{Count3, FileHandle3, Offset3, WccData, WriteVerf3};

xdr_enum! {
    /// `stable_how` (RFC 1813 §3.3.7): how far the server must commit the data before replying.
    pub enum StableHow as "stable_how" {
        Unstable = 0 => "UNSTABLE",
        DataSync = 1 => "DATA_SYNC",
        FileSync = 2 => "FILE_SYNC",
    }
}

/// `WRITE3args`. `count` is carried as sent (the RFC declares it apart from `data`'s length; knfsd answers
/// GARBAGE_ARGS when they differ, which a server can do after [`WriteArgs::count_matches_data`]).
/// [`WriteArgs::new`] sets it from the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteArgs<'a> {
    pub file: FileHandle3,
    pub offset: Offset3,
    pub count: Count3,
    pub stable: StableHow,
    pub data: &'a [u8],
}

impl<'a> WriteArgs<'a> {
    /// Arguments writing `data` at `offset`, with `count` equal to its length.
    pub fn new(file: FileHandle3, offset: Offset3, stable: StableHow, data: &'a [u8]) -> Self {
        WriteArgs { file, offset, count: data.len() as u32, stable, data }
    }

    pub fn count_matches_data(&self) -> bool {
        self.count as usize == self.data.len()
    }
}

impl XdrEncode for WriteArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.file.encode(w);
        w.put_u64(self.offset);
        w.put_u32(self.count);
        self.stable.encode(w);
        w.put_payload(self.data);
    }
}

impl<'a> XdrDecode<'a> for WriteArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(WriteArgs {
            file: FileHandle3::decode(r)?,
            offset: r.get_u64()?,
            count: r.get_u32()?,
            stable: StableHow::decode(r)?,
            // RFC 1813 §3.3.7: `opaque data<>`, bounded only by the bytes present.
            data: r.get_opaque("WRITE3args.data", u32::MAX)?,
        })
    }
}

xdr_struct! {
    /// `WRITE3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WriteResOk {
        pub file_wcc: WccData,
        pub count: Count3,
        pub committed: StableHow,
        pub verf: WriteVerf3,
    }
}

xdr_struct! {
    /// `WRITE3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct WriteResFail {
        pub file_wcc: WccData,
    }
}

/// `WRITE3res`.
pub type WriteRes = Nfs3Result<WriteResOk, WriteResFail>;
