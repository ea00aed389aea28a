//! Reply decoding, run by [`Pending`](crate::Pending) on the caller's task: the RPC reply header
//! (RFC 5531 §9), then the procedure's results (RFC 1813 §3.3) decoded whole, trailing bytes refused.
//! A malformed reply fails its own call only.

use bytes::Bytes;
use nfs3_proto::{
    CommitRes, CreateRes, FsinfoRes, FsinfoResOk, GetattrRes, LookupRes, Nfs3Result, NfsStat3, PostOpAttr, RemoveRes,
    SetattrRes, WriteVerf3,
};
use onc_rpc::{AcceptStat, MessageBody, ReplyBody, RpcMessage};
use xdr::{XdrDecode, XdrReader};

use crate::error::ClientError;
use crate::transport::RpcReply;
use crate::types::{Attr, FileHandle, ReadReply, StableHow, WriteReply};

/// The results of a MSG_ACCEPTED / SUCCESS reply, borrowed from the record.
pub(crate) fn results<'a>(proc: &'static str, record: &'a [u8]) -> Result<&'a [u8], ClientError> {
    let (msg, body) = RpcMessage::decode(record).map_err(|e| ClientError::protocol(proc, e))?;
    match msg.body {
        MessageBody::Call(_) => Err(ClientError::protocol(proc, "a CALL message where a reply was expected")),
        MessageBody::Reply(ReplyBody::Denied(reason)) => Err(ClientError::RpcDenied { proc, reason }),
        MessageBody::Reply(ReplyBody::Accepted(a)) if a.stat != AcceptStat::Success => {
            Err(ClientError::RpcAccept { proc, stat: a.stat })
        }
        MessageBody::Reply(ReplyBody::Accepted(_)) => Ok(body),
    }
}

/// Decodes the whole results of `proc` as `T` (RFC 1813 §3.3), refusing trailing bytes.
fn whole<'a, T: XdrDecode<'a>>(proc: &'static str, record: &'a [u8]) -> Result<T, ClientError> {
    let body = results(proc, record)?;
    xdr::decode_exact(body).map_err(|e| ClientError::protocol(proc, e))
}

/// The success arm of a result, or the NFS error.
fn ok<T, F>(proc: &'static str, res: Nfs3Result<T, F>) -> Result<T, ClientError> {
    res.into_result().map_err(|(status, _)| ClientError::Nfs { proc, status })
}

fn attr(a: &PostOpAttr) -> Option<Attr> {
    a.as_ref().map(Attr::from)
}

/// NULL: void results.
pub(crate) fn null(proc: &'static str, reply: RpcReply, _: u32) -> Result<(), ClientError> {
    let body = results(proc, &reply.record)?;
    XdrReader::new(body).finish().map_err(|e| ClientError::protocol(proc, e))
}

/// GETATTR (RFC 1813 §3.3.1).
pub(crate) fn getattr(proc: &'static str, reply: RpcReply, _: u32) -> Result<Attr, ClientError> {
    let ok = ok(proc, whole::<GetattrRes>(proc, &reply.record)?)?;
    Ok(Attr::from(&ok.obj_attributes))
}

/// LOOKUP (RFC 1813 §3.3.3): `None` for NFS3ERR_NOENT; attributes are optional in the reply.
pub(crate) fn lookup(
    proc: &'static str,
    reply: RpcReply,
    _: u32,
) -> Result<Option<(FileHandle, Option<Attr>)>, ClientError> {
    match whole::<LookupRes>(proc, &reply.record)? {
        Nfs3Result::Ok(ok) => Ok(Some((FileHandle::from(ok.object), attr(&ok.obj_attributes)))),
        Nfs3Result::Fail(nfs3_proto::NfsErr3::NoEnt, _) => Ok(None),
        Nfs3Result::Fail(status, _) => Err(ClientError::Nfs { proc, status }),
    }
}

/// CREATE and MKDIR (RFC 1813 §3.3.8, §3.3.9): handle and attributes, both optional in the reply.
pub(crate) fn create(
    proc: &'static str,
    reply: RpcReply,
    _: u32,
) -> Result<(Option<FileHandle>, Option<Attr>), ClientError> {
    let ok = ok(proc, whole::<CreateRes>(proc, &reply.record)?)?;
    Ok((ok.obj.map(FileHandle::from), attr(&ok.obj_attributes)))
}

/// SETATTR (RFC 1813 §3.3.2): the attributes after, if the server sent them.
pub(crate) fn setattr(proc: &'static str, reply: RpcReply, _: u32) -> Result<Option<Attr>, ClientError> {
    let ok = ok(proc, whole::<SetattrRes>(proc, &reply.record)?)?;
    Ok(attr(&ok.obj_wcc.after))
}

