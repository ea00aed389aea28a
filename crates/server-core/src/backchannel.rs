//! The backchannel, transport-neutral: the live connections that can carry calls from the server to
//! the client (NFSv4.1 callbacks run on the client's own connection, RFC 8881 §2.10.3.1), by
//! [`ConnectionId`].
//!
//! A front end registers each connection at accept with a [`BackwardSender`] of its own (TCP: the
//! connection's write queue; RPC-over-RDMA: an inline Send within the backward credits, RFC 8167) and
//! the [`Registration`] removes it when the connection ends. The service sends through
//! [`BackChannel::send_call`] ([`BackwardCalls`]), which never waits: a sender queues the call or
//! refuses it with a typed [`BackChannelError`]. The client's replies come back to the record handler
//! ([`crate::RecordHandler::handle_reply`]), routed by the front ends from the RPC message type.
//!
//! Memory is bounded by construction: one entry per open connection, and each sender caps the calls it
//! holds ([`MAX_BACKWARD_QUEUED`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use nfs_server::{BackChannelError, BackwardCalls, ConnectionId};
use tokio::sync::mpsc::{self, error::TrySendError};

/// Backward calls one connection holds at most before it refuses more with
/// [`BackChannelError::QueueFull`]: calls handed to it and not yet taken by its task, and again calls
/// taken and not yet on the wire (TCP) or waiting for a backward credit (RPC-over-RDMA). NFSv4.1
/// clients offer one or a few backchannel slots (Linux: 1 session slot, 16 RPC-over-RDMA credits), so
/// a well-behaved server never gets near it.
pub const MAX_BACKWARD_QUEUED: usize = 16;

/// The sender both front ends register: a bounded queue ([`MAX_BACKWARD_QUEUED`]) that the connection's
/// task drains. A record longer than the connection can carry is [`BackChannelError::TooLarge`], a full
/// queue [`BackChannelError::QueueFull`], a queue whose task is gone [`BackChannelError::NoSuchConnection`].
#[derive(Debug)]
pub struct QueuedSender {
    conn: ConnectionId,
    calls: mpsc::Sender<Vec<u8>>,
    /// Largest call record carried (TCP: a record-marking fragment; RDMA: the client's inline receive).
    max_len: usize,
}

impl QueuedSender {
    /// A sender for connection `conn` carrying calls of at most `max_len` bytes, and the receiving
    /// end its task drains.
    pub fn new(conn: ConnectionId, max_len: usize) -> (QueuedSender, mpsc::Receiver<Vec<u8>>) {
        let (calls, rx) = mpsc::channel(MAX_BACKWARD_QUEUED);
        (QueuedSender { conn, calls, max_len }, rx)
    }
}

impl BackwardSender for QueuedSender {
    fn send(&self, record: Vec<u8>) -> Result<(), BackChannelError> {
        let conn = self.conn;
        if record.len() > self.max_len {
            return Err(BackChannelError::TooLarge { conn, len: record.len(), max: self.max_len });
        }
        self.calls.try_send(record).map_err(|err| match err {
            TrySendError::Full(_) => BackChannelError::QueueFull { conn, limit: MAX_BACKWARD_QUEUED },
            TrySendError::Closed(_) => BackChannelError::NoSuchConnection(conn),
        })
    }
}

/// How a front end carries backward calls on one of its connections.
pub trait BackwardSender: Send + Sync + fmt::Debug + 'static {
    /// Queues `record` (a complete RPC call, no framing) for the connection's task to send, without
    /// waiting; refuses it when the connection is closing, full, or cannot carry it.
    fn send(&self, record: Vec<u8>) -> Result<(), BackChannelError>;
}

/// The connections of one server that can carry backward calls. Shared (`Arc`) by the front ends that
/// fill it and the service that sends through it.
#[derive(Default)]
pub struct BackChannel {
    senders: Mutex<HashMap<ConnectionId, Arc<dyn BackwardSender>>>,
    sent: AtomicU64,
    refused: AtomicU64,
}

