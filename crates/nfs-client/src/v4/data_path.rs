//! The COMPOUNDs of the data path — SEQUENCE, PUTFH, then READ, WRITE or COMMIT — written and read by
//! hand, word by word, as NFSv3's READ and WRITE are: no operation enum is built, moved or dropped per
//! call and no result array allocated. READ's data stays a slice of the reply record (or is the payload
//! a transport placed apart), WRITE's data is the call's payload, never copied.

use std::borrow::Cow;

use bytes::Bytes;
use nfs4_proto::{
    NfsErr4, NfsFh4, NfsStat4, OpNum4, SequenceArgs, Stateid4, NFS4_FHSIZE, NFS4_PROGRAM, NFS4_SESSIONID_SIZE, NFS_V4,
};
use xdr::{XdrError, XdrReader};

use super::slots::SequenceOutcome;
use super::wire::{Encoded, WriteHead, NFSPROC4_COMPOUND};
use crate::decode::results;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::transport::{BulkPayload, RpcCall, RpcReply};
use crate::types::ReadReply;

/// The longest reply of a data COMPOUND apart from READ data: RPC reply header (24 bytes with an
/// AUTH_NONE verifier, 32 with a short one), COMPOUND4res header (12 plus our empty tag), SEQUENCE4res
/// (44), PUTFH (8), and WRITE4resok (24, the largest of READ's 16 and COMMIT's 16) — about 130 bytes;
/// 256 leaves room for a verifier body. An error result is shorter. Over RDMA this lets the reply come
/// inline (or with the READ data in a Write chunk) instead of in a Reply chunk sized for anything.
const DATA_REPLY_LEN: u32 = 256;

/// The operation after SEQUENCE and PUTFH.
#[derive(Debug, Clone)]
pub(crate) enum DataOp {
    Read { stateid: Stateid4, offset: u64, count: u32 },
    Write { head: WriteHead, data: Bytes },
    Commit { offset: u64, count: u32 },
}

impl DataOp {
    fn opnum(&self) -> OpNum4 {
        match self {
            DataOp::Read { .. } => OpNum4::Read,
            DataOp::Write { .. } => OpNum4::Write,
            DataOp::Commit { .. } => OpNum4::Commit,
        }
    }
}

const READ_OPS: &[OpNum4] = &[OpNum4::Sequence, OpNum4::Putfh, OpNum4::Read];
const WRITE_OPS: &[OpNum4] = &[OpNum4::Sequence, OpNum4::Putfh, OpNum4::Write];
const COMMIT_OPS: &[OpNum4] = &[OpNum4::Sequence, OpNum4::Putfh, OpNum4::Commit];

/// SEQUENCE (RFC 8881 §18.46.1), PUTFH of `fh` (§18.19.1) and `op` as a COMPOUND of minor version `minor`.
pub(crate) fn encode(
    encoder: &CallEncoder,
    minor: u32,
    proc: &'static str,
    seq: &SequenceArgs,
    fh: &NfsFh4,
    op: DataOp,
) -> Encoded {
    // The arguments are assembled on the stack and written with one call: ~15 field writes through the
    // XDR writer cost more than the copy (profile of 4 KiB random reads, nfsbench run).
    let mut args = Words::default();
    args.opaque(b"");
    args.u32(minor);
    args.u32(3);
    args.u32(OpNum4::Sequence.as_u32());
    args.bytes(&seq.sessionid.0);
    for word in [seq.sequenceid, seq.slotid, seq.highest_slotid, u32::from(seq.cachethis)] {
        args.u32(word);
    }
    args.u32(OpNum4::Putfh.as_u32());
    args.opaque(fh.as_bytes());
    args.u32(op.opnum().as_u32());
    match &op {
        DataOp::Read { stateid, offset, count } => {
            args.stateid(stateid);
            args.u64(*offset);
            args.u32(*count);
        }
        // WRITE4args up to the data's length word; the data is the payload and nothing follows it.
        DataOp::Write { head, data } => {
            args.stateid(&head.stateid);
            args.u64(head.offset);
            args.u32(head.stable.as_u32());
            args.u32(data.len() as u32);
        }
        DataOp::Commit { offset, count } => {
            args.u64(*offset);
            args.u32(*count);
        }
    }
    let (xid, inline) =
        encoder.encode(NFS4_PROGRAM, NFS_V4, NFSPROC4_COMPOUND, args.len, |w| w.put_raw(args.as_slice()));
    let (ops, payload, reply_payload) = match op {
        DataOp::Read { count, .. } => (READ_OPS, None, count),
        DataOp::Write { data, .. } => (WRITE_OPS, Some(BulkPayload { offset: inline.len(), data }), 0),
        DataOp::Commit { .. } => (COMMIT_OPS, None, 0),
    };
    let reply_len = Some(DATA_REPLY_LEN);
    Encoded { call: RpcCall { xid, proc, inline, payload, reply_payload, reply_len }, ops: Cow::Borrowed(ops) }
}

