//! `CB_COMPOUND4args` and `CB_COMPOUND4res` (RFC 8881 §20.13 and the XDR of §20): the backchannel's
//! COMPOUND, with the `callback_ident` field v4.0 used (ignored in v4.1).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::table::{CbArgOp, CbResOp};
use super::CbOpNum4;
use crate::compound::res::decode_checked;
use crate::compound::{ReplyError, COMPOUND_OPS_MAX, TAG_MAX};
use crate::status::NfsStat4;
use crate::types::encode_array;

/// `CB_COMPOUND4args`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CbCompound4Args<'a> {
    pub tag: &'a [u8],
    pub minorversion: u32,
    pub callback_ident: u32,
    pub argarray: Vec<CbArgOp<'a>>,
}

impl CbCompound4Args<'_> {
    /// The operation numbers in order, for [`CbCompound4Res::decode_reply`].
    pub fn ops(&self) -> Vec<CbOpNum4> {
        self.argarray.iter().map(CbArgOp::op).collect()
    }
}

impl XdrEncode for CbCompound4Args<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.tag);
        w.put_u32(self.minorversion);
        w.put_u32(self.callback_ident);
        encode_array(&self.argarray, w);
    }
}

impl<'a> XdrDecode<'a> for CbCompound4Args<'a> {
    /// The whole body, at most [`COMPOUND_OPS_MAX`] operations; an unknown operation is an error. A
    /// client answering callbacks uses [`CompoundDecoder::new_callback`](crate::CompoundDecoder) instead.
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let tag = r.get_string("CB_COMPOUND4args.tag", TAG_MAX)?;
        let minorversion = r.get_u32()?;
        let callback_ident = r.get_u32()?;
        let n = r.get_array_len("CB_COMPOUND4args.argarray", COMPOUND_OPS_MAX, 4)?;
        let mut argarray = Vec::with_capacity(n.min(32));
        for _ in 0..n {
            argarray.push(CbArgOp::decode(r)?);
        }
        Ok(CbCompound4Args { tag, minorversion, callback_ident, argarray })
    }
}

/// `CB_COMPOUND4res`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CbCompound4Res<'a> {
    pub status: NfsStat4,
    pub tag: &'a [u8],
    pub resarray: Vec<CbResOp<'a>>,
}

impl<'a> CbCompound4Res<'a> {
    /// A reply whose status is the last result's (`NFS4_OK` when there is none).
    pub fn new(tag: &'a [u8], resarray: Vec<CbResOp<'a>>) -> Self {
        let status = resarray.last().map_or(NfsStat4::Ok, CbResOp::status);
        CbCompound4Res { status, tag, resarray }
    }

    /// Decodes a client's reply to a CB_COMPOUND of the operations `sent`, with the checks of
    /// [`Compound4Res::decode_reply`](crate::Compound4Res::decode_reply).
    pub fn decode_reply(body: &'a [u8], sent: &[CbOpNum4]) -> Result<Self, ReplyError<CbOpNum4>> {
        let mut r = XdrReader::new(body);
        let status = NfsStat4::decode(&mut r)?;
        let tag = r.get_string("CB_COMPOUND4res.tag", TAG_MAX)?;
        let resarray = decode_checked(&mut r, status, sent, CbOpNum4::Illegal, CbResOp::decode_body, CbResOp::status)?;
        r.finish()?;
        Ok(CbCompound4Res { status, tag, resarray })
    }
}

impl XdrEncode for CbCompound4Res<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.status.encode(w);
        w.put_opaque(self.tag);
        encode_array(&self.resarray, w);
    }
}

impl<'a> XdrDecode<'a> for CbCompound4Res<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let status = NfsStat4::decode(r)?;
        let tag = r.get_string("CB_COMPOUND4res.tag", TAG_MAX)?;
        let n = r.get_array_len("CB_COMPOUND4res.resarray", COMPOUND_OPS_MAX, 8)?;
        let mut resarray = Vec::with_capacity(n.min(32));
        for _ in 0..n {
            resarray.push(CbResOp::decode(r)?);
        }
        Ok(CbCompound4Res { status, tag, resarray })
    }
}