impl fmt::Debug for BackChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BackChannel")
            .field("connections", &self.lock().len())
            .field("sent", &self.sent.load(Relaxed))
            .field("refused", &self.refused.load(Relaxed))
            .finish()
    }
}

/// A connection's place in a [`BackChannel`]; dropping it (when the connection ends) removes it.
#[derive(Debug)]
pub struct Registration {
    channel: Arc<BackChannel>,
    conn: ConnectionId,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.channel.lock().remove(&self.conn);
    }
}

impl BackChannel {
    pub fn new() -> Arc<BackChannel> {
        Arc::default()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<ConnectionId, Arc<dyn BackwardSender>>> {
        // The map stays consistent whatever panicked while holding the lock.
        self.senders.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers connection `conn` (at accept) with the way its front end carries backward calls.
    pub fn register(self: &Arc<Self>, conn: ConnectionId, sender: Arc<dyn BackwardSender>) -> Registration {
        self.lock().insert(conn, sender);
        Registration { channel: Arc::clone(self), conn }
    }

    /// True while `conn` is registered.
    pub fn is_open(&self, conn: ConnectionId) -> bool {
        self.lock().contains_key(&conn)
    }

    /// Connections registered now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Backward calls queued, and refused, so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.sent.load(Relaxed), self.refused.load(Relaxed))
    }

    /// Queues `record` on `conn`; see [`BackwardCalls::send_call`].
    pub fn send_call(&self, conn: ConnectionId, record: Vec<u8>) -> Result<(), BackChannelError> {
        // The sender is called outside the lock: it may take its own.
        let sender = self.lock().get(&conn).cloned();
        let result = match sender {
            Some(sender) => sender.send(record),
            None => Err(BackChannelError::NoSuchConnection(conn)),
        };
        match &result {
            Ok(()) => self.sent.fetch_add(1, Relaxed),
            Err(err) => {
                tracing::debug!(conn = conn.get(), error = %err, "backward call refused");
                self.refused.fetch_add(1, Relaxed)
            }
        };
        result
    }
}

impl BackwardCalls for BackChannel {
    fn send_call(&self, conn: ConnectionId, record: Vec<u8>) -> Result<(), BackChannelError> {
        BackChannel::send_call(self, conn, record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keeps what it is given, up to `room` calls.
    #[derive(Debug, Default)]
    struct Keeper {
        kept: Mutex<Vec<Vec<u8>>>,
        room: usize,
    }

    impl BackwardSender for Keeper {
        fn send(&self, record: Vec<u8>) -> Result<(), BackChannelError> {
            let mut kept = self.kept.lock().expect("lock");
            if kept.len() >= self.room {
                return Err(BackChannelError::QueueFull { conn: ConnectionId::next(), limit: self.room });
            }
            kept.push(record);
            Ok(())
        }
    }

    #[test]
    fn a_call_reaches_the_sender_of_its_connection_only() {
        let channel = BackChannel::new();
        let (a, b) = (Arc::new(Keeper { room: 4, ..Keeper::default() }), Arc::new(Keeper::default()));
        let (conn_a, conn_b) = (ConnectionId::next(), ConnectionId::next());
        let _ra = channel.register(conn_a, a.clone());
        let _rb = channel.register(conn_b, b.clone());
        assert_eq!(channel.send_call(conn_a, b"cb".to_vec()), Ok(()));
        assert_eq!(*a.kept.lock().expect("lock"), vec![b"cb".to_vec()]);
        assert!(b.kept.lock().expect("lock").is_empty());
        assert!(matches!(channel.send_call(conn_b, Vec::new()), Err(BackChannelError::QueueFull { .. })));
        assert_eq!(channel.counts(), (1, 1));
    }

    #[test]
    fn a_closed_connection_is_no_longer_there() {
        let channel = BackChannel::new();
        let conn = ConnectionId::next();
        let registration = channel.register(conn, Arc::new(Keeper { room: 1, ..Keeper::default() }));
        assert!(channel.is_open(conn));
        drop(registration);
        assert!(channel.is_empty());
        assert_eq!(channel.send_call(conn, b"late".to_vec()), Err(BackChannelError::NoSuchConnection(conn)));
    }
}
