//! Receiving a reply, sans I/O (RFC 8166 §3.5, §4.2–§4.5): the transport header is decoded from the
//! received message; once the call's memory is invalidated, the RPC reply is put back together from the
//! Send (RDMA_MSG), the Reply chunk (RDMA_NOMSG) and the Write chunk the server pushed READ data into,
//! each truncated to the lengths the server returned. RDMA_ERROR fails the call.

use bytes::Bytes;
use rpcrdma_proto::{peek, peek_err_vers, DecodeLimits, RdmaBody, RdmaErrorBody, RdmaHeader, RpcRdmaError, WriteChunk};

use crate::error::ClientError;
use crate::transport::RpcReply;

/// A received message whose transport header decoded.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub(crate) header: RdmaHeader,
    /// The bytes after the header: for RDMA_MSG the RPC reply (without any Write chunk data).
    pub(crate) inline: Bytes,
}

/// Decodes the transport header of a received message. A requester drops what it cannot parse
/// (RFC 8166 §4.5.2); the caller logs and counts it. An ERR_VERS is read whatever the version of the
/// message carrying it (RFC 8166 §4.5: its layout is fixed for all versions).
pub(crate) fn parse(message: &Bytes) -> Result<Received, RpcRdmaError> {
    let (header, rest) = match RdmaHeader::decode(message, &DecodeLimits::default()) {
        Ok(decoded) => decoded,
        Err(err @ RpcRdmaError::VersionMismatch { .. }) => {
            let (Some(head), Some((low, high))) = (peek(message), peek_err_vers(message)) else { return Err(err) };
            let header = RdmaHeader::error(head.xid, head.credits, RdmaErrorBody::Vers { low, high });
            return Ok(Received { header, inline: Bytes::new() });
        }
        Err(err) => return Err(err),
    };
    let inline = message.slice(message.len() - rest.len()..);
    Ok(Received { header, inline })
}

/// The registered reply buffers of a call, given back whole after invalidation.
#[derive(Debug, Default)]
pub(crate) struct Offered {
    /// The Write chunk's buffer (READ data), if one was offered.
    pub(crate) write: Option<Bytes>,
    /// The Reply chunk's buffer, if one was offered.
    pub(crate) reply: Option<Bytes>,
}

/// The reply to `proc` from a received message and the buffers the call offered.
pub(crate) fn assemble(proc: &'static str, received: Received, offered: Offered) -> Result<RpcReply, ClientError> {
    let bad = |detail: String| ClientError::protocol(proc, detail);
    let (chunks, record) = match received.header.body {
        // RFC 8166 §4.5: the responder could not process the call.
        RdmaBody::Error(body) => return Err(ClientError::RdmaErrorReply { proc, body }),
        RdmaBody::Msg(chunks) => (chunks, received.inline),
        // RFC 8166 §3.5.4: RDMA_NOMSG carries the whole reply in the Reply chunk.
        RdmaBody::NoMsg(chunks) => {
            let returned = chunks.reply.as_ref().ok_or_else(|| bad("RDMA_NOMSG reply without a Reply chunk".into()))?;
            let buffer =
                offered.reply.as_ref().ok_or_else(|| bad("RDMA_NOMSG reply to a call with no Reply chunk".into()))?;
            let record = returned_bytes("Reply", returned, buffer).map_err(|e| ClientError::protocol(proc, e))?;
            (chunks, record)
        }
    };
    if chunks.writes.len() > 1 {
        return Err(bad(format!("{} Write chunks returned; at most one was offered", chunks.writes.len())));
    }
    // RFC 8166 §3.4.6: the responder returns each Write chunk with the lengths it wrote; the record
    // then holds the data item's length word but not its bytes.
    let payload = match (chunks.writes.first(), &offered.write) {
        (None, _) => None,
        (Some(returned), Some(buffer)) => {
            Some(returned_bytes("Write", returned, buffer).map_err(|e| ClientError::protocol(proc, e))?)
        }
        (Some(_), None) => return Err(bad("Write chunk returned for a call that offered none".into())),
    };
    Ok(RpcReply { record, payload })
}

