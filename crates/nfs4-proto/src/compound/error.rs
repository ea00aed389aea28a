//! Errors of the incremental COMPOUND decoder and of a client's check of a COMPOUND reply.

use std::fmt;

use thiserror::Error;
use xdr::XdrError;

use crate::ops::OpNum4;
use crate::status::NfsStat4;

/// Why operation `index` of a COMPOUND did not decode. Each kind maps to a different answer.
/// `N` is the operation number type: [`OpNum4`] for COMPOUND, `CbOpNum4` for CB_COMPOUND.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("operation {index} of the COMPOUND: {kind}")]
pub struct OpDecodeError<N: fmt::Debug = OpNum4> {
    /// The operation's position in the argument array, from 0.
    pub index: u32,
    pub kind: OpErrorKind<N>,
}

/// What was wrong with an operation of a COMPOUND.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum OpErrorKind<N: fmt::Debug = OpNum4> {
    /// RFC 8881 §15.2 / §18.52: an operation number no minor version defines, `OP_ILLEGAL` itself, or
    /// one of a later minor version than the COMPOUND's (as knfsd): answer `ILLEGAL4res` with
    /// NFS4ERR_OP_ILLEGAL at this index.
    #[error("operation number {opnum} is illegal in minor version {minorversion}")]
    Illegal { opnum: u32, minorversion: u32 },
    /// RFC 8881 §15.1.1.2 (NFS4ERR_BADXDR): the arguments of `op` are malformed; answer `op` with
    /// NFS4ERR_BADXDR at this index.
    #[error("arguments of {op:?} are malformed: {error}")]
    BadXdr { op: N, error: XdrError },
    /// More operations than the server's limit: answer NFS4ERR_TOO_MANY_OPS (RFC 8881 §2.10.6.4, in
    /// SEQUENCE's result) or NFS4ERR_RESOURCE. `index` is the limit; no operation past it was decoded.
    #[error("the COMPOUND declares {declared} operations, over the limit")]
    TooManyOps { declared: u32 },
    /// The message ended where an operation number should be, or bytes follow the last operation: the
    /// body is not a COMPOUND at all (knfsd answers GARBAGE_ARGS).
    #[error("malformed COMPOUND body: {0}")]
    Garbage(XdrError),
}

/// Why a COMPOUND reply does not answer the COMPOUND that was sent.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReplyError<N: fmt::Debug = OpNum4> {
    #[error(transparent)]
    Xdr(#[from] XdrError),
    /// Result `index` is for another operation than the one sent there (`OP_ILLEGAL` is accepted for
    /// any operation: it is how a server refuses one it does not know).
    #[error("result {index} is for {got:?} but {sent:?} was sent")]
    UnexpectedOp { index: u32, sent: N, got: N },
    /// More results than operations sent.
    #[error("{got} results for {sent} operations")]
    TooManyResults { sent: u32, got: u32 },
    /// RFC 8881 §16.2.3: the results stop at the first failure, and the COMPOUND's status is the last
    /// result's; `index` is the result that breaks the rule.
    #[error("result {index} has status {result} but the COMPOUND's status is {compound}")]
    StatusMismatch { index: u32, result: NfsStat4, compound: NfsStat4 },
}
