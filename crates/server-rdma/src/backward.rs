//! Backward calls on an RPC-over-RDMA connection (RFC 8167, bidirectional RPC-over-RDMA): the server
//! calls the client on the client's own queue pair, as NFSv4.1 callbacks need.
//!
//! As the Linux server sends them (`svc_rdma_backchannel.c`): RDMA_MSG, all three chunk lists empty,
//! the whole call inline, so within the client's inline receive size; the call's xid in `rdma_xid` and
//! the credits asked for (our backward maximum) in `rdma_credit` (RFC 8167 §5). The client's grant is
//! read from each backward reply's `rdma_credit` (RFC 8167 §4: backward credits are accounted apart
//! from forward ones), starting from one, clamped to our maximum and never taken as 0; a call is sent
//! only while the grant leaves room, the others wait in a bounded channel ([`server_core::MAX_BACKWARD_QUEUED`]) and
//! further calls are refused. The replies arrive as RDMA_MSG whose RPC message type is REPLY; each
//! consumes one of the receives posted beyond the forward credits for them (RFC 8167 §4: a server posts
//! a receive for the reply to each backward call it may have outstanding), never a forward credit.
//!
//! A client that never answers keeps its credits: its calls then wait in the channel, then are refused
//! ([`BackChannelError::QueueFull`]); the forward direction is not affected.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use nfs_server::{BackChannelError, BackwardReply, ConnectionId};
use rpcrdma_proto::{ChunkLists, CreditState, RdmaHeader};
use server_core::{reply_contained, BackChannel, BackwardSender, QueuedSender, RecordHandler, Registration};
use tokio::sync::mpsc;
use xdr::XdrEncode;

use crate::connection::Connection;
use crate::work_queue::{Work, WrKind, WrTag};

/// The RPC-over-RDMA header of a backward call: xid, version, credits, RDMA_MSG, three empty lists.
pub(crate) const CALL_HEADER_LEN: usize = 28;

/// A connection of a server that grants no backward credits.
#[derive(Debug)]
struct NoBackward(ConnectionId);

impl BackwardSender for NoBackward {
    fn send(&self, _record: Vec<u8>) -> Result<(), BackChannelError> {
        Err(BackChannelError::NotBidirectional { conn: self.0, why: "the RDMA server's backward credits are 0" })
    }
}

/// The connection's side: calls handed over, the client's backward grant, the calls it owes replies to.
#[derive(Debug)]
pub(crate) struct Backward {
    calls: Option<mpsc::Receiver<Vec<u8>>>,
    credits: CreditState,
    /// Xids of backward calls sent and not yet answered (at most the credit maximum).
    outstanding: Vec<u32>,
    _registration: Option<Registration>,
}

impl Backward {
    /// Connection `conn`'s backward direction with at most `max_credits` calls outstanding (0: none), for
    /// a client receiving `send_limit` bytes inline; registered in `channel` when there is one.
    pub(crate) fn new(
        channel: Option<&Arc<BackChannel>>,
        conn: ConnectionId,
        max_credits: u32,
        send_limit: usize,
    ) -> Backward {
        let mut backward = Backward {
            calls: None,
            credits: CreditState::new(max_credits.max(1)),
            outstanding: Vec::new(),
            _registration: None,
        };
        let Some(channel) = channel else { return backward };
        let sender: Arc<dyn BackwardSender> = if max_credits == 0 {
            Arc::new(NoBackward(conn))
        } else {
            // As the Linux server: a backward call goes inline, offering no chunk for its reply, so
            // the client's inline receive size less our header is the largest call carried.
            let (sender, rx) = QueuedSender::new(conn, send_limit.saturating_sub(CALL_HEADER_LEN));
            backward.calls = Some(rx);
            Arc::new(sender)
        };
        backward._registration = Some(channel.register(conn, sender));
        backward
    }

    /// What to put in `rdma_credit` of a backward call: our maximum (RFC 8167 §4).
    pub(crate) fn request(&self) -> u32 {
        self.credits.request()
    }

    /// True when the client's grant leaves room for one more call.
    pub(crate) fn can_send(&self) -> bool {
        self.calls.is_some() && self.credits.available() > 0
    }

    /// The next call handed over; pending until there is one (forever without a channel).
    pub(crate) async fn next(&mut self) -> Vec<u8> {
        match &mut self.calls {
            Some(calls) => match calls.recv().await {
                Some(record) => record,
                None => std::future::pending().await,
            },
            None => std::future::pending().await,
        }
    }

    /// Takes a credit for call `xid` about to be sent; false when the grant leaves none.
    pub(crate) fn sending(&mut self, xid: u32) -> bool {
        if !self.credits.try_acquire() {
            return false;
        }
        self.outstanding.push(xid);
        true
    }

