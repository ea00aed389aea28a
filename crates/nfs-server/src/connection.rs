//! The connection a call came on, as the transports describe it to the service: its addresses, its
//! transport, and its identity ([`ConnectionId`]), which the front ends assign at accept.
//!
//! An address is never an identity: NFSv4.1 binds connections to sessions (BIND_CONN_TO_SESSION,
//! RFC 8881 §18.34) and sends callbacks on them, and two connections from one client may share an
//! address over their lifetimes (or at once, behind a NAT). So every connection gets an id of its own,
//! unique in the process across every front end and never reused.
//!
//! The backchannel as the service sees it: [`BackwardCalls`] sends an RPC call to the client on one
//! of its connections (NFSv4.1's CB_NULL and CB_COMPOUND, RFC 8881 §2.10.3.1), refused with a typed
//! [`BackChannelError`]; the client's replies come back through the transport's record handler, which
//! says whether each answered a call it is waiting for ([`BackwardReply`]). `server-core` implements
//! [`BackwardCalls`] over the connections its front ends register.

use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Which transport a call arrived on (for access rules and statistics).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransportKind {
    Tcp,
    Rdma,
}

/// A connection's identity: unique within the process, over every front end, and never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConnectionId(u64);

/// The next id to hand out; ids start at 1.
static NEXT_CONNECTION: AtomicU64 = AtomicU64::new(1);

impl ConnectionId {
    /// An id never handed out before in this process (a front end takes one per accepted connection).
    pub fn next() -> ConnectionId {
        // 2^64 connections are never reached, so the counter never wraps to an id in use.
        ConnectionId(NEXT_CONNECTION.fetch_add(1, Relaxed))
    }

    /// The id as a number (for logs and counters).
    pub fn get(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ConnectionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "connection {}", self.0)
    }
}

/// The connection a call came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ConnectionInfo {
    /// Its identity (what sessions bind to; never its address).
    pub id: ConnectionId,
    pub peer: SocketAddr,
    pub local: SocketAddr,
    pub transport: TransportKind,
}

/// Sends RPC calls from the server to a client, on a connection the client opened (the backchannel).
pub trait BackwardCalls: Send + Sync + fmt::Debug {
    /// Queues `record` (one complete RPC call message, no transport framing) for sending on `conn`,
    /// without waiting. Its reply, if the client sends one, comes back to the record handler.
    fn send_call(&self, conn: ConnectionId, record: Vec<u8>) -> Result<(), BackChannelError>;
}

/// Why a backward call was not queued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackChannelError {
    /// The connection is closed (or never was).
    #[error("{0} is not open")]
    NoSuchConnection(ConnectionId),
    /// The connection is open but cannot carry calls towards the client.
    #[error("{conn} cannot carry backward calls: {why}")]
    NotBidirectional { conn: ConnectionId, why: &'static str },
    /// The connection already holds as many backward calls as it may (the client is slow or silent).
    #[error("{conn} already holds {limit} backward calls")]
    QueueFull { conn: ConnectionId, limit: usize },
    /// The call is larger than the connection can carry (over RPC-over-RDMA: the client's inline size).
    #[error("{conn}: a {len}-byte backward call is over its {max}-byte limit")]
    TooLarge { conn: ConnectionId, len: usize, max: usize },
}

/// What became of a reply a client sent back on one of its connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackwardReply {
    /// It answered a backward call the service is waiting for.
    Matched,
    /// It matched no outstanding backward call (an unknown xid, or no backchannel): dropped.
    Unknown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_never_handed_out_twice_even_from_many_threads() {
        let threads: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(|| (0..1000).map(|_| ConnectionId::next()).collect::<Vec<_>>()))
            .collect();
        let mut ids: Vec<ConnectionId> = threads.into_iter().flat_map(|t| t.join().expect("thread")).collect();
        ids.sort();
        let before = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), before, "an id was handed out twice");
        assert!(ids.iter().all(|id| id.get() > 0));
    }
}
