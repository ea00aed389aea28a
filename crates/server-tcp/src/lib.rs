//! The TCP transport of nfsbench's embedded NFSv3 server: sockets, record marking and backpressure,
//! on Tokio. Protocol decisions stay in `nfs-server`; this crate moves bytes. It is one of two sibling
//! front ends over the contract of `server-core` (the other is `server-rdma`, RPC-over-RDMA): what it
//! hands the service ([`RecordHandler`]), where calls run ([`Execution`](server_core::Execution)) and the limits it enforces
//! ([`ConnectionLimits`]) are defined there.
//!
//! - [`TcpServer::bind`] (or [`Listeners::bind`] then [`TcpServer::new`], to learn the ports chosen for
//!   port 0 before building the server) and [`TcpServer::run`] until a shutdown future completes; `run`
//!   returns once every connection is closed.
//! - Per connection, one task reads the socket into a [`onc_rpc::RecordDecoder`] (RFC 5531 §11; a
//!   record-marking error closes that connection only), executes each complete record with
//!   [`RecordHandler::handle`] — inline for handlers that never block, on the blocking pool for those
//!   that may (replies then leave as they complete, out of order) — and writes the replies that are
//!   ready together as single-fragment records in one vectored write.
//! - [`ConnectionLimits`] (its documentation gives the worst-case memory formula), all enforced here:
//!   - per connection, caps on calls and bytes in flight (reading pauses while over either) and a
//!     maximum record size;
//!   - server-wide, one budget of bytes in flight shared by every connection (an atomic counter settled
//!     once per read or write batch): while it is spent a connection admits a call only when it has
//!     none in flight, so hostile peers cannot grow the server's memory with their connection count,
//!     and every client still progresses;
//!   - a maximum number of connections: at the cap a new connection is served by closing the idle
//!     connection that looks most abandoned (never completed a call, then quiet the longest, then the
//!     oldest; knfsd closes its oldest connection too), and refused only when every connection is busy;
//!   - timeouts, checked by one periodic timer per connection: idle (nothing in flight, nothing
//!     received; knfsd closes idle connections after 6 minutes), partial record (a record begun and not
//!     finished in time, however slowly its bytes keep coming: what defeats trickling peers) and write
//!     stall (replies owed that the peer does not take; closing frees them).
//!
//!   TCP_NODELAY is set on every connection.
//! - [`TransportStats`] counts connections (accepted, refused, evicted, closed by each timeout), calls,
//!   bytes, pauses and the server-wide bytes in flight for reports.
//! - [`TcpServer::with_link`]: every accepted connection goes through an emulated long-distance link
//!   ([`wan::tcp::relay`]); the connection keeps the real peer and local addresses (access rules, logs).
//! - Every connection has its own [`nfs_server::ConnectionId`], given at accept. With
//!   [`TcpServer::with_back_channel`] each registers in the server's [`BackChannel`] while it lives,
//!   so the service can call the client back on it (NFSv4.1 callbacks): a backward call is an ordinary
//!   record on the connection's write queue, between whole replies (`backward`: at most
//!   [`server_core::MAX_BACKWARD_QUEUED`] held). A record whose RPC message type is REPLY is the
//!   client's answer to one: it goes to [`RecordHandler::handle_reply`], never to `handle`.
//!
//! Runtime: [`runtime`] builds the one nfsbench uses (see its documentation for the measurements).

mod backward;
mod connection;
mod listener;
mod registry;
mod stats;
mod watchdog;
mod write_queue;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use nfs_server::Server;
use server_core::{BackChannel, CallMode, ConnectionLimits, RecordHandler};
use tokio::sync::watch;
use tokio::task::JoinSet;

pub use listener::Listeners;
pub use stats::{TransportSnapshot, TransportStats};

