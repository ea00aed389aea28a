//! READ (RFC 8881 §18.22), WRITE (§18.32), COMMIT (§18.3), GETATTR (§18.7), SETATTR (§18.30), the
//! SEQUENCE that renews the lease (§18.46, as Linux's renewd sends it), RECLAIM_COMPLETE (§18.51).
//! READ, WRITE and SETATTR carry the open's stateid with seqid 0 ("the current one", §8.2.2), or the
//! anonymous stateid for a file the client has not opened (§8.2.3).

use std::sync::Arc;

use bytes::Bytes;
use nfs4_proto::{
    CommitResOk, NfsArgOp, OpNum4, ReclaimCompleteArgs, SequenceArgs, SetattrArgs, StableHow4, Stateid4, WriteResOk,
};
use xdr::XdrDecode;

use super::{attr_of, file_getattr, head};
use crate::error::ClientError;
use crate::transport::RpcReply;
use crate::types::{Attr, FileHandle, ReadReply, StableHow, WriteReply};
use crate::v4::attrs;
use crate::v4::compound::{decode_with, Compound, Decoded};
use crate::v4::data_path::{self, DataOp};
use crate::v4::opens::OpenState;
use crate::v4::session::Session;
use crate::v4::wire::{compound, Encoded, WriteHead};

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
        let op = DataOp::Read { stateid: io_stateid(&self.open), offset: self.offset, count: self.count };
        data_path::encode(&s.encoder, s.minor, "READ", &seq, &self.fh.0, op)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, _: &[OpNum4]) -> Result<Decoded<ReadReply>, ClientError> {
        let answer = data_path::decode("READ", reply, OpNum4::Read, data_path::read_ok("READ", self.count))?;
        Ok(Decoded { sequence: answer.sequence, outcome: answer.outcome })
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
        let head = WriteHead { stateid: io_stateid(&self.open), offset: self.offset, stable: stable4(self.stable) };
        let op = DataOp::Write { head, data: self.data.clone() };
        data_path::encode(&s.encoder, s.minor, "WRITE", &seq, &self.fh.0, op)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, _: &[OpNum4]) -> Result<Decoded<WriteReply>, ClientError> {
        let sent = self.data.len() as u64;
        let answer = data_path::decode("WRITE", reply, OpNum4::Write, |r, _| {
            let ok = WriteResOk::decode(r).map_err(|e| ClientError::protocol("WRITE", e))?;
            // RFC 8881 §18.32.3: count is what was written, at most what was sent.
            if u64::from(ok.count) > sent {
                return Err(ClientError::protocol("WRITE", format!("server wrote {} bytes of {sent} sent", ok.count)));
            }
            Ok(WriteReply { count: ok.count, committed: stable_of(ok.committed), verifier: ok.writeverf.0 })
        })?;
        Ok(Decoded { sequence: answer.sequence, outcome: answer.outcome })
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
        let op = DataOp::Commit { offset: self.offset, count: self.count };
        data_path::encode(&s.encoder, s.minor, "COMMIT", &seq, &self.fh.0, op)
    }

    fn decode(&self, _: &Session, reply: &RpcReply, _: &[OpNum4]) -> Result<Decoded<[u8; 8]>, ClientError> {
        let answer = data_path::decode("COMMIT", reply, OpNum4::Commit, |r, _| {
            Ok(CommitResOk::decode(r).map_err(|e| ClientError::protocol("COMMIT", e))?.writeverf.0)
        })?;
        Ok(Decoded { sequence: answer.sequence, outcome: answer.outcome })
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
        compound(&s.encoder, s.minor, "GETATTR", &[a, b, file_getattr()])
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
        compound(&s.encoder, s.minor, "SETATTR", &[a, b, set, file_getattr()])
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
        compound(&s.encoder, s.minor, "SEQUENCE", &[NfsArgOp::Sequence(seq)])
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
        compound(&s.encoder, s.minor, "RECLAIM_COMPLETE", &[NfsArgOp::Sequence(seq), done])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<()>, ClientError> {
        let mut decoded = decode_with("RECLAIM_COMPLETE", reply, ops, |_| Ok(()))?;
        if let Err(Some((OpNum4::ReclaimComplete, nfs4_proto::NfsErr4::CompleteAlready))) = decoded.outcome {
            decoded.outcome = Ok(());
        }
        Ok(decoded)
    }
}
