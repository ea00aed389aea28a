//! What a received message is, sans I/O: a call to serve, the client's reply to one of our backward
//! calls, a header to answer with RDMA_ERROR, one to drop, or one that leaves nothing to answer (no
//! xid), which closes the connection.

use rpcrdma_proto::{
    error_reply, peek, validate_call, version_error_reply, ChunkPolicy, DecodeLimits, RdmaBody, RdmaErrorBody,
    RdmaHeader, RpcRdmaError,
};
use server_core::Direction;

/// The verdict on one received message.
#[derive(Debug)]
pub(crate) enum Inbound<'a> {
    /// A call whose header decoded and whose chunks passed [`validate_call`]: `inline` is what followed
    /// the header (the reduced RPC call of an RDMA_MSG, normally nothing for RDMA_NOMSG).
    Call { header: RdmaHeader, inline: &'a [u8] },
    /// The client's reply to a backward call (RFC 8167): RDMA_MSG without chunks carrying an RPC REPLY
    /// with the header's xid. Never executed; it takes no forward credit.
    BackwardReply { header: RdmaHeader, reply: &'a [u8] },
    /// Answer with this RDMA_ERROR (its credit field is filled in when it is sent).
    Answer { header: RdmaHeader, why: String },
    /// Send nothing (RDMA_DONE, an RDMA_ERROR sent to us).
    Ignore { why: String },
    /// Nothing can be answered: not even an xid arrived.
    Close { why: String },
}

/// Classifies one received message (RFC 8166 §4.5: errors are reported with the call's xid).
pub(crate) fn classify<'a>(message: &'a [u8], limits: &DecodeLimits, policy: &ChunkPolicy) -> Inbound<'a> {
    if message.len() < 4 {
        return Inbound::Close { why: format!("{}-byte message holds no xid", message.len()) };
    }
    // RFC 8166 §4.5.1: a version we do not speak is answered with ERR_VERS, the rest left unread.
    if let Some(header) = version_error_reply(message, 0) {
        let vers = peek(message).map_or(0, |h| h.vers);
        return Inbound::Answer { header, why: format!("RPC-over-RDMA version {vers}") };
    }
    let (header, inline) = match RdmaHeader::decode(message, limits) {
        Ok(decoded) => decoded,
        Err(err) => return refuse(message, &err),
    };
    // RFC 8167 §5: the RPC message type tells a backward reply from a call (as Linux's
    // svc_rdma_is_reverse_direction_reply: RDMA_MSG, no chunks, the same xid in both headers).
    if Direction::of(inline) == Direction::Reply {
        return match &header.body {
            RdmaBody::Msg(chunks) if chunks.is_empty() && inline.get(..4) == Some(&header.xid.to_be_bytes()[..]) => {
                Inbound::BackwardReply { header, reply: inline }
            }
            _ => Inbound::Ignore { why: "an RPC reply with chunks, or under another xid".into() },
        };
    }
    // RFC 8166 §4.5.3: chunks the responder cannot or will not use are ERR_CHUNK.
    if let Err(err) = validate_call(&header, inline.len(), policy) {
        return refuse(message, &err);
    }
    Inbound::Call { header, inline }
}

fn refuse(message: &[u8], err: &RpcRdmaError) -> Inbound<'static> {
    match error_reply(message, err, 0) {
        Some(header) => Inbound::Answer { header, why: err.to_string() },
        None => Inbound::Ignore { why: err.to_string() },
    }
}

/// The kind of an RDMA_ERROR, for counters.
pub(crate) fn is_err_vers(header: &RdmaHeader) -> bool {
    matches!(header.body, rpcrdma_proto::RdmaBody::Error(RdmaErrorBody::Vers { .. }))
}

#[cfg(test)]
mod tests {
    use rpcrdma_proto::{ChunkLists, RdmaBody, ReadChunk, Segment};
    use xdr::XdrEncode;

    use super::*;