/// A TCP front end for a [`RecordHandler`] (normally the NFS [`Server`]).
#[derive(Debug)]
pub struct TcpServer<H: RecordHandler = Server> {
    listeners: Listeners,
    handler: Arc<H>,
    limits: ConnectionLimits,
    stats: Arc<TransportStats>,
    link: Option<Arc<wan::Link>>,
    back_channel: Option<Arc<BackChannel>>,
}

impl<H: RecordHandler> TcpServer<H> {
    /// Binds every address and prepares to serve `server` on them.
    pub fn bind(addrs: &[SocketAddr], server: Arc<H>, limits: ConnectionLimits) -> io::Result<Self> {
        Ok(Self::new(Listeners::bind(addrs)?, server, limits))
    }

    /// Serves `server` on sockets bound beforehand.
    pub fn new(listeners: Listeners, server: Arc<H>, limits: ConnectionLimits) -> Self {
        TcpServer {
            listeners,
            handler: server,
            limits: limits.sanitized(),
            stats: Arc::default(),
            link: None,
            back_channel: None,
        }
    }

    /// Serves every connection through the emulated long-distance `link` (`nfsbench serve --wan`), or
    /// directly with `None`.
    pub fn with_link(mut self, link: Option<Arc<wan::Link>>) -> Self {
        self.link = link;
        self
    }

    /// Registers every connection in `channel` while it is open, so that the service can send calls to
    /// the client on it; without one, connections carry no backward calls (replies that arrive are still
    /// handed to [`RecordHandler::handle_reply`]).
    pub fn with_back_channel(mut self, channel: Arc<BackChannel>) -> Self {
        self.back_channel = Some(channel);
        self
    }

    /// The bound addresses (ports resolved).
    pub fn local_addrs(&self) -> &[SocketAddr] {
        self.listeners.local_addrs()
    }

    /// The transport counters, live while the server runs.
    pub fn stats(&self) -> Arc<TransportStats> {
        Arc::clone(&self.stats)
    }

    /// Accepts and serves connections until `shutdown` completes; then stops accepting, lets each
    /// connection finish its calls and send their replies (within `shutdown_grace`), closes them, and
    /// returns. Must run inside a Tokio runtime with I/O and time enabled.
    pub async fn run<F: Future<Output = ()>>(self, shutdown: F) -> io::Result<()> {
        let mode = CallMode::resolve(self.limits.execution, self.handler.may_block());
        tracing::debug!(?mode, addrs = ?self.local_addrs(), "serving");
        let shared = Arc::new(listener::Shared {
            handler: self.handler,
            mode,
            limits: self.limits,
            stats: self.stats,
            link: self.link,
            registry: Arc::default(),
            back_channel: self.back_channel,
        });
        let (stop, stopped) = watch::channel(false);
        let mut loops = JoinSet::new();
        for socket in self.listeners.into_sockets() {
            let socket = tokio::net::TcpListener::from_std(socket)?;
            loops.spawn(listener::accept_loop(socket, Arc::clone(&shared), stopped.clone()));
        }
        shutdown.await;
        tracing::debug!("shutting down: no new connections, draining the open ones");
        stop.send_replace(true);
        while loops.join_next().await.is_some() {}
        Ok(())
    }
}

/// Blocking-pool threads `nfsbench serve` starts with (see [`runtime`]).
pub const DEFAULT_BLOCKING_THREADS: usize = 16;

/// The runtime `nfsbench serve` uses: `workers == 1` a current-thread runtime, otherwise a
/// multi-thread one with that many workers; I/O and timers enabled. Calls of backends that may block
/// run on its blocking pool of at most `blocking_threads` threads (Tokio's default is 512).
///
/// Why one worker and 16 blocking threads are the defaults, as measured: docs/results.md, "The server's threads".
pub fn runtime(workers: usize, blocking_threads: usize) -> io::Result<tokio::runtime::Runtime> {
    let mut builder = if workers <= 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    };
    builder.max_blocking_threads(blocking_threads.max(1));
    builder.enable_all().thread_name("nfsbench-serve").build()
}
