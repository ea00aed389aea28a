//! RPC over TCP (RFC 5531 §11 record marking) with `nconnect` connections.
//!
//! Each connection slot has a driver task (connect, reconnect: [`crate::slot`]), a reader and a writer
//! task on the current TCP connection, and a timer task for retransmissions; calls are spread over the
//! slots round-robin, as the Linux client does with `nconnect`. The slot's calls live in a
//! [`crate::calls::CallTable`]: the reader hands it replies, the writer takes the calls waiting in it,
//! and a call that times out waits there to be sent again on the same connection, as Linux does over TCP. Sockets bind any local port: servers that
//! insist on a privileged source port ("secure", the knfsd default) need `insecure` on the export.
//!
//! A record from the server whose RPC message type is CALL is a callback (the NFSv4.1 backchannel):
//! the reader hands it to the transport's [`CallbackHandler`](crate::transport::CallbackHandler) and
//! queues the reply for the writer, which sends it as an ordinary record, between whole calls; at most
//! [`MAX_CALLBACK_REPLIES`] wait per connection, so a server that calls faster than it reads costs a
//! bounded amount (the calls past it go unanswered, counted).
//!
//! Replies that trickle in one at a time (a server that writes each separately) would wake the reader
//! once each: while many calls are outstanding the reader raises its socket's receive low-water mark
//! to the bytes of a share of the replies due, so one wake-up (one `epoll_wait`, one `recvfrom`, and
//! one `writev` for the calls sent back) serves several. Inside a large reply (a 1 MiB READ) the mark
//! is the rest of that reply: one wake-up for it instead of one per burst of segments (2.3 → 0.9
//! context switches and 18 → 6 system calls per 1 MiB READ on loopback). The wait on a raised mark is bounded, so a
//! dropped reply or a stalled server delays the others by at most a millisecond or two ([`coalesce`]).
//! `NFSBENCH_TCP_COALESCE=0` turns it off, to measure without.

mod coalesce;
mod connection;
mod driver;
mod framing;
mod lowat;
mod reader;
#[cfg(test)]
mod tests;
mod writer;

use std::net::SocketAddr;
use std::sync::Arc;

use onc_rpc::RecordLimits;
use tokio::task::JoinSet;

use crate::error::ClientError;
use crate::lanes::{transport_over_lanes, Lanes};
use crate::responsiveness::Responsiveness;
use crate::retransmit::RetransmitPolicy;
use crate::slot;
use crate::transport::Callbacks;
use connection::{Connection, Shared};
pub(crate) use driver::connect;
use driver::open;
pub use framing::RecordSplitter;

/// Replies to the server's calls waiting for the writer, per connection, at most.
pub const MAX_CALLBACK_REPLIES: usize = 16;

/// Room for the RPC and NFS headers of a READ reply beyond its data (verifier up to 400 bytes,
/// attributes, counts), with plenty to spare.
pub const REPLY_HEADROOM: usize = 64 << 10;

/// How a [`TcpTransport`] behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpOptions {
    /// `timeo`, `retrans`, `hard`/`soft`.
    pub retransmit: RetransmitPolicy,
    /// Largest reply record accepted; a larger one breaks the connection. `rsize` + [`REPLY_HEADROOM`].
    pub max_record: usize,
}

/// The TCP [`RpcTransport`]: one connection per address given, reconnected when lost.
#[derive(Debug)]
pub struct TcpTransport {
    lanes: Lanes<Connection>,
    callbacks: Arc<Callbacks>,
}

impl TcpTransport {
    /// Connects to every address (all at once) and starts the connections' tasks. Fails if any
    /// connection cannot be made. Must be called inside a Tokio runtime.
    pub async fn connect(addrs: &[SocketAddr], options: TcpOptions) -> Result<Self, ClientError> {
        Self::connect_over(addrs, options, None).await
    }

    /// Connects like [`connect`](Self::connect), every connection (and every reconnection) through the
    /// emulated long-distance `link` when one is given ([`wan::tcp::relay`]); the connections report
    /// the real sockets' local addresses.
    pub async fn connect_over(
        addrs: &[SocketAddr],
        options: TcpOptions,
        link: Option<Arc<wan::Link>>,
    ) -> Result<Self, ClientError> {
        if addrs.is_empty() {
            return Err(ClientError::Unsupported("a mount needs at least one connection".into()));
        }
        let policy = options.retransmit;
        let limits = RecordLimits { max_record: options.max_record, ..RecordLimits::default() };
        let callbacks = Arc::new(Callbacks::default());
        let shared = Arc::new(Shared {
            policy,
            limits,
            responsiveness: Responsiveness::default(),
            link,
            callbacks: Arc::clone(&callbacks),
        });
        let timeout = policy.connect_timeout();
        let mut attempts = JoinSet::new();
        for (index, &addr) in addrs.iter().enumerate() {
            let link = shared.link.clone();
            attempts.spawn(async move { (index, addr, open(addr, timeout, link.as_ref()).await) });
        }
        let mut sockets = Vec::with_capacity(addrs.len());
        while let Some(joined) = attempts.join_next().await {
            let (index, addr, socket) = joined.map_err(|e| ClientError::Unsupported(format!("connect task: {e}")))?;
            let socket = socket.map_err(|source| ClientError::Io { addr, source })?;
            sockets.push((index, addr, socket));
        }
        sockets.sort_by_key(|(index, _, _)| *index);
        let lanes = Lanes::start(sockets, |(index, addr, socket), stopped| {
            let conn = Arc::new(Connection::new(index, addr, Arc::clone(&shared)));
            let tasks = vec![
                tokio::spawn(slot::drive(Arc::clone(&conn), socket, stopped.clone())),
                tokio::spawn(slot::time(Arc::clone(&conn), stopped)),
            ];
            (conn, tasks)
        });
        Ok(TcpTransport { lanes, callbacks })
    }
}

transport_over_lanes!(TcpTransport, Connection);