    fn classify_default(message: &[u8]) -> Inbound<'_> {
        classify(message, &DecodeLimits::default(), &ChunkPolicy::default())
    }

    fn encoded(header: &RdmaHeader, rest: &[u8]) -> Vec<u8> {
        let mut bytes = header.to_xdr_bytes();
        bytes.extend_from_slice(rest);
        bytes
    }

    fn error_body(verdict: &Inbound<'_>) -> Option<(u32, RdmaErrorBody)> {
        match verdict {
            Inbound::Answer { header: RdmaHeader { xid, body: RdmaBody::Error(body), .. }, .. } => Some((*xid, *body)),
            _ => None,
        }
    }

    #[test]
    fn an_inline_call_is_served_with_the_bytes_after_its_header() {
        let message = encoded(&RdmaHeader::msg(7, 32, ChunkLists::default()), b"rpc call");
        match classify_default(&message) {
            Inbound::Call { header, inline } => {
                assert_eq!((header.xid, header.credits, inline), (7, 32, &b"rpc call"[..]));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn version_two_is_answered_with_err_vers_naming_version_one() {
        let mut message = encoded(&RdmaHeader::msg(9, 1, ChunkLists::default()), &[]);
        message[4..8].copy_from_slice(&2u32.to_be_bytes());
        let verdict = classify_default(&message);
        assert_eq!(error_body(&verdict), Some((9, RdmaErrorBody::Vers { low: 1, high: 1 })));
        if let Inbound::Answer { header, .. } = verdict {
            assert!(is_err_vers(&header));
        }
    }

    #[test]
    fn garbage_with_an_xid_is_answered_with_err_chunk_and_without_one_closes() {
        assert!(matches!(classify_default(&[1, 2, 3]), Inbound::Close { .. }));
        let truncated = [0, 0, 0, 5, 0, 0, 0, 1, 0];
        assert_eq!(error_body(&classify_default(&truncated)), Some((5, RdmaErrorBody::Chunk)));
        let mut junk = vec![0xee; 64];
        junk[4..8].copy_from_slice(&1u32.to_be_bytes());
        assert_eq!(error_body(&classify_default(&junk)).map(|e| e.1), Some(RdmaErrorBody::Chunk));
    }

    #[test]
    fn chunks_that_validate_call_refuses_are_err_chunk() {
        let huge = Segment { handle: 1, length: u32::MAX, offset: 0 };
        let chunks = ChunkLists {
            reads: rpcrdma_proto::smallvec![ReadChunk { position: 0, segments: rpcrdma_proto::smallvec![huge] }],
            ..Default::default()
        };
        let message = encoded(&RdmaHeader::nomsg(3, 1, chunks), &[]);
        assert_eq!(error_body(&classify_default(&message)), Some((3, RdmaErrorBody::Chunk)));
        let message = encoded(&RdmaHeader::nomsg(4, 1, ChunkLists::default()), &[]);
        assert_eq!(error_body(&classify_default(&message)), Some((4, RdmaErrorBody::Chunk)));
    }

    #[test]
    fn an_rpc_reply_without_chunks_is_a_backward_reply_never_a_call() {
        let mut reply = 9u32.to_be_bytes().to_vec();
        reply.extend([0, 0, 0, 1, 0, 0, 0, 0]);
        let message = encoded(&RdmaHeader::msg(9, 16, ChunkLists::default()), &reply);
        match classify_default(&message) {
            Inbound::BackwardReply { header, reply: rpc } => {
                assert_eq!((header.xid, header.credits, rpc), (9, 16, &reply[..]))
            }
            other => panic!("{other:?}"),
        }
        let other_xid = encoded(&RdmaHeader::msg(10, 16, ChunkLists::default()), &reply);
        assert!(matches!(classify_default(&other_xid), Inbound::Ignore { .. }));
        let segment = Segment { handle: 1, length: 64, offset: 0 };
        let with_chunk = ChunkLists {
            writes: rpcrdma_proto::smallvec![rpcrdma_proto::WriteChunk { segments: rpcrdma_proto::smallvec![segment] }],
            ..Default::default()
        };
        let message = encoded(&RdmaHeader::msg(9, 16, with_chunk), &reply);
        assert!(matches!(classify_default(&message), Inbound::Ignore { .. }), "never executed as a call");
    }

    #[test]
    fn an_rdma_error_or_done_sent_to_the_server_is_dropped() {
        let message = encoded(&RdmaHeader::error(3, 1, RdmaErrorBody::Chunk), &[]);
        assert!(matches!(classify_default(&message), Inbound::Ignore { .. }));
        let mut done = encoded(&RdmaHeader::msg(3, 1, ChunkLists::default()), &[]);
        done[12..16].copy_from_slice(&3u32.to_be_bytes());
        assert!(matches!(classify_default(&done), Inbound::Ignore { .. }));
    }
}
