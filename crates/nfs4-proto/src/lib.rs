//! NFS version 4.1 (RFC 8881) and 4.2 (RFC 7862) wire types and codecs, sans I/O: the v4 sibling of
//! `nfs3-proto`, for nfsbench's v4 server and client.
//!
//! Laid out as the RFC is: [`types`] (§3 basic types, stateids with the special ones of §8.2.3, file
//! handles, session and client-identity structures), [`status`] (`nfsstat4` and the result shapes),
//! [`attr`] (fattr4, §5), [`ops`] (one module per operation or small group, §18, RFC 7862 §15, RFC 8276),
//! [`compound`] (COMPOUND, §16.2) and [`callback`] (the backchannel program, §20).
//!
//! - **COMPOUND.** [`Compound4Args`] / [`Compound4Res`] encode and decode whole bodies; the arrays hold
//!   [`NfsArgOp`] / [`NfsResOp`], one variant per operation (unit variants for void arguments). A server
//!   decodes with [`CompoundDecoder`]: header first, then one operation per `next()`, yielding
//!   [`OpDecodeError`] `{ index, kind }` for "OP_ILLEGAL at index i" (unknown number, or an operation of a
//!   later minor version), "BADXDR at index i" (malformed arguments), too many operations (it never decodes
//!   more than the caller's limit, so a COMPOUND declaring 2^32-1 operations costs nothing) or garbage. The
//!   minor version is only a field: the server answers NFS4ERR_MINOR_VERS_MISMATCH itself. A client
//!   checks a reply with [`Compound4Res::decode_reply`], which reports a result for another operation than
//!   was sent ([`ReplyError`]). [`NfsResOp::error`] builds the failed result of any operation.
//! - **Results.** A status word, then the body only on `NFS4_OK`: [`Nfs4Result`]. Where the RFC gives an
//!   error arm a body (LOCK/LOCKT's `LOCK4denied`, LAYOUTGET, GETDEVICEINFO, COPY, SETCLIENTID) the result
//!   is an [`Nfs4ResultOr`]; SETATTR always carries `attrsset` ([`SetattrRes`]). [`OpResult`] gives every
//!   result its status and its error form.
//! - **Attributes.** Operations carry [`RawFattr4`] (the mask and the undecoded values) so a server answers
//!   NFS4ERR_ATTRNOTSUPP for one operation instead of failing the COMPOUND; [`RawFattr4::decode_attrs`]
//!   gives the typed [`Fattr4`] or [`AttrError::NotSupported`], and [`Fattr4::to_raw_masked`] encodes what
//!   a GETATTR or READDIR asked for.
//! - **No copies of bulk data.** Names, owners and opaques are borrowed from the input. WRITE data, READ
//!   data, READLINK text and CREATE(NF4LNK) link data — the DDP-eligible items of RFC 8267 §4.2 — go
//!   through [`xdr::XdrWriter::put_payload`], so an RPC-over-RDMA transport sees them as chunks at their
//!   XDR positions; every other opaque is written inline. File handles ([`NfsFh4`], at most 128 bytes),
//!   stateids, session ids and bitmaps ([`Bitmap4`], at most 8 words) are small owned arrays.
//! - **Hostile input.** Decoders never panic and never allocate for lengths the input does not hold: each
//!   length is checked against its bound (owners 1024 bytes as knfsd's NFS4_OPAQUE_LIMIT, components and
//!   tags 1024, bitmaps 8 words, arrays per field) and against the bytes present first; whole-body
//!   decoders reject trailing bytes.
//! - [`op_name`] / [`cb_op_name`] name operation numbers for logs and `nfsbench decode`; [`NFS4_PROGRAM`]
//!   and [`NFS_V4`] are the RPC program and version (the callback program's number is the client's choice,
//!   version [`callback::NFS4_CALLBACK_VERSION`]).

#[macro_use]
extern crate xdr;
#[macro_use]
mod macros;

pub mod attr;
pub mod callback;
pub mod compound;
pub mod ops;
pub mod status;
pub mod types;

pub use attr::{AttrError, Fattr4, RawFattr4};
pub use callback::{cb_op_name, CbArgOp, CbCompound4Args, CbCompound4Res, CbOpNum4, CbResOp};
pub use compound::args::ArgOpTable;
pub use compound::{Compound4Args, Compound4Res, CompoundDecoder, NfsArgOp, NfsResOp};
pub use compound::{OpDecodeError, OpErrorKind, ReplyError};
pub use ops::attrs::*;
pub use ops::copy::*;
pub use ops::delegation::*;
pub use ops::dir::*;
pub use ops::exchange_id::*;
pub use ops::filehandle::*;
pub use ops::io::*;
pub use ops::layout_stats::*;
pub use ops::lock::*;
pub use ops::open::*;
pub use ops::pnfs::*;
pub use ops::readdir::*;
pub use ops::secinfo::*;
pub use ops::sequence::*;
pub use ops::session::*;
pub use ops::state::*;
pub use ops::v40::*;
pub use ops::v42::*;
pub use ops::xattr::*;
pub use ops::{op_name, IllegalRes, OpNum4};
pub use status::{ErrorBody, Nfs4Result, Nfs4ResultOr, NfsErr4, NfsStat4, OpResult, Void};
pub use types::*;

/// RFC 8881 §16.1: the NFS program number.
pub const NFS4_PROGRAM: u32 = 100003;
/// RFC 8881 §16.1: the program version of every NFSv4 minor version.
pub const NFS_V4: u32 = 4;

#[cfg(test)]
mod tests;
