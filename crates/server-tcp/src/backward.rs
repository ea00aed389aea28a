//! Backward calls on a TCP connection (the NFSv4.1 backchannel, RFC 8881 §2.10.3.1): the service
//! hands a call record to the connection's sender (server-core's `QueuedSender`) from any thread; the connection's
//! task takes it from a bounded channel and queues it as an ordinary record, between whole replies,
//! on its write queue (RFC 5531 §11 record marking: records never interleave). The client's replies
//! come back as records whose message type is REPLY and go to the handler's `handle_reply`.
//!
//! Bounded: the channel holds at most [`server_core::MAX_BACKWARD_QUEUED`] calls, and the task takes one only while
//! fewer than that are waiting on its write queue; a client that does not read its socket then gets
//! [`BackChannelError::QueueFull`], and `write_stall_timeout` closes its connection.

use std::sync::Arc;

use nfs_server::ConnectionId;
use onc_rpc::MAX_FRAGMENT_LEN;
use server_core::{BackChannel, QueuedSender, Registration};
use tokio::sync::mpsc;

/// The connection's side: the calls to send, and its place in the registry (removed when dropped).
#[derive(Debug)]
pub(crate) struct Backward {
    calls: mpsc::Receiver<Vec<u8>>,
    _registration: Registration,
}

impl Backward {
    /// Registers connection `conn` in `channel`, carrying calls of at most `max_record` bytes.
    pub(crate) fn register(channel: &Arc<BackChannel>, conn: ConnectionId, max_record: usize) -> Backward {
        // Largest call record carried: the connection's `max_record`, and one record-marking fragment.
        let (sender, calls) = QueuedSender::new(conn, max_record.min(MAX_FRAGMENT_LEN as usize));
        let registration = channel.register(conn, Arc::new(sender));
        Backward { calls, _registration: registration }
    }

    /// The next call handed over; pending until there is one (forever once the registry is gone).
    pub(crate) async fn next(backward: &mut Option<Backward>) -> Vec<u8> {
        match backward {
            Some(b) => match b.calls.recv().await {
                Some(record) => record,
                None => std::future::pending().await,
            },
            None => std::future::pending().await,
        }
    }

    /// A call already handed over, without waiting.
    pub(crate) fn try_next(&mut self) -> Option<Vec<u8>> {
        self.calls.try_recv().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nfs_server::BackChannelError;
    use server_core::MAX_BACKWARD_QUEUED;

    #[tokio::test]
    async fn calls_past_the_cap_or_too_large_are_refused_and_a_closed_connection_is_gone() {
        let channel = BackChannel::new();
        let conn = ConnectionId::next();
        let mut backward = Some(Backward::register(&channel, conn, 100));
        for _ in 0..MAX_BACKWARD_QUEUED {
            channel.send_call(conn, vec![1; 8]).expect("room");
        }
        let full = channel.send_call(conn, vec![1; 8]);
        assert_eq!(full, Err(BackChannelError::QueueFull { conn, limit: MAX_BACKWARD_QUEUED }));
        let large = channel.send_call(conn, vec![0; 101]);
        assert_eq!(large, Err(BackChannelError::TooLarge { conn, len: 101, max: 100 }));
        assert_eq!(Backward::next(&mut backward).await, vec![1; 8]);
        assert!(backward.as_mut().and_then(Backward::try_next).is_some());
        drop(backward);
        assert_eq!(channel.send_call(conn, vec![1]), Err(BackChannelError::NoSuchConnection(conn)));
    }
}
