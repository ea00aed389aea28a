//! The seam between the NFS procedure layer and an RPC transport.
//!
//! The procedure layer encodes each call completely (RPC header with its xid, AUTH_SYS credential,
//! arguments) and hands it to an [`RpcTransport`] as an [`RpcCall`]: the inline bytes with the bulk
//! payload (WRITE data) cut out and kept as a borrowed [`Bytes`] at its XDR position, plus how much
//! bulk data the reply is expected to carry (READ count). The transport frames it (TCP record marking,
//! or an RPC-over-RDMA header with a read chunk at that position and a write chunk for the reply,
//! RFC 8166 §3.5), retransmits it as its rules say, and completes the [`ReplySender`] with the reply
//! record as [`Bytes`] plus, for transports that place bulk data directly, the separately placed
//! payload. So an RPC-over-RDMA transport can be added without touching the procedure layer.
//!
//! The other direction: a server may call the client on the client's own connections (the NFSv4.1
//! backchannel, RFC 8881 §2.10.3.1: CB_NULL, CB_COMPOUND). A transport tells such a call from a reply
//! by the RPC message type (RFC 5531 §9: CALL), never matches it to a call of its own, and hands it to
//! the [`CallbackHandler`] its owner set ([`RpcTransport::set_callback_handler`]); the handler's reply
//! goes back on the connection the call came on. Without a handler each is answered PROG_UNAVAIL.

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};

use bytes::Bytes;
use onc_rpc::{AcceptStat, ReplyBody, RpcMessage};
use tokio::sync::oneshot;

use crate::error::ClientError;
use crate::types::{ClientStats, ConnectionInfo};

/// Bulk data of a call, sent without copying.
#[derive(Debug, Clone)]
pub struct BulkPayload {
    pub data: Bytes,
    /// Bytes of [`RpcCall::inline`] that precede the payload, which is also the payload's XDR position
    /// in the call (its length word is the last inline word before it). XDR padding follows the
    /// payload on the wire and is not part of either.
    pub offset: usize,
}

/// One encoded call as the procedure layer hands it to a transport.
#[derive(Debug)]
pub struct RpcCall {
    /// The xid in the encoded header (the transport matches replies by it).
    pub xid: u32,
    /// The procedure's name, for errors and logs ("READ", "WRITE", ...).
    pub proc: &'static str,
    /// The RPC message (call header and arguments), bulk payload cut out.
    pub inline: Vec<u8>,
    pub payload: Option<BulkPayload>,
    /// Bulk bytes the reply may carry (the READ count), 0 for none: an RDMA transport provides a
    /// write chunk of this size (RFC 8267 §4: only READ data is eligible for direct placement in NFSv3
    /// replies apart from READLINK).
    pub reply_payload: u32,
    /// The longest reply record the caller can get back apart from that bulk data, when it knows:
    /// NFSv4's data COMPOUNDs (SEQUENCE, PUTFH, READ/WRITE/COMMIT) answer in a few words, which an RDMA
    /// transport then takes inline instead of offering a Reply chunk. `None`: the transport sizes
    /// NFSv3 calls itself and offers anything else the largest Reply chunk.
    pub reply_len: Option<u32>,
}

impl RpcCall {
    /// Bytes on the wire without framing: inline, payload and its XDR padding.
    pub fn wire_len(&self) -> usize {
        let payload = self.payload.as_ref().map_or(0, |p| p.data.len() + xdr::padding(p.data.len()));
        self.inline.len() + payload
    }
}

/// A reply as a transport delivers it.
#[derive(Debug, Clone)]
pub struct RpcReply {
    /// The whole reply record: RPC reply header and results.
    pub record: Bytes,
    /// Bulk data the transport placed apart from the record (RPC-over-RDMA write chunk). The record's
    /// XDR then holds the data item's length but not its bytes (RFC 8166 §3.5.4). Always `None` on TCP.
    pub payload: Option<Bytes>,
}

type Outcome = Result<RpcReply, ClientError>;

/// Completes one call; dropping it unanswered fails the call with [`ClientError::Closed`].
#[derive(Debug)]
pub struct ReplySender(oneshot::Sender<Outcome>);

/// The waiting side of a [`ReplySender`].
#[derive(Debug)]
pub struct ReplyReceiver(oneshot::Receiver<Outcome>);

