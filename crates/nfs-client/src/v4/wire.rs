//! NFSv4 calls on the wire, sans I/O: a COMPOUND (RFC 8881 §16.2) of operations after the RPC header
//! becomes an [`RpcCall`], and a reply record becomes the COMPOUND's results, checked against the
//! operations sent. The data path (READ, WRITE, COMMIT) is written and read by hand in
//! [`super::data_path`].

use std::borrow::Cow;

use nfs4_proto::{Compound4Res, NfsArgOp, NfsResOp, OpNum4, SequenceRes, StableHow4, Stateid4, NFS4_PROGRAM, NFS_V4};
use xdr::XdrEncode;

use super::slots::SequenceOutcome;
use crate::decode::results;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::transport::RpcCall;

/// RFC 8881 §16.2: procedure 1, COMPOUND (0 is NULL).
pub(crate) const NFSPROC4_COMPOUND: u32 = 1;
/// Room reserved for a COMPOUND's arguments beyond the RPC header.
const ARGS_CAPACITY: usize = 256;

/// An encoded COMPOUND and the operations it carries, which its reply is checked against.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) call: RpcCall,
    pub(crate) ops: Cow<'static, [OpNum4]>,
}

/// The fixed part of a WRITE (RFC 8881 §18.32.1) whose data follows as the call's payload
/// ([`super::data_path`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct WriteHead {
    pub(crate) stateid: Stateid4,
    pub(crate) offset: u64,
    pub(crate) stable: StableHow4,
}

/// `ops` as a COMPOUND of minor version `minor` (empty tag).
pub(crate) fn compound(encoder: &CallEncoder, minor: u32, proc: &'static str, ops: &[NfsArgOp<'_>]) -> Encoded {
    let (xid, inline) = encoder.encode(NFS4_PROGRAM, NFS_V4, NFSPROC4_COMPOUND, ARGS_CAPACITY, |w| {
        w.put_opaque(b"");
        w.put_u32(minor);
        w.put_u32(ops.len() as u32);
        for op in ops {
            op.encode(w);
        }
    });
    let sent: Vec<OpNum4> = ops.iter().map(NfsArgOp::op).collect();
    Encoded {
        call: RpcCall { xid, proc, inline, payload: None, reply_payload: 0, reply_len: None },
        ops: Cow::Owned(sent),
    }
}

/// The COMPOUND results of a reply record, checked against the operations sent.
pub(crate) fn decode<'r>(
    proc: &'static str,
    record: &'r [u8],
    sent: &[OpNum4],
) -> Result<Compound4Res<'r>, ClientError> {
    let body = results(proc, record)?;
    Compound4Res::decode_reply(body, sent).map_err(|e| ClientError::protocol(proc, e))
}

/// What the reply's first result, SEQUENCE, says; `None` when the COMPOUND ended before it (a minor
/// version the server does not speak, a malformed request).
pub(crate) fn sequence_outcome(res: &[NfsResOp<'_>]) -> Option<SequenceOutcome> {
    match res.first()? {
        NfsResOp::Sequence(SequenceRes::Ok(ok)) => Some(SequenceOutcome::Ok {
            highest_slotid: ok.highest_slotid,
            target_highest_slotid: ok.target_highest_slotid,
            status_flags: ok.status_flags,
        }),
        NfsResOp::Sequence(SequenceRes::Err(e)) => Some(SequenceOutcome::Failed(*e)),
        _ => None,
    }
}

/// The status that ended a COMPOUND whose SEQUENCE succeeded: `None` when every operation did.
pub(crate) fn failure(res: &Compound4Res<'_>) -> Option<(OpNum4, nfs4_proto::NfsErr4)> {
    let last = res.resarray.last()?;
    last.status().error().map(|e| (last.op(), e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs4_proto::{Compound4Args, Nfs4Result, NfsFh4, PutfhArgs, SequenceArgs, SequenceResOk};
    use onc_rpc::{OpaqueAuth, ReplyBody, RpcMessage};

    #[test]
    fn a_compound_decodes_as_sent_and_its_reply_is_checked_against_it() {
        let fh = NfsFh4::new(b"file").expect("handle");
        let ops =
            [NfsArgOp::Sequence(SequenceArgs::default()), NfsArgOp::Putfh(PutfhArgs { object: fh }), NfsArgOp::Getfh];
        let enc = compound(&CallEncoder::anonymous(), 2, "GETFH", &ops);
        let (_, body) = RpcMessage::decode(&enc.call.inline).expect("a call");
        let args: Compound4Args<'_> = xdr::decode_exact(body).expect("a COMPOUND");
        assert_eq!((args.minorversion, args.ops()), (2, enc.ops.to_vec()));
        let results = vec![
            NfsResOp::Sequence(Nfs4Result::Ok(SequenceResOk::default())),
            NfsResOp::Putfh(Nfs4Result::Err(nfs4_proto::NfsErr4::Stale)),
        ];
        let mut w = RpcMessage::reply(1, ReplyBody::success(OpaqueAuth::NONE)).header_writer(64);
        let res = Compound4Res::new(b"", results);
        res.encode(&mut w);
        let record = w.to_vec();
        let back = decode("GETFH", &record, &enc.ops).expect("decodes");
        assert!(matches!(sequence_outcome(&back.resarray), Some(SequenceOutcome::Ok { .. })));
        assert_eq!(failure(&back), Some((OpNum4::Putfh, nfs4_proto::NfsErr4::Stale)));
        assert!(decode("GETFH", &record, &[OpNum4::Sequence, OpNum4::Getfh]).is_err(), "PUTFH where GETFH was sent");
    }
}