    /// A backward reply with `xid` and `granted` credits arrived: true when it answers a call sent
    /// here, whose credit then comes back with the new grant (0 read as 1, as the Linux server does).
    pub(crate) fn answered(&mut self, xid: u32, granted: u32) -> bool {
        let Some(at) = self.outstanding.iter().position(|&x| x == xid) else { return false };
        self.outstanding.swap_remove(at);
        self.credits.on_reply(granted);
        true
    }

    /// Backward calls sent and unanswered.
    pub(crate) fn outstanding(&self) -> usize {
        self.outstanding.len()
    }
}

impl<H: RecordHandler> Connection<H> {
    /// Receives posted for the client's calls: those kept for replies to backward calls left out.
    pub(crate) fn forward_posted(&self) -> u32 {
        self.posted.saturating_sub(self.setup.config.backward_credits)
    }

    /// Sends a backward call the service handed over (the client's grant has room: checked before it
    /// was taken from the channel).
    pub(crate) fn send_backward(&mut self, record: Vec<u8>) {
        let peer = self.setup.info.peer;
        let Some(xid) = record.first_chunk::<4>().map(|w| u32::from_be_bytes(*w)) else {
            return tracing::warn!(%peer, len = record.len(), "backward call without an xid dropped");
        };
        if !self.backward.sending(xid) {
            return tracing::warn!(%peer, xid, "backward call past the client's grant dropped");
        }
        // RFC 8167 §5: RDMA_MSG with the call's xid and the credits we ask for; no chunks.
        let header = RdmaHeader::msg(xid, self.backward.request(), ChunkLists::default());
        let mut message = header.to_xdr_bytes();
        message.extend_from_slice(&record);
        self.queue.push(WrTag::new(WrKind::Backward, 0), Work::Send { message });
        self.stats.backward_calls.fetch_add(1, Relaxed);
        tracing::debug!(%peer, xid, outstanding = self.backward.outstanding(), "backward call sent");
    }

    /// The client's reply (`record`, with its transport header's `xid` and `granted` credits) to a
    /// backward call: its credit comes back if it answers one sent here, and the handler takes it.
    pub(crate) fn take_reply(&mut self, xid: u32, granted: u32, record: &[u8]) {
        self.stats.backward_replies.fetch_add(1, Relaxed);
        let ours = self.backward.answered(xid, granted);
        if reply_contained(&*self.handler, record, &self.setup.info) == BackwardReply::Unknown {
            self.stats.unmatched_replies.fetch_add(1, Relaxed);
            self.refusals.refused();
            tracing::debug!(peer = %self.setup.info.peer, xid, ours, "reply matching no backward call dropped");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use server_core::MAX_BACKWARD_QUEUED;

    fn backward(max: u32) -> (Arc<BackChannel>, ConnectionId, Backward) {
        let channel = BackChannel::new();
        let conn = ConnectionId::next();
        let backward = Backward::new(Some(&channel), conn, max, 1024);
        (channel, conn, backward)
    }

    #[test]
    fn one_call_goes_before_the_client_grants_more_and_the_grant_is_clamped() {
        let (_channel, _conn, mut b) = backward(2);
        assert_eq!(b.request(), 2);
        assert!(b.can_send() && b.sending(1));
        assert!(!b.can_send(), "RFC 8166 §3.3.3: one credit until a reply grants more");
        assert!(b.answered(1, 16), "the client grants 16, we use 2");
        assert!(b.sending(2) && b.sending(3));
        assert!(!b.can_send());
        assert!(b.answered(3, 0), "a grant of 0 is read as 1");
        assert!(!b.can_send(), "one call outstanding, grant 1");
        assert!(b.answered(2, 1));
        assert_eq!(b.outstanding(), 0);
    }

    #[test]
    fn a_reply_to_no_call_returns_no_credit() {
        let (_channel, _conn, mut b) = backward(2);
        assert!(b.sending(7));
        assert!(!b.answered(8, 2), "unknown xid");
        assert!(!b.can_send(), "the credit of call 7 is still out");
        assert!(b.answered(7, 2));
        assert!(!b.answered(7, 2), "answered once only");
    }

    #[test]
    fn calls_are_refused_when_too_large_for_the_clients_inline_size_or_past_the_queue() {
        let (channel, conn, _b) = backward(2);
        let max = 1024 - CALL_HEADER_LEN;
        let too_large = channel.send_call(conn, vec![0; max + 1]);
        assert_eq!(too_large, Err(BackChannelError::TooLarge { conn, len: max + 1, max }));
        for _ in 0..MAX_BACKWARD_QUEUED {
            channel.send_call(conn, vec![0; max]).expect("room");
        }
        let full = channel.send_call(conn, vec![0; 8]);
        assert_eq!(full, Err(BackChannelError::QueueFull { conn, limit: MAX_BACKWARD_QUEUED }));
    }

    #[test]
    fn without_backward_credits_the_connection_cannot_carry_calls() {
        let (channel, conn, b) = backward(0);
        assert!(!b.can_send());
        assert!(matches!(channel.send_call(conn, vec![0; 8]), Err(BackChannelError::NotBidirectional { .. })));
    }
}
