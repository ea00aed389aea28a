//! COMPOUND (RFC 8881 §16.2): the one procedure of NFSv4 that does anything, carrying an array of
//! operations and answering with an array of their results, up to and including the first that failed.
//!
//! - [`NfsArgOp`] / [`NfsResOp`] are `nfs_argop4` / `nfs_resop4`: the operation number then its
//!   arguments or result ([`table`]).
//! - [`Compound4Args`] / [`Compound4Res`] decode and encode whole bodies ([`args`], [`res`]). A client
//!   decodes a reply with [`Compound4Res::decode_reply`], which checks each result's operation number
//!   against what was sent.
//! - [`CompoundDecoder`] is the server's incremental decoder: the header first, then one operation per
//!   `next()`, so an unknown operation is "OP_ILLEGAL at index i" and a malformed one "BADXDR at index i"
//!   while the operations before it are already decoded (RFC 8881 §15.2, §16.2.3).

pub mod args;
mod error;
pub mod res;
pub mod table;

pub use args::{Compound4Args, CompoundDecoder};
pub use error::{OpDecodeError, OpErrorKind, ReplyError};
pub use res::Compound4Res;
pub use table::{NfsArgOp, NfsResOp};

use crate::types::UTF8STR_MAX;

/// The longest COMPOUND tag decoded (`utf8str_cs tag`, RFC 8881 §16.2.1); knfsd's NFS4_OPAQUE_LIMIT.
pub const TAG_MAX: u32 = UTF8STR_MAX;

/// The most operations [`Compound4Args`] / [`Compound4Res`] decode as a whole. A server bounds the
/// operations it decodes itself with [`CompoundDecoder::new`]'s `max_ops` (its `ca_maxoperations`).
pub const COMPOUND_OPS_MAX: u32 = 1024;
