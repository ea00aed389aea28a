//! The connection a call came on, as the transports describe it to the service: its addresses, its
//! transport, and its identity ([`ConnectionId`]), which the front ends assign at accept.
//!
//! An address is never an identity: NFSv4.1 binds connections to sessions (BIND_CONN_TO_SESSION,
//! RFC 8881 §18.34) and sends callbacks on them, and two connections from one client may share an
//! address over their lifetimes (or at once, behind a NAT). So every connection gets an id of its own,
//! unique in the process across every front end and never reused.

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
