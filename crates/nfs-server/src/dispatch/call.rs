//! The context of one NFSv3 call: resolving file handles to (export, file) with the export's access rules
//! and the caller's squashed credentials, and encoding results behind the RPC reply header.

use std::cell::Cell;

use nfs3_proto::{Fattr3, FileHandle3, Ftype3, Nfs3Result, NfsErr3, PostOpAttr, WccAttr, WccData};
use xdr::XdrEncode;

use crate::access::{Cred, Identity};
use crate::backend::{Backend, FileId};
use crate::exports::Export;
use crate::rpc::success_writer;
use crate::{ConnectionInfo, Reply, Server};

/// Inline bytes reserved for most results (a fattr3 is 84, a wcc_data up to 116).
const TYPICAL_RESULT: usize = 256;

/// One NFSv3 call being executed.
pub(crate) struct Call<'s> {
    pub server: &'s Server,
    pub conn: &'s ConnectionInfo,
    pub xid: u32,
    who: Identity,
    /// The result status written by [`Call::reply`], for statistics.
    status: Cell<u32>,
}

/// A file the call may use: its export, its id in the export's backend, and the caller's credentials
/// on that export.
#[derive(Clone, Copy)]
pub(crate) struct Obj<'s> {
    pub export: &'s Export,
    pub file: FileId,
    pub cred: Cred,
}

impl<'s> Call<'s> {
    pub(crate) fn new(server: &'s Server, conn: &'s ConnectionInfo, xid: u32, who: Identity) -> Self {
        Call { server, conn, xid, who, status: Cell::new(0) }
    }

    pub(crate) fn status(&self) -> u32 {
        self.status.get()
    }

    /// Verifies a handle and the caller's right to use its export (RFC 1813 §2.3.3: handles are checked
    /// by the server). BADHANDLE for malformed handles, STALE for other instances or unknown exports,
    /// ACCES / PERM when the export refuses this client.
    pub(crate) fn resolve(&self, fh: &FileHandle3) -> Result<Obj<'s>, NfsErr3> {
        let parts = self.server.handles.decode(fh)?;
        let export = self.server.exports.get(usize::from(parts.export)).ok_or(NfsErr3::Stale)?;
        export.admit(self.conn.peer).map_err(|r| r.nfs_error())?;
        Ok(Obj { export, file: parts.file, cred: export.credentials(&self.who) })
    }

    /// The handle of `file` in `export`.
    pub(crate) fn handle_of(&self, export: &Export, file: FileId) -> FileHandle3 {
        self.server.handles.encode(export.index, file)
    }

    /// Largest READ/WRITE payload (FSINFO rtmax/wtmax).
    pub(crate) fn max_io(&self) -> u32 {
        self.server.max_io_size
    }

    /// Encodes a result behind the success header and remembers its status.
    pub(crate) fn reply<T: XdrEncode, F: XdrEncode>(&self, res: &Nfs3Result<T, F>) -> Reply {
        self.reply_sized(res, TYPICAL_RESULT)
    }

    /// As [`Call::reply`], with a capacity hint for the inline buffer.
    pub(crate) fn reply_sized<T: XdrEncode, F: XdrEncode>(&self, res: &Nfs3Result<T, F>, capacity: usize) -> Reply {
        self.status.set(res.status().as_u32());
        let mut w = success_writer(self.xid, capacity);
        res.encode(&mut w);
        Reply::from_inline(w.into_vec())
    }

    /// The reply of NULL: success, no results.
    pub(crate) fn empty_reply(&self) -> Reply {
        Reply::from_inline(success_writer(self.xid, 0).into_vec())
    }

    /// Records a status for a reply built by hand (READ).
    pub(crate) fn set_status(&self, status: u32) {
        self.status.set(status);
    }
}

impl<'s> Obj<'s> {
    pub(crate) fn backend(&self) -> &'s dyn Backend {
        &*self.export.backend
    }

    pub(crate) fn getattr(&self) -> Result<Fattr3, NfsErr3> {
        self.backend().getattr(self.file)
    }

    /// Attributes after an operation; a failure just leaves them out (post_op_attr, RFC 1813 §2.6).
    pub(crate) fn post_op(&self) -> PostOpAttr {
        self.getattr().ok()
    }

    /// Another file of the same export, with the same credentials.
    pub(crate) fn with_file(&self, file: FileId) -> Obj<'s> {
        Obj { file, ..*self }
    }

    /// NFS3ERR_ROFS on a read-only export.
    pub(crate) fn require_writable(&self) -> Result<(), NfsErr3> {
        if self.export.read_only {
            Err(NfsErr3::Rofs)
        } else {
            Ok(())
        }
    }

    /// The parent directory for "..": the export root is its own parent, so no lookup leaves the export.
    pub(crate) fn parent_of(&self, dir: FileId) -> Result<FileId, NfsErr3> {
        if dir == self.export.root {
            Ok(dir)
        } else {
            self.backend().parent(dir)
        }
    }
}

/// The `wcc_attr` subset of attributes (RFC 1813 §2.6).
pub(crate) fn wcc_attr(a: &Fattr3) -> WccAttr {
    WccAttr { size: a.size, mtime: a.mtime, ctime: a.ctime }
}

/// `wcc_data` from attributes read before and after a change.
pub(crate) fn wcc(before: Option<&Fattr3>, after: PostOpAttr) -> WccData {
    WccData { before: before.map(wcc_attr), after }
}

/// Checks that `attr` is a directory (NOTDIR otherwise).
pub(crate) fn require_dir(attr: &Fattr3) -> Result<(), NfsErr3> {
    if attr.ftype == Ftype3::Dir {
        Ok(())
    } else {
        Err(NfsErr3::NotDir)
    }
}

/// Checks that `attr` is a regular file for READ, WRITE and COMMIT: ISDIR for a directory, INVAL for
/// other types (as knfsd answers).
pub(crate) fn require_regular(attr: &Fattr3) -> Result<(), NfsErr3> {
    match attr.ftype {
        Ftype3::Reg => Ok(()),
        Ftype3::Dir => Err(NfsErr3::IsDir),
        _ => Err(NfsErr3::Inval),
    }
}
