//! Name space calls: LOOKUP (RFC 8881 §18.13) of one name or of a path's components from the root
//! (PUTROOTFH, §18.21) with GETFH and GETATTR, CREATE of a directory (§18.4), REMOVE (§18.25).

use nfs4_proto::{Component4, CreateArgs, CreateType4, LookupArgs, NfsArgOp, OpNum4, RemoveArgs, SequenceArgs};

use super::{attr_of, fattr_of, file_getattr, getattr, handle_of, head};
use crate::error::ClientError;
use crate::transport::RpcReply;
use crate::types::{Attr, FileHandle};
use crate::v4::attrs;
use crate::v4::compound::{decode_with, Compound, Decoded};
use crate::v4::session::Session;
use crate::v4::wire::{compound, Encoded};

/// LOOKUP of `name` in `dir`, with the new handle and its attributes. NFS4ERR_NOENT is the caller's.
#[derive(Debug)]
pub(crate) struct Lookup {
    pub(crate) dir: FileHandle,
    pub(crate) name: String,
}

impl Compound for Lookup {
    type Output = (FileHandle, Attr);

    fn name(&self) -> &'static str {
        "LOOKUP"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.dir);
        let lookup = NfsArgOp::Lookup(LookupArgs { objname: Component4(self.name.as_bytes()) });
        compound(&s.encoder, s.minor, "LOOKUP", &[a, b, lookup, NfsArgOp::Getfh, file_getattr()])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<Self::Output>, ClientError> {
        decode_with("LOOKUP", reply, ops, |res| Ok((handle_of("LOOKUP", res.get(2))?, attr_of("LOOKUP", res.get(3))?)))
    }
}

/// The root's attributes at mount: the file's and the file system's limits and lease.
#[derive(Debug, Clone)]
pub(crate) struct RootInfo {
    pub(crate) fh: FileHandle,
    pub(crate) attr: Attr,
    pub(crate) maxread: u64,
    pub(crate) maxwrite: u64,
    pub(crate) lease_time: u32,
}

/// PUTROOTFH (or PUTFH of `from`), LOOKUP of each of `components`, GETFH, GETATTR with the file
/// system's limits: the export's root at mount (RFC 8881 §18.21: the server's root, then the path).
#[derive(Debug)]
pub(crate) struct LookupPath {
    pub(crate) from: Option<FileHandle>,
    pub(crate) components: Vec<String>,
}

impl Compound for LookupPath {
    type Output = RootInfo;

    fn name(&self) -> &'static str {
        "LOOKUP"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let mut ops = Vec::with_capacity(self.components.len() + 4);
        match &self.from {
            Some(fh) => ops.extend(head(seq, fh)),
            None => ops.extend([NfsArgOp::Sequence(seq), NfsArgOp::Putrootfh]),
        }
        for name in &self.components {
            ops.push(NfsArgOp::Lookup(LookupArgs { objname: Component4(name.as_bytes()) }));
        }
        ops.push(NfsArgOp::Getfh);
        ops.push(getattr(attrs::root_attrs()));
        compound(&s.encoder, s.minor, "LOOKUP", &ops)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<RootInfo>, ClientError> {
        let n = self.components.len();
        decode_with("LOOKUP", reply, ops, |res| {
            let fh = handle_of("LOOKUP", res.get(n + 1))?;
            let raw = fattr_of("LOOKUP", res.get(n + 2))?;
            let typed = raw.decode_attrs().map_err(|e| ClientError::protocol("LOOKUP", e))?;
            let (maxread, maxwrite, lease_time) = attrs::fs_limits(&typed);
            Ok(RootInfo { fh, attr: attrs::to_attr(&typed), maxread, maxwrite, lease_time })
        })
    }
}

/// CREATE of the directory `name` in `dir` with `mode`, its handle and attributes.
#[derive(Debug)]
pub(crate) struct Mkdir {
    pub(crate) dir: FileHandle,
    pub(crate) name: String,
    pub(crate) mode: u32,
}

impl Compound for Mkdir {
    type Output = (FileHandle, Attr);

    fn name(&self) -> &'static str {
        "MKDIR"
    }

    fn cache_this(&self) -> bool {
        true
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.dir);
        let create = NfsArgOp::Create(CreateArgs {
            objtype: CreateType4::Dir,
            objname: Component4(self.name.as_bytes()),
            createattrs: attrs::set_attrs(Some(self.mode), None),
        });
        compound(&s.encoder, s.minor, "MKDIR", &[a, b, create, NfsArgOp::Getfh, file_getattr()])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<Self::Output>, ClientError> {
        decode_with("MKDIR", reply, ops, |res| Ok((handle_of("MKDIR", res.get(2))?, attr_of("MKDIR", res.get(3))?)))
    }
}

/// REMOVE of `name` in `dir`.
#[derive(Debug)]
pub(crate) struct Remove {
    pub(crate) dir: FileHandle,
    pub(crate) name: String,
}

impl Compound for Remove {
    type Output = ();

    fn name(&self) -> &'static str {
        "REMOVE"
    }

    fn cache_this(&self) -> bool {
        true
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.dir);
        let remove = NfsArgOp::Remove(RemoveArgs { target: Component4(self.name.as_bytes()) });
        compound(&s.encoder, s.minor, "REMOVE", &[a, b, remove])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<()>, ClientError> {
        decode_with("REMOVE", reply, ops, |_| Ok(()))
    }
}
