//! `COMPOUND4args` (RFC 8881 §16.2.1): whole-body encode/decode for clients and tests, and
//! [`CompoundDecoder`], the incremental decoder a server answers from.

use std::fmt;
use std::marker::PhantomData;

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::error::{OpDecodeError, OpErrorKind};
use super::table::NfsArgOp;
use super::{COMPOUND_OPS_MAX, TAG_MAX};
use crate::callback::{CbArgOp, CbOpNum4};
use crate::ops::OpNum4;
use crate::types::encode_array;

/// `COMPOUND4args`. The minor version is only a field: the server decides whether it speaks it
/// (NFS4ERR_MINOR_VERS_MISMATCH, RFC 8881 §16.2.3) before looking at the operations.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Compound4Args<'a> {
    pub tag: &'a [u8],
    pub minorversion: u32,
    pub argarray: Vec<NfsArgOp<'a>>,
}

impl Compound4Args<'_> {
    /// The operation numbers in order: what [`Compound4Res::decode_reply`](super::Compound4Res::decode_reply)
    /// checks the results against.
    pub fn ops(&self) -> Vec<OpNum4> {
        self.argarray.iter().map(NfsArgOp::op).collect()
    }
}

impl XdrEncode for Compound4Args<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.tag);
        w.put_u32(self.minorversion);
        encode_array(&self.argarray, w);
    }
}

impl<'a> XdrDecode<'a> for Compound4Args<'a> {
    /// The whole body at once, at most [`COMPOUND_OPS_MAX`] operations; any unknown operation is an
    /// error. Servers use [`CompoundDecoder`] instead, which says where and why.
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let tag = r.get_string("COMPOUND4args.tag", TAG_MAX)?;
        let minorversion = r.get_u32()?;
        // Each operation takes at least its 4-byte number; reserve little, grow as operations decode.
        let n = r.get_array_len("COMPOUND4args.argarray", COMPOUND_OPS_MAX, 4)?;
        let mut argarray = Vec::with_capacity(n.min(32));
        for _ in 0..n {
            argarray.push(NfsArgOp::decode(r)?);
        }
        Ok(Compound4Args { tag, minorversion, argarray })
    }
}

/// Decodes a `COMPOUND4args` body one operation at a time (RFC 8881 §16.2.3: operations are evaluated
/// in order and the first failure ends the COMPOUND, so a server needs the operations before a bad one).
///
/// [`new`](Self::new) reads the header; each `next()` yields one operation or, once, the
/// [`OpDecodeError`] that ends the array, after which the iterator is done. No more than `max_ops`
/// operations are ever decoded, whatever the header declares; memory is what the caller keeps.
/// After the last declared operation, bytes left over are reported as [`OpErrorKind::Garbage`].
///
/// The same decoder reads CB_COMPOUND for a client answering callbacks ([`CompoundDecoder::new_callback`]),
/// with `A` = [`CbArgOp`].
#[derive(Debug, Clone)]
pub struct CompoundDecoder<'a, A = NfsArgOp<'a>> {
    r: XdrReader<'a>,
    tag: &'a [u8],
    minorversion: u32,
    callback_ident: Option<u32>,
    declared: u32,
    max_ops: u32,
    next: u32,
    done: bool,
    ops: PhantomData<A>,
}

/// An argument union a [`CompoundDecoder`] can read: `nfs_argop4` or `nfs_cb_argop4`.
pub trait ArgOpTable<'a>: Sized {
    /// The operation number type.
    type Num: Copy + fmt::Debug + PartialEq + Eq;
    /// The operation for wire number `opnum` when it is legal in `minorversion`, else `None`.
    fn legal_op(opnum: u32, minorversion: u32) -> Option<Self::Num>;
    /// Decodes the arguments of `op`.
    fn decode_op(op: Self::Num, r: &mut XdrReader<'a>) -> Result<Self, XdrError>;
}

impl<'a> ArgOpTable<'a> for NfsArgOp<'a> {
    type Num = OpNum4;

    fn legal_op(opnum: u32, minorversion: u32) -> Option<OpNum4> {
        // RFC 8881 §15.2: an unknown number, OP_ILLEGAL itself, or (as knfsd's nfsd4_opnum_in_range) an
        // operation of a later minor version than the COMPOUND's is answered with OP_ILLEGAL.
        OpNum4::from_u32(opnum).filter(|op| *op != OpNum4::Illegal && op.minor_version() <= minorversion)
    }

    fn decode_op(op: OpNum4, r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        NfsArgOp::decode_body(op, r)
    }
}

