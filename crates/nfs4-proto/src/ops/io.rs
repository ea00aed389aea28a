//! Data operations: READ (RFC 8881 §18.22), WRITE (§18.32), COMMIT (§18.3). READ and WRITE data are
//! borrowed from the input on decode and written with `put_payload` on encode: they are DDP-eligible
//! (RFC 8267 §4.2), so an RDMA transport sees them as chunks at their XDR positions.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs4Result;
use crate::types::{decode_bulk, fixed, Count4, Offset4, StableHow4, Stateid4, Verifier4};

/// `READ4args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReadArgs {
    pub stateid: Stateid4,
    pub offset: Offset4,
    pub count: Count4,
}

impl XdrEncode for ReadArgs {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.stateid.encode(w);
        w.put_u64(self.offset);
        w.put_u32(self.count);
    }
}

impl<'a> XdrDecode<'a> for ReadArgs {
    /// 28 bytes read at once (`types/fixed.rs`); field by field when fewer remain, for the error.
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        if let Some(b) = fixed::peek::<28>(r) {
            fixed::consume::<28>(r);
            let stateid = Stateid4::from_wire(&fixed::bytes(b, 0));
            return Ok(ReadArgs { stateid, offset: fixed::hyper(b, 16), count: fixed::word(b, 24) });
        }
        Ok(ReadArgs { stateid: Stateid4::decode(r)?, offset: r.get_u64()?, count: r.get_u32()? })
    }
}

/// `READ4resok`: the data is borrowed from the reply on decode and a payload on encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReadResOk<'a> {
    pub eof: bool,
    pub data: &'a [u8],
}

impl XdrEncode for ReadResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_bool(self.eof);
        w.put_payload(self.data);
    }
}

impl<'a> XdrDecode<'a> for ReadResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ReadResOk { eof: r.get_bool()?, data: decode_bulk(r, "READ4resok.data")? })
    }
}

/// `READ4res`.
pub type ReadRes<'a> = Nfs4Result<ReadResOk<'a>>;

/// `WRITE4args`: the data is borrowed from the call on decode and a payload on encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WriteArgs<'a> {
    pub stateid: Stateid4,
    pub offset: Offset4,
    pub stable: StableHow4,
    pub data: &'a [u8],
}

impl XdrEncode for WriteArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.stateid.encode(w);
        w.put_u64(self.offset);
        self.stable.encode(w);
        w.put_payload(self.data);
    }
}

impl<'a> XdrDecode<'a> for WriteArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(WriteArgs {
            stateid: Stateid4::decode(r)?,
            offset: r.get_u64()?,
            stable: StableHow4::decode(r)?,
            data: decode_bulk(r, "WRITE4args.data")?,
        })
    }
}

xdr_struct! {
    /// `WRITE4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct WriteResOk {
        pub count: Count4,
        pub committed: StableHow4,
        pub writeverf: Verifier4,
    }
}

/// `WRITE4res`.
pub type WriteRes = Nfs4Result<WriteResOk>;

xdr_struct! {
    /// `COMMIT4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CommitArgs {
        pub offset: Offset4,
        pub count: Count4,
    }
}

xdr_struct! {
    /// `COMMIT4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CommitResOk {
        pub writeverf: Verifier4,
    }
}

/// `COMMIT4res`.
pub type CommitRes = Nfs4Result<CommitResOk>;
