//! NFSv4 file handles (RFC 8881 §4): the NFSv3 handles of `crate::handle` for files of an export (so a
//! `dir:` export's handles survive a restart, and a client may use one handle under both versions), and
//! handles of their own kind for the directories of the pseudo file system (`pseudo.rs`).

use nfs4_proto::{NfsErr4, NfsFh4};

use super::errors::from_v3;
use super::pseudo::Child;
use crate::backend::FileId;
use crate::handle::{AnyHandle, HandleCodec};
use crate::Server;

/// A current or saved file handle, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Fh {
    /// A directory of the pseudo file system, by node index.
    Pseudo(usize),
    /// A file of an export.
    File { export: u16, file: FileId },
}

impl Fh {
    /// The handle of an export's root or a pseudo node.
    pub(crate) fn of_child(server: &Server, child: Child) -> Fh {
        match child {
            Child::Pseudo(node) => Fh::Pseudo(node),
            Child::Export(export) => {
                // Pseudo-file-system children name served exports only.
                let root = server.exports.get(usize::from(export)).map(|e| e.root);
                Fh::File { export, file: root.unwrap_or(FileId { id: 0, generation: 0 }) }
            }
        }
    }

    /// PUTFH's check (RFC 8881 §18.19.3): BADHANDLE for what this server never issued, STALE for a file
    /// of an export no longer served or a pseudo directory no longer in the tree. Whether the file still
    /// exists is found out by the operation that uses it.
    pub(crate) fn decode(server: &Server, fh: &NfsFh4) -> Result<Fh, NfsErr4> {
        match server.handles.decode_any(fh.as_bytes()).map_err(from_v3)? {
            AnyHandle::File(parts) => Ok(Fh::File { export: parts.export, file: parts.file }),
            AnyHandle::Pseudo(id) => server.v4.pseudo.find(id).map(Fh::Pseudo).ok_or(NfsErr4::Stale),
        }
    }

    /// The handle on the wire (GETFH, the `filehandle` attribute).
    pub(crate) fn encode(&self, server: &Server) -> NfsFh4 {
        encode_with(&server.handles, self, |node| server.v4.pseudo.id(node))
    }
}

fn encode_with(codec: &HandleCodec, fh: &Fh, pseudo_id: impl Fn(usize) -> u64) -> NfsFh4 {
    let v3 = match fh {
        Fh::Pseudo(node) => codec.encode_pseudo(pseudo_id(*node)),
        Fh::File { export, file } => codec.encode(*export, *file),
    };
    // Our handles are 36 bytes, well within NFS4_FHSIZE.
    NfsFh4::new(v3.as_bytes()).unwrap_or_default()
}