impl<'a> ArgOpTable<'a> for CbArgOp<'a> {
    type Num = CbOpNum4;

    fn legal_op(opnum: u32, minorversion: u32) -> Option<CbOpNum4> {
        // RFC 8881 §20.13: an unknown callback operation is answered with CB_ILLEGAL.
        CbOpNum4::from_u32(opnum).filter(|op| *op != CbOpNum4::Illegal && op.minor_version() <= minorversion)
    }

    fn decode_op(op: CbOpNum4, r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        CbArgOp::decode_body(op, r)
    }
}

impl<'a> CompoundDecoder<'a, NfsArgOp<'a>> {
    /// Reads the tag, minor version and operation count of `body`. An error here means the body is not
    /// a COMPOUND (knfsd answers GARBAGE_ARGS); a tag longer than [`TAG_MAX`] is one.
    pub fn new(body: &'a [u8], max_ops: u32) -> Result<Self, XdrError> {
        let mut r = XdrReader::new(body);
        let tag = r.get_string("COMPOUND4args.tag", TAG_MAX)?;
        let minorversion = r.get_u32()?;
        let declared = r.get_u32()?;
        Ok(CompoundDecoder {
            r,
            tag,
            minorversion,
            callback_ident: None,
            declared,
            max_ops,
            next: 0,
            done: false,
            ops: PhantomData,
        })
    }
}

impl<'a> CompoundDecoder<'a, CbArgOp<'a>> {
    /// Reads the header of a `CB_COMPOUND4args` body (RFC 8881 §20.13: tag, minor version,
    /// `callback_ident`, operation count).
    pub fn new_callback(body: &'a [u8], max_ops: u32) -> Result<Self, XdrError> {
        let mut r = XdrReader::new(body);
        let tag = r.get_string("CB_COMPOUND4args.tag", TAG_MAX)?;
        let minorversion = r.get_u32()?;
        let callback_ident = Some(r.get_u32()?);
        let declared = r.get_u32()?;
        Ok(CompoundDecoder {
            r,
            tag,
            minorversion,
            callback_ident,
            declared,
            max_ops,
            next: 0,
            done: false,
            ops: PhantomData,
        })
    }
}

impl<'a, A: ArgOpTable<'a>> CompoundDecoder<'a, A> {
    /// The COMPOUND's tag, which the reply echoes (RFC 8881 §16.2.3).
    pub fn tag(&self) -> &'a [u8] {
        self.tag
    }

    pub fn minorversion(&self) -> u32 {
        self.minorversion
    }

    /// CB_COMPOUND's `callback_ident` (RFC 8881 §20.13; ignored in v4.1); `None` for COMPOUND.
    pub fn callback_ident(&self) -> Option<u32> {
        self.callback_ident
    }

    /// The operation count the header declares (not checked against anything).
    pub fn declared_ops(&self) -> u32 {
        self.declared
    }

    /// The index of the operation the next call to `next()` decodes.
    pub fn index(&self) -> u32 {
        self.next
    }

    fn fail(&mut self, kind: OpErrorKind<A::Num>) -> Option<Result<A, OpDecodeError<A::Num>>> {
        self.done = true;
        Some(Err(OpDecodeError { index: self.next, kind }))
    }
}

impl<'a, A: ArgOpTable<'a>> Iterator for CompoundDecoder<'a, A> {
    type Item = Result<A, OpDecodeError<A::Num>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.next == self.declared {
            self.done = true;
            return match self.r.finish() {
                Ok(()) => None,
                Err(e) => Some(Err(OpDecodeError { index: self.next, kind: OpErrorKind::Garbage(e) })),
            };
        }
        if self.next >= self.max_ops {
            return self.fail(OpErrorKind::TooManyOps { declared: self.declared });
        }
        let opnum = match self.r.get_u32() {
            Ok(v) => v,
            Err(e) => return self.fail(OpErrorKind::Garbage(e)),
        };
        let Some(op) = A::legal_op(opnum, self.minorversion) else {
            let minorversion = self.minorversion;
            return self.fail(OpErrorKind::Illegal { opnum, minorversion });
        };
        match A::decode_op(op, &mut self.r) {
            Ok(arg) => {
                self.next += 1;
                Some(Ok(arg))
            }
            Err(error) => self.fail(OpErrorKind::BadXdr { op, error }),
        }
    }
}

impl<'a, A: ArgOpTable<'a>> std::iter::FusedIterator for CompoundDecoder<'a, A> {}