/// The most bytes of a data COMPOUND's arguments: tag (4), minor version and count (8), SEQUENCE (36),
/// PUTFH with the largest handle (136), WRITE up to its data's length word (36).
const ARGS_MAX: usize = 4 + 8 + 36 + (8 + NFS4_FHSIZE) + 36;

/// XDR words written into a buffer on the stack (every item here is a multiple of four bytes but the
/// handle, which [`Words::opaque`] pads).
struct Words {
    buf: [u8; ARGS_MAX],
    len: usize,
}

impl Default for Words {
    fn default() -> Self {
        Words { buf: [0; ARGS_MAX], len: 0 }
    }
}

impl Words {
    fn bytes(&mut self, b: &[u8]) {
        self.buf[self.len..self.len + b.len()].copy_from_slice(b);
        self.len += b.len();
    }

    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_be_bytes());
    }

    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_be_bytes());
    }

    /// `opaque<>` (RFC 4506 §4.10): length, bytes, zero padding (the buffer starts zeroed).
    fn opaque(&mut self, b: &[u8]) {
        self.u32(b.len() as u32);
        self.bytes(b);
        self.len += xdr::padding(b.len());
    }

    fn stateid(&mut self, s: &Stateid4) {
        self.u32(s.seqid);
        self.bytes(&s.other);
    }

    fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

/// A data COMPOUND's reply: the SEQUENCE outcome and, if every operation succeeded, what `read_ok`
/// made of the last one's `resok`; else the operation and status that ended it (`None`: it ended early).
pub(crate) struct Answer<T> {
    pub(crate) sequence: Option<SequenceOutcome>,
    pub(crate) outcome: Result<T, Option<(OpNum4, NfsErr4)>>,
}

