//! NFS version 3 (RFC 1813) and MOUNT version 3 (RFC 1813 Appendix I) wire types and codecs, sans I/O.
//!
//! Everything is laid out in RFC order: [`types`] (the basic data types and attribute structures of
//! §2.4–§2.6), [`sattr`] (`sattr3`), [`status`] (`nfsstat3` and the result union every procedure shares),
//! one module per procedure under [`proc`] (§3.3.1 GETATTR .. §3.3.21 COMMIT), and [`mount`].
//!
//! - Every procedure has an `…Args` type and a `…Res` type. A result is an [`Nfs3Result`]: the status
//!   word, then the `…ResOk` arm on `NFS3_OK` or the `…ResFail` arm with an [`NfsErr3`] otherwise, so the
//!   success status can never be paired with a failure body.
//! - Nothing is copied that need not be: names, paths and READ/WRITE data are `&'a [u8]` borrowed from the
//!   input, and on encode READ and WRITE data (and READLINK/SYMLINK paths, which RFC 8267 also lets RDMA
//!   place directly) go through [`xdr::XdrWriter::put_payload`], so a transport sees them as gather entries
//!   at their XDR positions. File handles are small owned arrays ([`FileHandle3`], at most 64 bytes).
//! - [`Nfs3Call`] / [`Nfs3Reply`] and [`MountCall`] / [`MountReply`] decode a whole body for a procedure
//!   number, rejecting trailing bytes and telling an unknown procedure ([`DecodeError::UnknownProcedure`])
//!   apart from a malformed body ([`DecodeError::Xdr`]).
//! - Decoders never panic and never allocate beyond what the input can hold: lengths are checked against
//!   the protocol maximum and the bytes present first, linked lists grow only as entries are read.

#[macro_use]
extern crate xdr;
#[macro_use]
mod macros;

mod dispatch;
mod error;
pub mod mount;
pub mod proc;
pub mod sattr;
pub mod status;
pub mod types;

pub use dispatch::{Nfs3Call, Nfs3Reply};
pub use error::DecodeError;
pub use mount::{mount_proc_name, MountCall, MountProc, MountReply, MOUNT_PROGRAM, MOUNT_V3};
pub use proc::access::*;
pub use proc::commit::*;
pub use proc::create::*;
pub use proc::fsinfo::*;
pub use proc::fsstat::*;
pub use proc::getattr::*;
pub use proc::link::*;
pub use proc::lookup::*;
pub use proc::mkdir::*;
pub use proc::mknod::*;
pub use proc::pathconf::*;
pub use proc::read::*;
pub use proc::readdir::*;
pub use proc::readdirplus::*;
pub use proc::readlink::*;
pub use proc::remove::*;
pub use proc::rename::*;
pub use proc::rmdir::*;
pub use proc::setattr::*;
pub use proc::symlink::*;
pub use proc::write::*;
pub use proc::{nfs3_proc_name, Nfs3Proc};
pub use sattr::*;
pub use status::{Nfs3Result, NfsErr3, NfsStat3, Void};
pub use types::*;

/// RFC 1813 §2.2: the NFS program number.
pub const NFS_PROGRAM: u32 = 100003;
/// RFC 1813 §2.2: the protocol version this crate speaks.
pub const NFS_V3: u32 = 3;

#[cfg(test)]
mod tests;