/// A fresh sender/receiver pair for one call.
pub fn reply_channel() -> (ReplySender, ReplyReceiver) {
    let (tx, rx) = oneshot::channel();
    (ReplySender(tx), ReplyReceiver(rx))
}

impl ReplySender {
    pub fn send(self, outcome: Outcome) {
        // The receiver may be gone (the caller stopped waiting): nothing to do then.
        let _ = self.0.send(outcome);
    }

    /// True once the caller stopped waiting: the call need not be retransmitted any more.
    pub fn is_closed(&self) -> bool {
        self.0.is_closed()
    }
}

impl ReplyReceiver {
    /// Waits for the outcome of a call to `proc`, for callers of an [`RpcTransport`] that do not go
    /// through the procedure layer (transport tests, tools); a sender dropped unanswered is `Closed`.
    pub async fn wait(mut self, proc: &'static str) -> Outcome {
        std::future::poll_fn(|cx| self.poll_outcome(cx, proc)).await
    }

    /// Polls for the outcome; a sender dropped unanswered is `Closed`.
    pub(crate) fn poll_outcome(&mut self, cx: &mut Context<'_>, proc: &'static str) -> Poll<Outcome> {
        match Pin::new(&mut self.0).poll(cx) {
            Poll::Ready(Ok(outcome)) => Poll::Ready(outcome),
            Poll::Ready(Err(_)) => Poll::Ready(Err(ClientError::Closed { proc })),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// An RPC transport under the NFS procedure layer: TCP ([`crate::tcp::TcpTransport`]) or
/// RPC-over-RDMA ([`crate::rdma::RdmaTransport`]).
pub trait RpcTransport: Send + Sync + fmt::Debug + 'static {
    /// Queues `call` for sending and returns at once (no await, no backpressure: the caller bounds
    /// what is in flight). The transport completes `reply` exactly once: with the reply, or with an
    /// error (soft timeout, shutdown).
    fn submit(&self, call: RpcCall, reply: ReplySender);

    /// Per-connection state and counters.
    fn connections(&self) -> Vec<ConnectionInfo>;

    /// Totals over all connections.
    fn stats(&self) -> ClientStats;

    /// Stops the transport: outstanding and later calls fail with [`ClientError::Closed`]. The signal
    /// is given when this is called; the returned future waits for the transport's tasks to end.
    fn shutdown(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;

    /// Serves the calls the server makes on this transport's connections with `handler` from now on
    /// (replacing any earlier one). Until one is set, each is answered PROG_UNAVAIL (RFC 5531 §9).
    fn set_callback_handler(&self, handler: Arc<dyn CallbackHandler>);

    /// What the transport did with the server's calls so far.
    fn callback_stats(&self) -> CallbackStats;
}

/// Serves the calls a server makes on the client's own connections (the backchannel).
pub trait CallbackHandler: Send + Sync + fmt::Debug + 'static {
    /// Takes one call record (a complete RPC call, no transport framing) that came on connection
    /// `connection` (its index, as in [`ConnectionInfo::index`]) and returns the reply record (same
    /// xid) to send back on that connection, or `None` to send nothing. Runs on the connection's
    /// receive path: it must be quick and never block.
    fn handle_call(&self, record: &[u8], connection: usize) -> Option<Vec<u8>>;
}

/// What a transport did with the calls its server made (RFC 8881 §2.10.3.1 callbacks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallbackStats {
    /// Calls received.
    pub calls: u64,
    /// Calls the handler answered.
    pub answered: u64,
    /// Calls answered PROG_UNAVAIL because no handler was set.
    pub unavailable: u64,
    /// Calls left unanswered: the handler sent nothing, or the connection had no room for the reply
    /// (its server does not take replies as fast as it calls).
    pub dropped: u64,
}

/// True for a record whose RPC message type is CALL (RFC 5531 §9: the word after the xid is 0): a call
/// from the server, never a reply to one of ours.
pub(crate) fn is_call(record: &[u8]) -> bool {
    record.get(4..8) == Some(&[0, 0, 0, 0])
}

/// The callback service of one transport: the handler its owner set, and what it did. Shared by the
/// transport's connections.
#[derive(Default)]
pub(crate) struct Callbacks {
    handler: RwLock<Option<Arc<dyn CallbackHandler>>>,
    calls: AtomicU64,
    answered: AtomicU64,
    unavailable: AtomicU64,
    dropped: AtomicU64,
}

impl fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Callbacks").field("stats", &self.stats()).finish()
    }
}