/// REMOVE (RFC 1813 §3.3.12).
pub(crate) fn remove(proc: &'static str, reply: RpcReply, _: u32) -> Result<(), ClientError> {
    ok(proc, whole::<RemoveRes>(proc, &reply.record)?).map(drop)
}

/// FSINFO (RFC 1813 §3.3.19).
pub(crate) fn fsinfo(proc: &'static str, reply: RpcReply, _: u32) -> Result<FsinfoResOk, ClientError> {
    ok(proc, whole::<FsinfoRes>(proc, &reply.record)?)
}

/// COMMIT (RFC 1813 §3.3.21): the write verifier.
pub(crate) fn commit(proc: &'static str, reply: RpcReply, _: u32) -> Result<[u8; 8], ClientError> {
    Ok(ok(proc, whole::<CommitRes>(proc, &reply.record)?)?.verf.0)
}

/// WRITE (RFC 1813 §3.3.7); `sent` is the number of bytes the call carried. Decoded by hand past the
/// file's wcc_data, which nothing here reads.
pub(crate) fn write(proc: &'static str, reply: RpcReply, sent: u32) -> Result<WriteReply, ClientError> {
    let bad = |e: xdr::XdrError| ClientError::protocol(proc, e);
    let mut r = success_arm(proc, &reply.record, skip_wcc_data)?;
    let count = r.get_u32().map_err(bad)?;
    let committed = nfs3_proto::StableHow::decode(&mut r).map_err(bad)?;
    let verifier = WriteVerf3::decode(&mut r).map_err(bad)?;
    r.finish().map_err(bad)?;
    // RFC 1813 §3.3.7: count is the number of bytes written, at most the number sent.
    if count > sent {
        return Err(ClientError::protocol(proc, format!("server wrote {count} bytes of {sent} sent")));
    }
    Ok(WriteReply { count, committed: StableHow::from_nfs3(committed), verifier: verifier.0 })
}

/// The results of a data procedure read up to its success arm: the status, then the attributes both
/// arms begin with, stepped over by `skip`. An NFS error is the call's error (its arm must end there).
#[inline]
fn success_arm<'a>(
    proc: &'static str,
    record: &'a [u8],
    skip: impl FnOnce(&mut XdrReader<'a>) -> Result<(), xdr::XdrError>,
) -> Result<XdrReader<'a>, ClientError> {
    let bad = |e: xdr::XdrError| ClientError::protocol(proc, e);
    let mut r = XdrReader::new(results(proc, record)?);
    let status = NfsStat3::decode(&mut r).map_err(bad)?;
    skip(&mut r).map_err(bad)?;
    if let Some(status) = status.error() {
        r.finish().map_err(bad)?;
        return Err(ClientError::Nfs { proc, status });
    }
    Ok(r)
}

/// Bytes of a `fattr3` and of a `wcc_attr` on the wire (RFC 1813 §2.6): fixed, so the attributes of a
/// data reply, which the data path never reads, are stepped over rather than decoded.
const FATTR3_LEN: usize = 84;
const WCC_ATTR_LEN: usize = 24;

/// `post_op_attr` (RFC 1813 §2.6): a boolean, then a `fattr3` when true.
fn skip_post_op_attr(r: &mut XdrReader<'_>) -> Result<(), xdr::XdrError> {
    if r.get_bool()? {
        r.get_opaque_fixed(FATTR3_LEN)?;
    }
    Ok(())
}

/// `wcc_data` (RFC 1813 §2.6): `pre_op_attr` (a boolean, then a `wcc_attr`), then `post_op_attr`.
fn skip_wcc_data(r: &mut XdrReader<'_>) -> Result<(), xdr::XdrError> {
    if r.get_bool()? {
        r.get_opaque_fixed(WCC_ATTR_LEN)?;
    }
    skip_post_op_attr(r)
}

