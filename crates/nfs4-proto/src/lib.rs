//! NFS version 4.1 (RFC 8881) and 4.2 (RFC 7862) wire types and codecs, sans I/O.

#[macro_use]
mod macros;

pub mod compound;
pub mod ops;
pub mod status;
pub mod types;

pub use compound::{Compound4Args, Compound4Res, CompoundDecoder, NfsArgOp, NfsResOp};
pub use compound::{OpDecodeError, OpErrorKind, ReplyError};
pub use ops::exchange_id::*;
pub use ops::filehandle::*;
pub use ops::io::*;
pub use ops::sequence::*;
pub use ops::session::*;
pub use ops::{op_name, IllegalRes, OpNum4};
pub use status::{Nfs4Result, NfsErr4, NfsStat4, OpResult, Void};
pub use types::*;

/// RFC 8881 §16.1: the NFS program number.
pub const NFS4_PROGRAM: u32 = 100003;
/// RFC 8881 §16.1: the program version of every NFSv4 minor version.
pub const NFS_V4: u32 = 4;

#[cfg(test)]
mod tests;
