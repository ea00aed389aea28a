//! The server's calls on our queue pair (RFC 8167, bidirectional RPC-over-RDMA), sans I/O: telling one
//! from a reply, and the message that answers it.
//!
//! As the Linux client (`rpcrdma_is_bcall`, `backchannel.c`): a backward call is RDMA_MSG with all
//! three chunk lists empty and an RPC CALL after the header under the header's xid; its `rdma_credit`
//! is what the server asks for in the backward direction, so it never touches the forward grant, and
//! it is never matched to one of our calls (xids of the two directions may coincide). We post
//! [`BACKWARD_CREDITS`] receives beyond the forward credits for such calls (RFC 8167 §4: a client posts
//! receives for the backward calls it accepts) and grant that many in every backward reply, which is
//! RDMA_MSG, inline, without chunks. A call the server sends with chunks (a Long Call) is not answered.

use bytes::Bytes;
use rpcrdma_proto::{ChunkLists, RdmaBody, RdmaHeader};
use xdr::XdrEncode;

use crate::transport::is_call;

/// Backward calls the server may have outstanding on one queue pair: the receives posted for them, and
/// the grant in every backward reply. Linux's client grants 16 (`rb_bc_srv_max_requests`); an NFSv4.1
/// back channel has a slot or a few.
pub const BACKWARD_CREDITS: u32 = 8;

/// The tag of a backward reply's Send: the call's xid with this bit set (forward Sends use bit 32).
pub(crate) const BACKWARD_TAG: u64 = 1 << 33;

/// What a received message from the server is, for the receive path.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum FromServer {
    /// A backward call to answer: its RPC record.
    Call(Bytes),
    /// A call we do not take (chunks offered): dropped, never matched to a call of ours.
    Refused,
    /// Anything else: a reply (or garbage) for the forward direction.
    Reply,
}

/// Classifies a message whose transport header decoded as `header`, `inline` the bytes after it.
pub(crate) fn classify(header: &RdmaHeader, inline: &Bytes) -> FromServer {
    match &header.body {
        // RFC 8167 §5: the RPC message type tells a backward call from a reply.
        RdmaBody::Msg(chunks) if is_call(inline) => {
            let same_xid = inline.get(..4) == Some(&header.xid.to_be_bytes()[..]);
            if chunks.is_empty() && same_xid {
                FromServer::Call(inline.clone())
            } else {
                FromServer::Refused
            }
        }
        // A reply never carries Read chunks: a message with some is the server's Long Call.
        RdmaBody::NoMsg(chunks) if !chunks.reads.is_empty() => FromServer::Refused,
        _ => FromServer::Reply,
    }
}

/// The Send answering backward call `xid` with `reply` (RFC 8167 §5: RDMA_MSG under the call's xid,
/// the backward grant in `rdma_credit`, no chunks); `None` when it does not fit the server's inline
/// receive size `send_limit`.
pub(crate) fn reply_message(xid: u32, reply: &[u8], send_limit: usize) -> Option<Vec<u8>> {
    let header = RdmaHeader::msg(xid, BACKWARD_CREDITS, ChunkLists::default());
    if header.encoded_len() + reply.len() > send_limit {
        return None;
    }
    let mut message = header.to_xdr_bytes();
    message.extend_from_slice(reply);
    Some(message)
}

#[cfg(test)]
mod tests {
    use rpcrdma_proto::{DecodeLimits, Segment, WriteChunk};

    use super::*;

    fn rpc(xid: u32, msg_type: u32) -> Bytes {
        let mut rpc = xid.to_be_bytes().to_vec();
        rpc.extend(msg_type.to_be_bytes());
        rpc.extend([0; 16]);
        Bytes::from(rpc)
    }

    #[test]
    fn a_call_without_chunks_under_its_own_xid_is_a_backward_call() {
        let header = RdmaHeader::msg(5, 2, ChunkLists::default());
        assert_eq!(classify(&header, &rpc(5, 0)), FromServer::Call(rpc(5, 0)));
        assert_eq!(classify(&header, &rpc(5, 1)), FromServer::Reply, "a reply to one of ours");
        assert_eq!(classify(&header, &rpc(6, 0)), FromServer::Refused, "xids differ");
    }

    #[test]
    fn a_call_with_chunks_is_refused_never_taken_for_a_reply() {
        let segment = Segment { handle: 1, length: 8, offset: 0 };
        let chunks = ChunkLists {
            writes: rpcrdma_proto::smallvec![WriteChunk { segments: rpcrdma_proto::smallvec![segment] }],
            ..ChunkLists::default()
        };
        assert_eq!(classify(&RdmaHeader::msg(5, 2, chunks), &rpc(5, 0)), FromServer::Refused);
        let long = ChunkLists {
            reads: rpcrdma_proto::smallvec![rpcrdma_proto::ReadChunk {
                position: 0,
                segments: rpcrdma_proto::smallvec![segment]
            }],
            ..ChunkLists::default()
        };
        assert_eq!(classify(&RdmaHeader::nomsg(5, 2, long), &Bytes::new()), FromServer::Refused);
        let reply_chunk = ChunkLists {
            reply: Some(WriteChunk { segments: rpcrdma_proto::smallvec![segment] }),
            ..ChunkLists::default()
        };
        assert_eq!(classify(&RdmaHeader::nomsg(5, 2, reply_chunk), &Bytes::new()), FromServer::Reply);
    }

    #[test]
    fn the_reply_grants_the_backward_credits_and_must_fit_inline() {
        let message = reply_message(9, &[7; 100], 1024).expect("fits");
        let (header, rest) = RdmaHeader::decode(&message, &DecodeLimits::default()).expect("decodes");
        assert_eq!((header.xid, header.credits, rest), (9, BACKWARD_CREDITS, &[7; 100][..]));
        assert_eq!(header.body, RdmaBody::Msg(ChunkLists::default()));
        assert!(reply_message(9, &[0; 1024 - 28], 1024).is_some());
        assert!(reply_message(9, &[0; 1024 - 27], 1024).is_none());
    }
}