/// READ (RFC 1813 §3.3.6), decoded by hand so the data is a zero-copy slice of the record, or the
/// payload a transport placed apart from it (the record then holds the length word only).
pub(crate) fn read(proc: &'static str, reply: RpcReply, requested: u32) -> Result<ReadReply, ClientError> {
    let bad = |e: xdr::XdrError| ClientError::protocol(proc, e);
    let mut r = success_arm(proc, &reply.record, skip_post_op_attr)?;
    let count = r.get_u32().map_err(bad)?;
    let eof = r.get_bool().map_err(bad)?;
    let len = r.get_u32().map_err(bad)?;
    let data = match reply.payload {
        Some(payload) => payload,
        None => {
            let bytes = r.get_opaque_fixed(len as usize).map_err(bad)?;
            slice_of(&reply.record, bytes)
        }
    };
    r.finish().map_err(bad)?;
    // RFC 1813 §3.3.6: count is the number of bytes of data returned; never more than asked for.
    if data.len() != len as usize || count != len {
        return Err(ClientError::protocol(proc, format!("count {count} but {} bytes of data", data.len())));
    }
    if count > requested {
        return Err(ClientError::protocol(proc, format!("{count} bytes returned, {requested} asked for")));
    }
    Ok(ReadReply { data, eof })
}

/// Runs the decoder the client uses for the reply to NFSv3 procedure `proc` on `reply`, as
/// [`Pending`](crate::Pending) does, and drops what it decodes: the entry point of the fuzz target
/// `client_replies`. `arg` is what the decoder checks the reply against (READ: the count asked for;
/// WRITE: the bytes sent). Procedures the client never calls are [`ClientError::Unsupported`].
#[doc(hidden)]
pub fn decode_reply_for_fuzzing(proc: u32, reply: RpcReply, arg: u32) -> Result<(), ClientError> {
    use nfs3_proto::Nfs3Proc as P;
    let unsupported = || ClientError::Unsupported(format!("no reply decoder for NFSv3 procedure {proc}"));
    let p = P::from_u32(proc).ok_or_else(unsupported)?;
    let name = p.name();
    match p {
        P::Null => null(name, reply, arg),
        P::Getattr => getattr(name, reply, arg).map(drop),
        P::Setattr => setattr(name, reply, arg).map(drop),
        P::Lookup => lookup(name, reply, arg).map(drop),
        P::Read => read(name, reply, arg).map(drop),
        P::Write => write(name, reply, arg).map(drop),
        P::Create | P::Mkdir => create(name, reply, arg).map(drop),
        P::Remove => remove(name, reply, arg),
        P::Fsinfo => fsinfo(name, reply, arg).map(drop),
        P::Commit => commit(name, reply, arg).map(drop),
        _ => Err(unsupported()),
    }
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
    use nfs3_proto::{Fattr3, NfsErr3, StableHow as Stable3, WccAttr, WccData, WriteRes, WriteResFail, WriteResOk};
    use onc_rpc::OpaqueAuth;
    use xdr::XdrEncode;

    fn record(results: &[u8]) -> RpcReply {
        let mut w = RpcMessage::reply(9, ReplyBody::success(OpaqueAuth::NONE)).header_writer(results.len());
        w.put_raw(results);
        RpcReply { record: Bytes::from(w.to_vec()), payload: None }
    }

    fn attrs() -> Fattr3 {
        // A regular file (ftype 1), every other field zero.
        let mut bytes = vec![0u8; FATTR3_LEN];
        bytes[3] = 1;
        xdr::decode_exact(&bytes).expect("fattr3")
    }

    #[test]
    fn write_replies_are_read_past_their_wcc_data_whatever_it_holds() {
        let full = WccData { before: Some(WccAttr::default()), after: Some(attrs()) };
        for file_wcc in [full, WccData::default()] {
            let ok = WriteResOk { file_wcc, count: 4096, committed: Stable3::Unstable, verf: WriteVerf3([7; 8]) };
            let reply = write("WRITE", record(&WriteRes::Ok(ok).to_xdr_bytes()), 4096).expect("decodes");
            assert_eq!((reply.count, reply.committed, reply.verifier), (4096, StableHow::Unstable, [7; 8]));
            let failed = WriteRes::Fail(NfsErr3::NoSpc, WriteResFail { file_wcc });
            let err = write("WRITE", record(&failed.to_xdr_bytes()), 4096).expect_err("an NFS error");
            assert!(matches!(err, ClientError::Nfs { status: NfsErr3::NoSpc, .. }), "{err:?}");
        }
        let ok = WriteResOk { file_wcc: full, count: 4096, committed: Stable3::FileSync, verf: WriteVerf3([7; 8]) };
        let bytes = WriteRes::Ok(ok).to_xdr_bytes();
        for cut in [4, 40, 100, bytes.len() - 4] {
            assert!(write("WRITE", record(&bytes[..cut]), 4096).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[0; 4]);
        assert!(write("WRITE", record(&longer), 4096).is_err(), "trailing bytes");
        assert!(write("WRITE", record(&bytes), 100).is_err(), "more written than sent");
    }
}