impl Callbacks {
    pub(crate) fn set(&self, handler: Arc<dyn CallbackHandler>) {
        *self.handler.write().unwrap_or_else(PoisonError::into_inner) = Some(handler);
    }

    /// The reply to send for call `record` that came on `connection`: the handler's, or PROG_UNAVAIL
    /// without one; `None` when nothing is to be sent. A panicking handler costs that call only.
    pub(crate) fn serve(&self, record: &[u8], connection: usize) -> Option<Vec<u8>> {
        self.calls.fetch_add(1, Relaxed);
        let handler = self.handler.read().unwrap_or_else(PoisonError::into_inner).clone();
        let Some(handler) = handler else {
            // RFC 5531 §9: a call to a program this end does not serve.
            self.unavailable.fetch_add(1, Relaxed);
            let xid = RpcMessage::peek_xid(record)?;
            return Some(
                RpcMessage::reply(xid, ReplyBody::accepted(AcceptStat::ProgUnavail)).header_writer(0).into_vec(),
            );
        };
        match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle_call(record, connection))) {
            Ok(Some(reply)) => {
                self.answered.fetch_add(1, Relaxed);
                Some(reply)
            }
            Ok(None) => {
                self.dropped.fetch_add(1, Relaxed);
                None
            }
            Err(_) => {
                tracing::error!(connection, len = record.len(), "callback handler panicked; call dropped");
                self.dropped.fetch_add(1, Relaxed);
                None
            }
        }
    }

    /// A call the transport does not serve at all (a backward Long Call over RPC-over-RDMA): counted,
    /// dropped.
    pub(crate) fn not_served(&self) {
        self.calls.fetch_add(1, Relaxed);
        self.dropped.fetch_add(1, Relaxed);
    }

    /// A reply the handler made could not be sent (no room on the connection): counted as dropped.
    pub(crate) fn reply_dropped(&self) {
        self.answered.fetch_sub(1, Relaxed);
        self.dropped.fetch_add(1, Relaxed);
    }

    pub(crate) fn stats(&self) -> CallbackStats {
        CallbackStats {
            calls: self.calls.load(Relaxed),
            answered: self.answered.load(Relaxed),
            unavailable: self.unavailable.load(Relaxed),
            dropped: self.dropped.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use onc_rpc::{CallHeader, OpaqueAuth};

    fn call(xid: u32) -> Vec<u8> {
        let header = CallHeader::new(0x4000_0001, 1, 0, OpaqueAuth::NONE, OpaqueAuth::NONE);
        RpcMessage::call(xid, header).header_writer(0).into_vec()
    }

    #[derive(Debug)]
    struct Echo;

    impl CallbackHandler for Echo {
        fn handle_call(&self, record: &[u8], connection: usize) -> Option<Vec<u8>> {
            assert_ne!(connection, 99, "the panicking connection");
            let xid = RpcMessage::peek_xid(record)?;
            Some(RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(0).into_vec())
        }
    }

    #[test]
    fn without_a_handler_a_call_is_answered_prog_unavail_with_its_xid() {
        let callbacks = Callbacks::default();
        assert!(is_call(&call(7)));
        let reply = callbacks.serve(&call(7), 0).expect("an answer");
        let (msg, _) = RpcMessage::decode(&reply).expect("a reply");
        assert_eq!((msg.xid, msg.as_reply()), (7, Some(&ReplyBody::accepted(AcceptStat::ProgUnavail))));
        assert_eq!(callbacks.stats(), CallbackStats { calls: 1, unavailable: 1, ..CallbackStats::default() });
    }

    #[test]
    fn a_handler_answers_and_a_panicking_one_costs_the_call_only() {
        let callbacks = Callbacks::default();
        callbacks.set(Arc::new(Echo));
        let reply = callbacks.serve(&call(8), 1).expect("answered");
        assert_eq!(RpcMessage::peek_xid(&reply), Some(8));
        assert!(callbacks.serve(&call(9), 99).is_none());
        callbacks.reply_dropped();
        assert_eq!(callbacks.stats(), CallbackStats { calls: 2, answered: 0, unavailable: 0, dropped: 2 });
    }
}
