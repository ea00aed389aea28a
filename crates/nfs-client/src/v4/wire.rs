//! NFSv4 calls on the wire, sans I/O: a COMPOUND (RFC 8881 §16.2) after the RPC header becomes an
//! [`RpcCall`] — WRITE data cut out as the call's [`BulkPayload`], never copied — and a reply record
//! becomes the COMPOUND's results, checked against the operations sent. READ's result is decoded by
//! hand so its data stays a slice of the record, or is the payload a transport placed apart from it.

use bytes::Bytes;
use nfs4_proto::{
    Compound4Res, NfsArgOp, NfsResOp, NfsStat4, OpNum4, SequenceRes, StableHow4, Stateid4, NFS4_PROGRAM, NFS_V4,
};
use xdr::{XdrDecode, XdrEncode, XdrReader};

use super::slots::SequenceOutcome;
use crate::decode::results;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::transport::{BulkPayload, RpcCall, RpcReply};
use crate::types::ReadReply;

/// RFC 8881 §16.2: procedure 1, COMPOUND (0 is NULL).
pub(crate) const NFSPROC4_COMPOUND: u32 = 1;
/// Room reserved for a COMPOUND's arguments beyond the RPC header.
const ARGS_CAPACITY: usize = 256;

/// An encoded COMPOUND and the operations it carries, which its reply is checked against.
#[derive(Debug)]
pub(crate) struct Encoded {
    pub(crate) call: RpcCall,
    pub(crate) ops: Vec<OpNum4>,
}

/// The fixed part of a WRITE (RFC 8881 §18.32.1) whose data follows as the call's payload.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WriteHead {
    pub(crate) stateid: Stateid4,
    pub(crate) offset: u64,
    pub(crate) stable: StableHow4,
}

