//! The session COMPOUNDs the client sends, one type per call, each [`Compound`](super::compound::Compound):
//! SEQUENCE, then PUTFH (or PUTROOTFH) and the operations of the call, built anew for every attempt so
//! a retry carries the current session, slot and open stateid.
//!
//! - [`names`]: LOOKUP (and the export's path from the root), CREATE of a directory, REMOVE.
//! - [`open`]: OPEN by name with its create mode, OPEN of a handle (CLAIM_PREVIOUS to reclaim after a
//!   server restart, CLAIM_FH to open again revoked state), CLOSE, DELEGRETURN.
//! - [`io`]: READ, WRITE, COMMIT, GETATTR, SETATTR, the SEQUENCE alone that renews the lease, and
//!   RECLAIM_COMPLETE.

pub(crate) mod io;
pub(crate) mod names;
pub(crate) mod open;

use nfs4_proto::{Bitmap4, GetattrArgs, GetfhRes, Nfs4Result, NfsArgOp, NfsResOp, PutfhArgs, SequenceArgs};

use super::attrs;
use crate::error::ClientError;
use crate::types::{Attr, FileHandle};

/// SEQUENCE and PUTFH of `fh`: how every call on a file starts.
pub(crate) fn head(seq: SequenceArgs, fh: &FileHandle) -> [NfsArgOp<'static>; 2] {
    [NfsArgOp::Sequence(seq), NfsArgOp::Putfh(PutfhArgs { object: fh.0 })]
}

/// GETATTR of what [`Attr`] holds.
pub(crate) fn getattr(bits: Bitmap4) -> NfsArgOp<'static> {
    NfsArgOp::Getattr(GetattrArgs { attr_request: bits })
}

/// GETATTR's default request.
pub(crate) fn file_getattr() -> NfsArgOp<'static> {
    getattr(attrs::file_attrs())
}

/// The handle of a GETFH result.
pub(crate) fn handle_of(proc: &'static str, res: Option<&NfsResOp<'_>>) -> Result<FileHandle, ClientError> {
    match res {
        Some(NfsResOp::Getfh(GetfhRes::Ok(ok))) => Ok(FileHandle(ok.object)),
        _ => Err(ClientError::protocol(proc, "no GETFH result where one was sent")),
    }
}

/// The attributes of a GETATTR result, decoded.
pub(crate) fn attr_of(proc: &'static str, res: Option<&NfsResOp<'_>>) -> Result<Attr, ClientError> {
    let fattr = fattr_of(proc, res)?;
    let typed = fattr.decode_attrs().map_err(|e| ClientError::protocol(proc, e))?;
    Ok(attrs::to_attr(&typed))
}

/// The raw attributes of a GETATTR result.
pub(crate) fn fattr_of<'r>(
    proc: &'static str,
    res: Option<&'r NfsResOp<'_>>,
) -> Result<&'r nfs4_proto::RawFattr4<'r>, ClientError> {
    match res {
        Some(NfsResOp::Getattr(Nfs4Result::Ok(ok))) => Ok(&ok.obj_attributes),
        _ => Err(ClientError::protocol(proc, "no GETATTR result where one was sent")),
    }
}

/// A name for a directory entry: not empty, no `/`, no NUL (RFC 8881 §14.5: a component never holds
/// the separator; NUL cannot be in a UTF-8 name a server accepts).
pub(crate) fn entry_name<'a>(proc: &'static str, name: &'a str) -> Result<&'a str, ClientError> {
    if name.is_empty() || name.contains(['/', '\0']) {
        let detail = format!("{name:?} is not a file name (empty, or contains '/' or NUL)");
        return Err(ClientError::InvalidArgument { proc, detail });
    }
    Ok(name)
}
