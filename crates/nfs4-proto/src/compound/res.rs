//! `COMPOUND4res` (RFC 8881 §16.2.2): the status of the last operation evaluated, the tag echoed, and
//! the results up to and including the first failure.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::error::ReplyError;
use super::table::NfsResOp;
use super::{COMPOUND_OPS_MAX, TAG_MAX};
use crate::ops::OpNum4;
use crate::status::NfsStat4;
use crate::types::encode_array;

/// `COMPOUND4res`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compound4Res<'a> {
    pub status: NfsStat4,
    pub tag: &'a [u8],
    pub resarray: Vec<NfsResOp<'a>>,
}

impl<'a> Compound4Res<'a> {
    /// A reply whose status is the last result's (`NFS4_OK` when there is none), as RFC 8881 §16.2.3
    /// requires.
    pub fn new(tag: &'a [u8], resarray: Vec<NfsResOp<'a>>) -> Self {
        let status = resarray.last().map_or(NfsStat4::Ok, NfsResOp::status);
        Compound4Res { status, tag, resarray }
    }

    /// Decodes a reply to a COMPOUND of the operations `sent` and checks it answers them: each result is
    /// for the operation sent at its index (or `OP_ILLEGAL`), there are no more results than operations,
    /// every result but the last succeeded, and the COMPOUND's status is the last result's. A result for
    /// the wrong operation is reported before its body is decoded.
    pub fn decode_reply(body: &'a [u8], sent: &[OpNum4]) -> Result<Self, ReplyError> {
        let mut r = XdrReader::new(body);
        let status = NfsStat4::decode(&mut r)?;
        let tag = r.get_string("COMPOUND4res.tag", TAG_MAX)?;
        let resarray = decode_checked(&mut r, status, sent, OpNum4::Illegal, NfsResOp::decode_body, NfsResOp::status)?;
        r.finish()?;
        Ok(Compound4Res { status, tag, resarray })
    }
}

/// Decodes a result array (`nfs_resop4<>` or `nfs_cb_resop4<>`) answering the operations `sent`, with
/// the checks of [`Compound4Res::decode_reply`].
pub(crate) fn decode_checked<'a, N, R>(
    r: &mut XdrReader<'a>,
    status: NfsStat4,
    sent: &[N],
    illegal: N,
    decode_body: fn(N, &mut XdrReader<'a>) -> Result<R, XdrError>,
    status_of: fn(&R) -> NfsStat4,
) -> Result<Vec<R>, ReplyError<N>>
where
    N: XdrDecode<'a> + Copy + PartialEq + std::fmt::Debug,
{
    // Each result takes at least its operation number and status.
    let n = r.get_array_len("resarray", COMPOUND_OPS_MAX, 8)?;
    if n > sent.len() {
        return Err(ReplyError::TooManyResults { sent: sent.len() as u32, got: n as u32 });
    }
    let mut resarray = Vec::with_capacity(n);
    for (index, &expected) in sent.iter().enumerate().take(n) {
        let got = N::decode(r)?;
        if got != expected && got != illegal {
            return Err(ReplyError::UnexpectedOp { index: index as u32, sent: expected, got });
        }
        let res = decode_body(got, r)?;
        let result = status_of(&res);
        let last = index + 1 == n;
        // RFC 8881 §16.2.3: evaluation stops at the first failure, whose status is the COMPOUND's.
        if (!last && !result.is_ok()) || (last && result != status) {
            return Err(ReplyError::StatusMismatch { index: index as u32, result, compound: status });
        }
        resarray.push(res);
    }
    Ok(resarray)
}

impl XdrEncode for Compound4Res<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.status.encode(w);
        w.put_opaque(self.tag);
        encode_array(&self.resarray, w);
    }
}

impl<'a> XdrDecode<'a> for Compound4Res<'a> {
    /// The whole body, at most [`COMPOUND_OPS_MAX`] results, without checking them against a call.
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let status = NfsStat4::decode(r)?;
        let tag = r.get_string("COMPOUND4res.tag", TAG_MAX)?;
        // Each result takes at least its operation number and status.
        let n = r.get_array_len("COMPOUND4res.resarray", COMPOUND_OPS_MAX, 8)?;
        let mut resarray = Vec::with_capacity(n.min(32));
        for _ in 0..n {
            resarray.push(NfsResOp::decode(r)?);
        }
        Ok(Compound4Res { status, tag, resarray })
    }
}