/// `ops` as a COMPOUND of minor version `minor` (empty tag), then a WRITE of `write` when given, its
/// data the payload. `reply_payload` is the READ count a transport may place directly.
pub(crate) fn compound(
    encoder: &CallEncoder,
    minor: u32,
    proc: &'static str,
    ops: &[NfsArgOp<'_>],
    write: Option<(WriteHead, Bytes)>,
    reply_payload: u32,
) -> Encoded {
    let count = ops.len() + usize::from(write.is_some());
    let (xid, inline) = encoder.encode(NFS4_PROGRAM, NFS_V4, NFSPROC4_COMPOUND, ARGS_CAPACITY, |w| {
        w.put_opaque(b"");
        w.put_u32(minor);
        w.put_u32(count as u32);
        for op in ops {
            op.encode(w);
        }
        if let Some((head, data)) = &write {
            // WRITE4args up to the data's length word; the data is the payload (RFC 8267 §4.2: WRITE
            // data is DDP-eligible), and nothing follows it.
            w.put_u32(OpNum4::Write.as_u32());
            head.stateid.encode(w);
            w.put_u64(head.offset);
            head.stable.encode(w);
            w.put_u32(data.len() as u32);
        }
    });
    let mut sent: Vec<OpNum4> = ops.iter().map(NfsArgOp::op).collect();
    let payload = write.map(|(_, data)| {
        sent.push(OpNum4::Write);
        BulkPayload { offset: inline.len(), data }
    });
    Encoded { call: RpcCall { xid, proc, inline, payload, reply_payload }, ops: sent }
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

/// A READ reply (SEQUENCE, PUTFH, READ): the SEQUENCE outcome and, if every operation succeeded, the
/// data — a slice of the record, or the payload placed apart (the record then holds only its length).
pub(crate) struct ReadResults {
    pub(crate) sequence: Option<SequenceOutcome>,
    /// `Ok(reply)`, or the operation and status that ended the COMPOUND.
    pub(crate) outcome: Result<ReadReply, Option<(OpNum4, nfs4_proto::NfsErr4)>>,
}

/// Decodes the reply to SEQUENCE + PUTFH + READ of at most `requested` bytes.
pub(crate) fn decode_read(proc: &'static str, reply: &RpcReply, requested: u32) -> Result<ReadResults, ClientError> {
    let bad = |e: xdr::XdrError| ClientError::protocol(proc, e);
    let body = results(proc, &reply.record)?;
    let mut r = XdrReader::new(body);
    let status = NfsStat4::decode(&mut r).map_err(bad)?;
    let _tag = r.get_string("COMPOUND4res.tag", nfs4_proto::compound::TAG_MAX).map_err(bad)?;
    let n = r.get_array_len("COMPOUND4res.resarray", 3, 8).map_err(bad)?;
    let mut sequence = None;
    for (index, expected) in [OpNum4::Sequence, OpNum4::Putfh].into_iter().enumerate().take(n) {
        let op = OpNum4::decode(&mut r).map_err(bad)?;
        if op != expected {
            return Err(ClientError::protocol(
                proc,
                format!("result {index} is {} where {} was sent", op.name(), expected.name()),
            ));
        }
        let res = NfsResOp::decode_body(op, &mut r).map_err(bad)?;
        if index == 0 {
            sequence = sequence_outcome(std::slice::from_ref(&res));
        }
        if let Some(e) = res.status().error() {
            r.finish().map_err(bad)?;
            check_last(proc, index + 1 == n, status, res.status())?;
            return Ok(ReadResults { sequence, outcome: Err(Some((op, e))) });
        }
    }
    if n < 3 {
        r.finish().map_err(bad)?;
        return Ok(ReadResults { sequence, outcome: Err(None) });
    }
    let op = OpNum4::decode(&mut r).map_err(bad)?;
    if op != OpNum4::Read {
        return Err(ClientError::protocol(proc, format!("result 2 is {} where READ was sent", op.name())));
    }
    let read_status = NfsStat4::decode(&mut r).map_err(bad)?;
    check_last(proc, true, status, read_status)?;
    if let Some(e) = read_status.error() {
        r.finish().map_err(bad)?;
        return Ok(ReadResults { sequence, outcome: Err(Some((op, e))) });
    }
    let eof = r.get_bool().map_err(bad)?;
    let len = r.get_u32().map_err(bad)?;
    let data = match &reply.payload {
        Some(payload) => payload.clone(),
        None => {
            let bytes = r.get_opaque_fixed(len as usize).map_err(bad)?;
            slice_of(&reply.record, bytes)
        }
    };
    r.finish().map_err(bad)?;
    // RFC 8881 §18.22.3: the data returned is at most the count asked for.
    if data.len() != len as usize || len > requested {
        return Err(ClientError::protocol(
            proc,
            format!("{len} bytes of READ data ({} present), {requested} asked", data.len()),
        ));
    }
    Ok(ReadResults { sequence, outcome: Ok(ReadReply { data, eof }) })
}

/// RFC 8881 §16.2.3: the COMPOUND's status is its last result's.
fn check_last(proc: &'static str, last: bool, compound: NfsStat4, result: NfsStat4) -> Result<(), ClientError> {
    if last && compound != result {
        return Err(ClientError::protocol(proc, format!("COMPOUND status {compound} but the last result {result}")));
    }
    Ok(())
}

/// `part` (borrowed from `record`) as a `Bytes` sharing the record's buffer.
fn slice_of(record: &Bytes, part: &[u8]) -> Bytes {
    if part.is_empty() {
        return Bytes::new();
    }
    record.slice_ref(part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs4_proto::{Compound4Args, Nfs4Result, NfsFh4, PutfhArgs, ReadResOk, SequenceArgs, SequenceResOk};
    use onc_rpc::{OpaqueAuth, ReplyBody, RpcMessage};
    use xdr::XdrWriter;

    fn reply_record(results: Vec<NfsResOp<'_>>) -> Bytes {
        let res = Compound4Res::new(b"", results);
        let mut w = RpcMessage::reply(1, ReplyBody::success(OpaqueAuth::NONE)).header_writer(64);
        res.encode(&mut w);
        Bytes::from(w.to_vec())
    }

    fn head() -> [NfsArgOp<'static>; 2] {
        let fh = NfsFh4::new(b"file").expect("handle");
        [NfsArgOp::Sequence(SequenceArgs::default()), NfsArgOp::Putfh(PutfhArgs { object: fh })]
    }

    #[test]
    fn a_write_carries_its_data_as_the_payload_right_after_its_length_word() {
        let data = Bytes::from_static(b"seven b");
        let write = WriteHead { stateid: Stateid4::ANONYMOUS, offset: 4096, stable: StableHow4::FileSync };
        let enc = compound(&CallEncoder::anonymous(), 1, "WRITE", &head(), Some((write, data.clone())), 0);
        assert_eq!(enc.ops, [OpNum4::Sequence, OpNum4::Putfh, OpNum4::Write]);
        let payload = enc.call.payload.as_ref().expect("payload");
        assert_eq!((payload.offset, payload.data.as_ptr()), (enc.call.inline.len(), data.as_ptr()), "not copied");
        let mut wire = enc.call.inline.clone();
        wire.extend_from_slice(&data);
        wire.push(0); // XDR padding of 7 bytes
        let (_, body) = RpcMessage::decode(&wire).expect("a call");
        let args: Compound4Args<'_> = xdr::decode_exact(body).expect("a COMPOUND");
        match &args.argarray[2] {
            NfsArgOp::Write(w) => assert_eq!((w.offset, w.data), (4096, &b"seven b"[..])),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn read_data_is_a_slice_of_the_record_or_the_payload_placed_apart() {
        let seq = NfsResOp::Sequence(Nfs4Result::Ok(SequenceResOk::default()));
        let putfh = NfsResOp::Putfh(Nfs4Result::Ok(nfs4_proto::Void));
        let read = NfsResOp::Read(Nfs4Result::Ok(ReadResOk { eof: true, data: b"abcd" }));
        let record = reply_record(vec![seq.clone(), putfh.clone(), read]);
        let inline = decode_read("READ", &RpcReply { record: record.clone(), payload: None }, 4).expect("decodes");
        let data = inline.outcome.expect("read");
        assert_eq!((&data.data[..], data.eof), (&b"abcd"[..], true));
        let at = data.data.as_ptr() as usize - record.as_ptr() as usize;
        assert!(at < record.len(), "the data lies in the record: nothing was copied");
        assert!(matches!(inline.sequence, Some(SequenceOutcome::Ok { .. })));
        // Placed apart (an RDMA Write chunk): the record holds the length word only.
        let two = Compound4Res::new(b"", vec![seq, putfh]);
        let mut w = XdrWriter::new();
        RpcMessage::reply(1, ReplyBody::success(OpaqueAuth::NONE)).encode_header(&mut w);
        two.encode(&mut w);
        let mut head = w.to_vec();
        // The RPC reply header is 24 bytes; then status, an empty tag, and the result count: 3, not 2.
        head[35] = 3;
        head.extend_from_slice(&[0, 0, 0, 25, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4]);
        let placed = RpcReply { record: Bytes::from(head), payload: Some(Bytes::from_static(b"wxyz")) };
        assert_eq!(&decode_read("READ", &placed, 4).expect("decodes").outcome.expect("read").data[..], b"wxyz");
        assert!(decode_read("READ", &RpcReply { record, payload: None }, 3).is_err(), "more than asked for");
    }
}