/// Reads the reply to SEQUENCE + PUTFH + `op`; `read_ok` reads `op`'s `resok` (trailing bytes refused).
/// Word by word as the call was written: operation numbers compared as words, a status looked up only
/// when it is not NFS4_OK, SEQUENCE4resok read in place — no result enum built or dropped.
pub(crate) fn decode<T>(
    proc: &'static str,
    reply: &RpcReply,
    op: OpNum4,
    read_ok: impl FnOnce(&mut XdrReader<'_>, &RpcReply) -> Result<T, ClientError>,
) -> Result<Answer<T>, ClientError> {
    let bad = |e: XdrError| ClientError::protocol(proc, e);
    let body = results(proc, &reply.record)?;
    let mut r = XdrReader::new(body);
    let status = status(&mut r).map_err(bad)?;
    let _tag = r.get_string("COMPOUND4res.tag", nfs4_proto::compound::TAG_MAX).map_err(bad)?;
    let n = r.get_array_len("COMPOUND4res.resarray", 3, 8).map_err(bad)?;
    let mut sequence = None;
    for (index, expected) in [OpNum4::Sequence, OpNum4::Putfh, op].into_iter().enumerate().take(n) {
        let got = r.get_enum("nfs_opnum4", OpNum4::from_u32).map_err(bad)?;
        if got != expected {
            let detail = format!("result {index} is {} where {} was sent", got.name(), expected.name());
            return Err(ClientError::protocol(proc, detail));
        }
        let result = self::status(&mut r).map_err(bad)?;
        if index == 0 {
            sequence = Some(match result.error() {
                None => sequence_ok(&mut r).map_err(bad)?,
                Some(e) => SequenceOutcome::Failed(e),
            });
        }
        let last = index + 1 == n;
        // RFC 8881 §16.2.3: the results stop at the first failure, whose status is the COMPOUND's.
        if (last && result != status) || (!last && !result.is_ok()) {
            return Err(ClientError::protocol(proc, format!("COMPOUND status {status} but result {index} {result}")));
        }
        if let Some(e) = result.error() {
            r.finish().map_err(bad)?;
            return Ok(Answer { sequence, outcome: Err(Some((got, e))) });
        }
        if index == 2 {
            let value = read_ok(&mut r, reply)?;
            r.finish().map_err(bad)?;
            return Ok(Answer { sequence, outcome: Ok(value) });
        }
    }
    r.finish().map_err(bad)?;
    Ok(Answer { sequence, outcome: Err(None) })
}

/// An `nfsstat4` (RFC 8881 §15.1): NFS4_OK at once, any other value looked up (unknown: refused).
fn status(r: &mut XdrReader<'_>) -> Result<NfsStat4, XdrError> {
    r.get_enum("nfsstat4", |v| if v == 0 { Some(NfsStat4::Ok) } else { NfsStat4::from_u32(v) })
}

/// SEQUENCE4resok (RFC 8881 §18.46.2): the session and slot echoed (not checked, as before), then
/// what the slot table needs.
fn sequence_ok(r: &mut XdrReader<'_>) -> Result<SequenceOutcome, XdrError> {
    let _sessionid = r.get_opaque_fixed(NFS4_SESSIONID_SIZE)?;
    let _sequenceid = r.get_u32()?;
    let _slotid = r.get_u32()?;
    let highest_slotid = r.get_u32()?;
    let target_highest_slotid = r.get_u32()?;
    let status_flags = r.get_u32()?;
    Ok(SequenceOutcome::Ok { highest_slotid, target_highest_slotid, status_flags })
}

/// READ4resok (RFC 8881 §18.22.2): `eof`, then the data — in the record, or placed apart by the
/// transport (the record then holds its length word only); at most `requested` bytes (§18.22.3).
pub(crate) fn read_ok(
    proc: &'static str,
    requested: u32,
) -> impl FnOnce(&mut XdrReader<'_>, &RpcReply) -> Result<ReadReply, ClientError> {
    move |r, reply| {
        let bad = |e: XdrError| ClientError::protocol(proc, e);
        let eof = r.get_bool().map_err(bad)?;
        let len = r.get_u32().map_err(bad)?;
        let data = match &reply.payload {
            Some(payload) => payload.clone(),
            None => slice_of(&reply.record, r.get_opaque_fixed(len as usize).map_err(bad)?),
        };
        if data.len() != len as usize || len > requested {
            let detail = format!("{len} bytes of READ data ({} present), {requested} asked", data.len());
            return Err(ClientError::protocol(proc, detail));
        }
        Ok(ReadReply { data, eof })
    }
}

/// `part` (borrowed from `record`) as a `Bytes` sharing the record's buffer.
pub(crate) fn slice_of(record: &Bytes, part: &[u8]) -> Bytes {
    if part.is_empty() {
        return Bytes::new();
    }
    record.slice_ref(part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs4_proto::{
        Compound4Args, Compound4Res, Nfs4Result, NfsArgOp, NfsResOp, ReadResOk, SequenceResOk, StableHow4,
    };
    use onc_rpc::{OpaqueAuth, ReplyBody, RpcMessage};
    use xdr::{XdrEncode, XdrWriter};

    fn fh() -> NfsFh4 {
        NfsFh4::new(b"file").expect("handle")
    }

    fn reply_record(results: Vec<NfsResOp<'_>>) -> Bytes {
        let res = Compound4Res::new(b"", results);
        let mut w = RpcMessage::reply(1, ReplyBody::success(OpaqueAuth::NONE)).header_writer(64);
        res.encode(&mut w);
        Bytes::from(w.to_vec())
    }

    #[test]
    fn the_hand_written_compounds_are_the_codecs_bytes_for_any_handle_length() {
        let seq =
            SequenceArgs { sequenceid: 9, slotid: 2, highest_slotid: 5, cachethis: true, ..SequenceArgs::default() };
        let stateid = Stateid4::new(3, *b"twelve-bytes");
        for len in [1, 4, 5, 7, 36, 128] {
            let fh = NfsFh4::new(&vec![0xa5; len]).expect("handle");
            let data = Bytes::from_static(b"written");
            let cases = [
                (
                    DataOp::Read { stateid, offset: 1 << 33, count: 4096 },
                    NfsArgOp::Read(nfs4_proto::ReadArgs { stateid, offset: 1 << 33, count: 4096 }),
                ),
                (
                    DataOp::Write {
                        head: WriteHead { stateid, offset: 77, stable: StableHow4::DataSync },
                        data: data.clone(),
                    },
                    NfsArgOp::Write(nfs4_proto::WriteArgs {
                        stateid,
                        offset: 77,
                        stable: StableHow4::DataSync,
                        data: &data,
                    }),
                ),
                (
                    DataOp::Commit { offset: 5, count: 6 },
                    NfsArgOp::Commit(nfs4_proto::CommitArgs { offset: 5, count: 6 }),
                ),
            ];
            for (op, codec_op) in cases {
                let enc = encode(&CallEncoder::anonymous(), 2, "DATA", &seq, &fh, op);
                let args = Compound4Args {
                    tag: b"",
                    minorversion: 2,
                    argarray: vec![
                        NfsArgOp::Sequence(seq),
                        NfsArgOp::Putfh(nfs4_proto::PutfhArgs { object: fh }),
                        codec_op,
                    ],
                };
                let mut w = XdrWriter::new();
                args.encode(&mut w);
                let (_, body) = RpcMessage::decode(&enc.call.inline).expect("a call");
                assert_eq!(body, w.inline_bytes(), "handle of {len} bytes");
            }
        }
    }

    #[test]
    fn the_hand_written_compounds_decode_as_the_codec_reads_them() {
        let seq = SequenceArgs { sequenceid: 9, slotid: 2, ..SequenceArgs::default() };
        let read = DataOp::Read { stateid: Stateid4::CURRENT, offset: 8192, count: 4096 };
        let enc = encode(&CallEncoder::anonymous(), 1, "READ", &seq, &fh(), read);
        assert_eq!((enc.call.reply_payload, enc.call.payload.is_none()), (4096, true));
        let (_, body) = RpcMessage::decode(&enc.call.inline).expect("a call");
        let args: Compound4Args<'_> = xdr::decode_exact(body).expect("a COMPOUND");
        assert_eq!(args.ops(), enc.ops.to_vec());
        assert!(matches!(&args.argarray[0], NfsArgOp::Sequence(s) if s.sequenceid == 9 && s.slotid == 2));
        assert!(matches!(&args.argarray[2], NfsArgOp::Read(r) if r.offset == 8192 && r.count == 4096));
    }

    #[test]
    fn a_write_carries_its_data_as_the_payload_right_after_its_length_word() {
        let data = Bytes::from_static(b"seven b");
        let head = WriteHead { stateid: Stateid4::ANONYMOUS, offset: 4096, stable: StableHow4::FileSync };
        let op = DataOp::Write { head, data: data.clone() };
        let enc = encode(&CallEncoder::anonymous(), 1, "WRITE", &SequenceArgs::default(), &fh(), op);
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
        let reply = RpcReply { record: record.clone(), payload: None };
        let inline = decode("READ", &reply, OpNum4::Read, read_ok("READ", 4)).expect("decodes");
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
        let got = decode("READ", &placed, OpNum4::Read, read_ok("READ", 4)).expect("decodes");
        assert_eq!(&got.outcome.expect("read").data[..], b"wxyz");
        assert!(decode("READ", &reply, OpNum4::Read, read_ok("READ", 3)).is_err(), "more than asked for");
        assert!(
            decode("WRITE", &reply, OpNum4::Write, read_ok("WRITE", 4)).is_err(),
            "a READ result where WRITE was sent"
        );
    }

    #[test]
    fn a_failed_operation_ends_the_reply_with_its_status() {
        let seq = NfsResOp::Sequence(Nfs4Result::Ok(SequenceResOk::default()));
        let putfh = NfsResOp::Putfh(Nfs4Result::Err(NfsErr4::Stale));
        let reply = RpcReply { record: reply_record(vec![seq, putfh]), payload: None };
        let got = decode("READ", &reply, OpNum4::Read, read_ok("READ", 4)).expect("decodes");
        assert_eq!(got.outcome.err(), Some(Some((OpNum4::Putfh, NfsErr4::Stale))));
    }

    #[test]
    fn the_sequence_result_is_read_in_place_and_a_failed_sequence_ends_the_reply() {
        let ok = SequenceResOk {
            highest_slotid: 31,
            target_highest_slotid: 15,
            status_flags: 0x40,
            ..SequenceResOk::default()
        };
        let seq = NfsResOp::Sequence(Nfs4Result::Ok(ok));
        let putfh = NfsResOp::Putfh(Nfs4Result::Ok(nfs4_proto::Void));
        let read = NfsResOp::Read(Nfs4Result::Ok(ReadResOk { eof: false, data: b"ab" }));
        let reply = RpcReply { record: reply_record(vec![seq, putfh, read]), payload: None };
        let got = decode("READ", &reply, OpNum4::Read, read_ok("READ", 2)).expect("decodes");
        let want = SequenceOutcome::Ok { highest_slotid: 31, target_highest_slotid: 15, status_flags: 0x40 };
        assert_eq!(got.sequence, Some(want));
        let failed = NfsResOp::Sequence(Nfs4Result::Err(NfsErr4::BadSession));
        let res = Compound4Res::new(b"", vec![failed]);
        let mut w = RpcMessage::reply(1, ReplyBody::success(OpaqueAuth::NONE)).header_writer(64);
        res.encode(&mut w);
        let reply = RpcReply { record: Bytes::from(w.to_vec()), payload: None };
        let got = decode("READ", &reply, OpNum4::Read, read_ok("READ", 2)).expect("decodes");
        assert_eq!(got.sequence, Some(SequenceOutcome::Failed(NfsErr4::BadSession)));
        assert_eq!(got.outcome.err(), Some(Some((OpNum4::Sequence, NfsErr4::BadSession))));
    }

    #[test]
    fn an_unknown_status_an_unknown_operation_and_trailing_bytes_are_refused() {
        let seq = NfsResOp::Sequence(Nfs4Result::Ok(SequenceResOk::default()));
        let putfh = NfsResOp::Putfh(Nfs4Result::Ok(nfs4_proto::Void));
        let read = NfsResOp::Read(Nfs4Result::Ok(ReadResOk { eof: true, data: b"abcd" }));
        let good = reply_record(vec![seq, putfh, read]).to_vec();
        let decodes = |record: Vec<u8>| {
            let reply = RpcReply { record: Bytes::from(record), payload: None };
            decode("READ", &reply, OpNum4::Read, read_ok("READ", 4)).map(|_| ())
        };
        assert!(decodes(good.clone()).is_ok());
        // The RPC reply header is 24 bytes; then the COMPOUND's status, the tag and the count (36), then
        // SEQUENCE's operation number and status.
        let mut unknown_status = good.clone();
        unknown_status[24..28].copy_from_slice(&77_777u32.to_be_bytes());
        assert!(decodes(unknown_status).is_err(), "a status no RFC defines");
        let mut unknown_op = good.clone();
        unknown_op[36..40].copy_from_slice(&9_999u32.to_be_bytes());
        assert!(decodes(unknown_op).is_err(), "an operation no RFC defines");
        let mut other_op = good.clone();
        other_op[36..40].copy_from_slice(&OpNum4::Putfh.as_u32().to_be_bytes());
        assert!(decodes(other_op).is_err(), "PUTFH's result where SEQUENCE's was due");
        let mut trailing = good.clone();
        trailing.extend_from_slice(&[0, 0, 0, 0]);
        assert!(decodes(trailing).is_err(), "bytes after the last result");
        assert!(decodes(good[..good.len() - 4].to_vec()).is_err(), "a reply cut short");
    }
}
