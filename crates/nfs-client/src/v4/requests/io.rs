//! READ (RFC 8881 §18.22), WRITE (§18.32), COMMIT (§18.3), GETATTR (§18.7), SETATTR (§18.30), the
//! SEQUENCE that renews the lease (§18.46, as Linux's renewd sends it), RECLAIM_COMPLETE (§18.51).
//! READ, WRITE and SETATTR carry the open's stateid with seqid 0 ("the current one", §8.2.2), or the
//! anonymous stateid for a file the client has not opened (§8.2.3).

use std::sync::Arc;

use bytes::Bytes;
use nfs4_proto::{
    CommitArgs, CommitRes, NfsArgOp, NfsResOp, OpNum4, ReadArgs, ReclaimCompleteArgs, SequenceArgs, SetattrArgs,
    StableHow4, Stateid4, WriteRes,
};

use super::{attr_of, file_getattr, head};
use crate::error::ClientError;
use crate::transport::RpcReply;
use crate::types::{Attr, FileHandle, ReadReply, StableHow, WriteReply};
use crate::v4::attrs;
use crate::v4::opens::OpenState;
use crate::v4::session::{decode_with, Compound, Decoded, Session};
use crate::v4::wire::{self, compound, Encoded, WriteHead};

/// The stateid I/O on `open` carries.
fn io_stateid(open: &Option<Arc<OpenState>>) -> Stateid4 {
    open.as_ref().map_or(Stateid4::ANONYMOUS, |o| o.io_stateid())
}

fn stable4(s: StableHow) -> StableHow4 {
    match s {
        StableHow::Unstable => StableHow4::Unstable,
        StableHow::DataSync => StableHow4::DataSync,
        StableHow::FileSync => StableHow4::FileSync,
    }
}

fn stable_of(s: StableHow4) -> StableHow {
    match s {
        StableHow4::Unstable => StableHow::Unstable,
        StableHow4::DataSync => StableHow::DataSync,
        StableHow4::FileSync => StableHow::FileSync,
    }
}

/// READ of at most `count` bytes.
#[derive(Debug)]
pub(crate) struct Read {
    pub(crate) fh: FileHandle,
    pub(crate) open: Option<Arc<OpenState>>,
    pub(crate) offset: u64,
    pub(crate) count: u32,
}

impl Compound for Read {
    type Output = ReadReply;

    fn name(&self) -> &'static str {
        "READ"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.fh);
        let read = NfsArgOp::Read(ReadArgs { stateid: io_stateid(&self.open), offset: self.offset, count: self.count });
        compound(&s.encoder, s.minor, "READ", &[a, b, read], None, self.count)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, _: &[OpNum4]) -> Result<Decoded<ReadReply>, ClientError> {
        let results = wire::decode_read("READ", reply, self.count)?;
        Ok(Decoded { sequence: results.sequence, outcome: results.outcome })
    }

    fn open(&self) -> Option<&Arc<OpenState>> {
        self.open.as_ref()
    }
}

/// WRITE of `data`, sent as the call's payload (never copied).
#[derive(Debug)]
pub(crate) struct Write {
    pub(crate) fh: FileHandle,
    pub(crate) open: Option<Arc<OpenState>>,
    pub(crate) offset: u64,
    pub(crate) stable: StableHow,
    pub(crate) data: Bytes,
}

impl Compound for Write {
    type Output = WriteReply;

    fn name(&self) -> &'static str {
        "WRITE"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let ops = head(seq, &self.fh);
        let write = WriteHead { stateid: io_stateid(&self.open), offset: self.offset, stable: stable4(self.stable) };
        compound(&s.encoder, s.minor, "WRITE", &ops, Some((write, self.data.clone())), 0)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<WriteReply>, ClientError> {
        let sent = self.data.len() as u64;
        decode_with("WRITE", reply, ops, |res| match res.get(1) {
            // RFC 8881 §18.32.3: count is what was written, at most what was sent.
            Some(NfsResOp::Write(WriteRes::Ok(ok))) if u64::from(ok.count) <= sent => {
                Ok(WriteReply { count: ok.count, committed: stable_of(ok.committed), verifier: ok.writeverf.0 })
            }
            Some(NfsResOp::Write(WriteRes::Ok(ok))) => {
                Err(ClientError::protocol("WRITE", format!("server wrote {} bytes of {sent} sent", ok.count)))
            }
            _ => Err(ClientError::protocol("WRITE", "no WRITE result")),
        })
    }

