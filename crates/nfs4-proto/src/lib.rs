//! NFS version 4.1 (RFC 8881) and 4.2 (RFC 7862) wire types and codecs, sans I/O.

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
