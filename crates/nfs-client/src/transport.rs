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

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
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
}