/// The part of a chunk's buffer the responder filled: the returned segment lengths, added up. We offer
/// one segment per chunk, so more segments, or more bytes than offered, are a broken reply.
fn returned_bytes(kind: &'static str, returned: &WriteChunk, buffer: &Bytes) -> Result<Bytes, ReturnedChunkError> {
    if returned.segments.len() > 1 {
        return Err(ReturnedChunkError::Segments { kind, segments: returned.segments.len() });
    }
    let len = returned.byte_len();
    match usize::try_from(len) {
        Ok(len) if len <= buffer.len() => Ok(buffer.slice(..len)),
        _ => Err(ReturnedChunkError::Length { kind, len, offered: buffer.len() }),
    }
}

/// A chunk the responder returned that does not fit the one the call offered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ReturnedChunkError {
    #[error("{kind} chunk returned with {segments} segments; one was offered")]
    Segments { kind: &'static str, segments: usize },
    #[error("{kind} chunk returned with {len} bytes; {offered} were offered")]
    Length { kind: &'static str, len: u64, offered: usize },
}

/// For the fuzzer: a received message decoded and put back together against a call that offered a Write
/// chunk buffer of `write_len` bytes and a Reply chunk buffer of `reply_len` bytes (either may be absent).
/// Returns the reply record and payload lengths, or the error. Must never panic.
#[doc(hidden)]
pub fn reassemble_reply_for_fuzzing(
    message: &[u8],
    write_len: Option<usize>,
    reply_len: Option<usize>,
) -> Result<(usize, usize), ClientError> {
    let received = parse(&Bytes::copy_from_slice(message)).map_err(|e| ClientError::protocol("FUZZ", e))?;
    let offered = Offered {
        write: write_len.map(|n| Bytes::from(vec![0u8; n])),
        reply: reply_len.map(|n| Bytes::from(vec![0u8; n])),
    };
    let reply = assemble("FUZZ", received, offered)?;
    Ok((reply.record.len(), reply.payload.map_or(0, |p| p.len())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpcrdma_proto::{ChunkLists, Segment};
    use xdr::{XdrEncode, XdrWriter};

    fn message(header: &RdmaHeader, rest: &[u8]) -> Bytes {
        let mut w = XdrWriter::new();
        header.encode(&mut w);
        w.put_raw(rest);
        Bytes::from(w.to_vec())
    }

    fn chunk(length: u32) -> WriteChunk {
        WriteChunk { segments: rpcrdma_proto::smallvec![Segment { handle: 9, length, offset: 0x1000 }] }
    }

    #[test]
    fn inline_reply_is_the_bytes_after_the_header() {
        let msg = message(&RdmaHeader::msg(7, 32, ChunkLists::default()), b"rpc-reply");
        let received = parse(&msg).expect("decodes");
        assert_eq!((received.header.xid, received.header.credits), (7, 32));
        let reply = assemble("GETATTR", received, Offered::default()).expect("assembles");
        assert_eq!(&reply.record[..], b"rpc-reply");
        assert!(reply.payload.is_none());
    }

    #[test]
    fn read_data_is_the_write_chunk_buffer_truncated_to_the_returned_length() {
        let chunks = ChunkLists { writes: rpcrdma_proto::smallvec![chunk(5)], ..ChunkLists::default() };
        let msg = message(&RdmaHeader::msg(1, 8, chunks), b"head");
        let offered = Offered { write: Some(Bytes::from_static(b"hello world")), reply: None };
        let reply = assemble("READ", parse(&msg).expect("decodes"), offered).expect("assembles");
        assert_eq!(&reply.record[..], b"head");
        assert_eq!(reply.payload.as_deref(), Some(&b"hello"[..]));
    }

    #[test]
    fn nomsg_reply_is_the_reply_chunk_truncated_to_the_returned_length() {
        let chunks = ChunkLists { reply: Some(chunk(3)), ..ChunkLists::default() };
        let msg = message(&RdmaHeader::nomsg(1, 8, chunks), b"");
        let offered = Offered { write: None, reply: Some(Bytes::from_static(b"abcdef")) };
        let reply = assemble("READDIRPLUS", parse(&msg).expect("decodes"), offered).expect("assembles");
        assert_eq!(&reply.record[..], b"abc");
    }

    #[test]
    fn rejects_returned_chunks_longer_than_offered_or_never_offered() {
        let chunks = ChunkLists { writes: rpcrdma_proto::smallvec![chunk(12)], ..ChunkLists::default() };
        let msg = message(&RdmaHeader::msg(1, 8, chunks), b"");
        let offered = Offered { write: Some(Bytes::from_static(b"hello world")), reply: None };
        let err = assemble("READ", parse(&msg).expect("decodes"), offered).expect_err("too long");
        assert!(err.to_string().contains("12 bytes; 11 were offered"), "{err}");
        let err = assemble("READ", parse(&msg).expect("decodes"), Offered::default()).expect_err("not offered");
        assert!(err.to_string().contains("offered none"), "{err}");
        let chunks = ChunkLists { reply: Some(chunk(1)), ..ChunkLists::default() };
        let msg = message(&RdmaHeader::nomsg(1, 8, chunks), b"");
        let err = assemble("GETATTR", parse(&msg).expect("decodes"), Offered::default()).expect_err("no reply chunk");
        assert!(err.to_string().contains("no Reply chunk"), "{err}");
        let two = WriteChunk { segments: rpcrdma_proto::smallvec![Segment::default(), Segment::default()] };
        let msg = message(
            &RdmaHeader::msg(1, 8, ChunkLists { writes: rpcrdma_proto::smallvec![two], ..ChunkLists::default() }),
            b"",
        );
        let offered = Offered { write: Some(Bytes::from_static(b"x")), reply: None };
        assert!(assemble("READ", parse(&msg).expect("decodes"), offered).is_err());
    }

    #[test]
    fn rdma_error_fails_the_call_naming_err_chunk_or_err_vers() {
        let msg = message(&RdmaHeader::error(3, 1, RdmaErrorBody::Chunk), b"");
        let err = assemble("WRITE", parse(&msg).expect("decodes"), Offered::default()).expect_err("error");
        assert!(matches!(err, ClientError::RdmaErrorReply { proc: "WRITE", body: RdmaErrorBody::Chunk }));
        assert!(err.to_string().contains("ERR_CHUNK"), "{err}");
        let msg = message(&RdmaHeader::error(3, 1, RdmaErrorBody::Vers { low: 2, high: 2 }), b"");
        let err = assemble("WRITE", parse(&msg).expect("decodes"), Offered::default()).expect_err("error");
        assert!(err.to_string().contains("ERR_VERS"), "{err}");
    }

    #[test]
    fn err_vers_from_a_responder_of_another_version_is_still_read() {
        let mut msg = message(&RdmaHeader::error(9, 4, RdmaErrorBody::Vers { low: 2, high: 3 }), b"").to_vec();
        msg[7] = 2;
        let received = parse(&Bytes::from(msg)).expect("ERR_VERS is read in any version");
        assert_eq!(received.header, RdmaHeader::error(9, 4, RdmaErrorBody::Vers { low: 2, high: 3 }));
    }

    #[test]
    fn malformed_headers_do_not_parse() {
        assert!(parse(&Bytes::from_static(&[0, 0, 0, 1, 0, 0, 0, 1])).is_err());
        let mut bad_version = message(&RdmaHeader::msg(1, 1, ChunkLists::default()), b"").to_vec();
        bad_version[7] = 2;
        assert!(parse(&Bytes::from(bad_version)).is_err());
        // A Write list claiming 2^32 - 1 segments in a 40-byte message.
        let mut w = XdrWriter::new();
        for word in [1u32, 1, 1, 0, 0, 1, u32::MAX] {
            w.put_u32(word);
        }
        assert!(parse(&Bytes::from(w.to_vec())).is_err());
    }
}
