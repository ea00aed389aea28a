//! `COMPOUND4args` (RFC 8881 §16.2.1): whole-body encode/decode for clients and tests, and
//! [`CompoundDecoder`], the incremental decoder a server answers from.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::error::{OpDecodeError, OpErrorKind};
use super::table::NfsArgOp;
use super::{COMPOUND_OPS_MAX, TAG_MAX};
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
#[derive(Debug, Clone)]
pub struct CompoundDecoder<'a> {
    r: XdrReader<'a>,
    tag: &'a [u8],
    minorversion: u32,
    declared: u32,
    max_ops: u32,
    next: u32,
    done: bool,
}

impl<'a> CompoundDecoder<'a> {
    /// Reads the tag, minor version and operation count of `body`. An error here means the body is not
    /// a COMPOUND (knfsd answers GARBAGE_ARGS); a tag longer than [`TAG_MAX`] is one.
    pub fn new(body: &'a [u8], max_ops: u32) -> Result<Self, XdrError> {
        let mut r = XdrReader::new(body);
        let tag = r.get_string("COMPOUND4args.tag", TAG_MAX)?;
        let minorversion = r.get_u32()?;
        let declared = r.get_u32()?;
        Ok(CompoundDecoder { r, tag, minorversion, declared, max_ops, next: 0, done: false })
    }

    /// The COMPOUND's tag, which the reply echoes (RFC 8881 §16.2.3).
    pub fn tag(&self) -> &'a [u8] {
        self.tag
    }

    pub fn minorversion(&self) -> u32 {
        self.minorversion
    }

    /// The operation count the header declares (not checked against anything).
    pub fn declared_ops(&self) -> u32 {
        self.declared
    }

    /// The index of the operation the next call to `next()` decodes.
    pub fn index(&self) -> u32 {
        self.next
    }

    fn fail(&mut self, kind: OpErrorKind) -> Option<Result<NfsArgOp<'a>, OpDecodeError>> {
        self.done = true;
        Some(Err(OpDecodeError { index: self.next, kind }))
    }
}

impl<'a> Iterator for CompoundDecoder<'a> {
    type Item = Result<NfsArgOp<'a>, OpDecodeError>;

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
        // RFC 8881 §15.2: an unknown number, OP_ILLEGAL itself, or (as knfsd's nfsd4_opnum_in_range) an
        // operation of a later minor version than the COMPOUND's is answered with OP_ILLEGAL.
        let op = match OpNum4::from_u32(opnum) {
            Some(op) if op != OpNum4::Illegal && op.minor_version() <= self.minorversion => op,
            _ => {
                let minorversion = self.minorversion;
                return self.fail(OpErrorKind::Illegal { opnum, minorversion });
            }
        };
        match NfsArgOp::decode_body(op, &mut self.r) {
            Ok(arg) => {
                self.next += 1;
                Some(Ok(arg))
            }
            Err(error) => self.fail(OpErrorKind::BadXdr { op, error }),
        }
    }
}

impl std::iter::FusedIterator for CompoundDecoder<'_> {}