    fn open(&self) -> Option<&Arc<OpenState>> {
        self.open.as_ref()
    }
}

/// COMMIT of `count` bytes from `offset` (0 and 0: the whole file).
#[derive(Debug)]
pub(crate) struct Commit {
    pub(crate) fh: FileHandle,
    pub(crate) offset: u64,
    pub(crate) count: u32,
}

impl Compound for Commit {
    type Output = [u8; 8];

    fn name(&self) -> &'static str {
        "COMMIT"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.fh);
        let commit = NfsArgOp::Commit(CommitArgs { offset: self.offset, count: self.count });
        compound(&s.encoder, s.minor, "COMMIT", &[a, b, commit], None, 0)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<[u8; 8]>, ClientError> {
        decode_with("COMMIT", reply, ops, |res| match res.get(1) {
            Some(NfsResOp::Commit(CommitRes::Ok(ok))) => Ok(ok.writeverf.0),
            _ => Err(ClientError::protocol("COMMIT", "no COMMIT result")),
        })
    }
}

/// GETATTR of what [`Attr`] holds.
#[derive(Debug)]
pub(crate) struct Getattr {
    pub(crate) fh: FileHandle,
}

impl Compound for Getattr {
    type Output = Attr;

    fn name(&self) -> &'static str {
        "GETATTR"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.fh);
        compound(&s.encoder, s.minor, "GETATTR", &[a, b, file_getattr()], None, 0)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<Attr>, ClientError> {
        decode_with("GETATTR", reply, ops, |res| attr_of("GETATTR", res.get(1)))
    }
}

/// SETATTR of a mode and/or a size, then GETATTR: the attributes after.
#[derive(Debug)]
pub(crate) struct Setattr {
    pub(crate) fh: FileHandle,
    pub(crate) open: Option<Arc<OpenState>>,
    pub(crate) mode: Option<u32>,
    pub(crate) size: Option<u64>,
}

impl Compound for Setattr {
    type Output = Attr;

    fn name(&self) -> &'static str {
        "SETATTR"
    }

    fn cache_this(&self) -> bool {
        true
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.fh);
        // RFC 8881 §18.30.3: a size change carries the open's stateid; anything else the anonymous one.
        let stateid = if self.size.is_some() { io_stateid(&self.open) } else { Stateid4::ANONYMOUS };
        let set = NfsArgOp::Setattr(SetattrArgs { stateid, obj_attributes: attrs::set_attrs(self.mode, self.size) });
        compound(&s.encoder, s.minor, "SETATTR", &[a, b, set, file_getattr()], None, 0)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<Attr>, ClientError> {
        decode_with("SETATTR", reply, ops, |res| attr_of("SETATTR", res.get(2)))
    }

    fn open(&self) -> Option<&Arc<OpenState>> {
        self.open.as_ref().filter(|_| self.size.is_some())
    }
}

/// SEQUENCE alone: renews the lease of an idle client (Linux's `nfs41_proc_async_sequence`).
#[derive(Debug)]
pub(crate) struct Renew;

impl Compound for Renew {
    type Output = ();

    fn name(&self) -> &'static str {
        "SEQUENCE"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        compound(&s.encoder, s.minor, "SEQUENCE", &[NfsArgOp::Sequence(seq)], None, 0)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<()>, ClientError> {
        decode_with("SEQUENCE", reply, ops, |_| Ok(()))
    }
}

/// RECLAIM_COMPLETE for every file system (RFC 8881 §18.51: `rca_one_fs` FALSE), after the mount and
/// after the reclaims of a server restart. NFS4ERR_COMPLETE_ALREADY counts as done.
#[derive(Debug)]
pub(crate) struct ReclaimComplete;

impl Compound for ReclaimComplete {
    type Output = ();

    fn name(&self) -> &'static str {
        "RECLAIM_COMPLETE"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let done = NfsArgOp::ReclaimComplete(ReclaimCompleteArgs { one_fs: false });
        compound(&s.encoder, s.minor, "RECLAIM_COMPLETE", &[NfsArgOp::Sequence(seq), done], None, 0)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<()>, ClientError> {
        let mut decoded = decode_with("RECLAIM_COMPLETE", reply, ops, |_| Ok(()))?;
        if let Err(Some((OpNum4::ReclaimComplete, nfs4_proto::NfsErr4::CompleteAlready))) = decoded.outcome {
            decoded.outcome = Ok(());
        }
        Ok(decoded)
    }
}
