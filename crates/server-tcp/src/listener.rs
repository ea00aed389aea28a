//! Listening sockets and the accept loops: bound synchronously (so the caller learns the ports before
//! building the server), served on the runtime, closed when shutdown is asked for.

use std::io;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use nfs_server::{ConnectionId, ConnectionInfo, TransportKind};
use server_core::{BackChannel, CallMode, ConnectionLimits, RecordHandler};
use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::backward::Backward;
use crate::connection::Connection;
use crate::registry::{Admission, Registry};
use crate::stats::TransportStats;

/// Pending connections the kernel queues per listener (the kernel caps it at somaxconn).
const BACKLOG: i32 = 1024;
/// Pause after a failed accept (e.g. out of file descriptors) before trying again.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// Bound, listening TCP sockets, not yet served.
#[derive(Debug)]
pub struct Listeners {
    sockets: Vec<StdListener>,
    addrs: Vec<SocketAddr>,
}

impl Listeners {
    /// Binds and listens on every address (port 0 picks a free port). The error names the address.
    pub fn bind(addrs: &[SocketAddr]) -> io::Result<Listeners> {
        if addrs.is_empty() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no address to listen on"));
        }
        let mut listeners = Listeners { sockets: Vec::with_capacity(addrs.len()), addrs: Vec::new() };
        for &addr in addrs {
            let socket = listen(addr).map_err(|e| io::Error::new(e.kind(), format!("listen on {addr}: {e}")))?;
            listeners.addrs.push(socket.local_addr()?);
            listeners.sockets.push(socket);
        }
        Ok(listeners)
    }

    /// The addresses actually bound (with the ports chosen for port 0), in the order given.
    pub fn local_addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    pub(crate) fn into_sockets(self) -> Vec<StdListener> {
        self.sockets
    }
}

fn listen(addr: SocketAddr) -> io::Result<StdListener> {
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    // A restarted server can bind again while old connections sit in TIME_WAIT.
    socket.set_reuse_address(true)?;
    if addr.is_ipv6() {
        // "[::]:P" and "0.0.0.0:P" can then both be given.
        socket.set_only_v6(true)?;
    }
    socket.bind(&addr.into())?;
    socket.listen(BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// What every accept loop shares.
pub(crate) struct Shared<H: RecordHandler> {
    pub handler: Arc<H>,
    pub mode: CallMode,
    pub limits: ConnectionLimits,
    pub stats: Arc<TransportStats>,
    /// The emulated long-distance link every connection goes through, if any.
    pub link: Option<Arc<wan::Link>>,
    /// The open connections of every listener, for `max_connections`.
    pub registry: Arc<Registry>,
    /// Where connections register to carry backward calls, if anywhere.
    pub back_channel: Option<Arc<BackChannel>>,
}

/// Accepts connections until shutdown, then closes the listener and waits for its connections to end.
pub(crate) async fn accept_loop<H: RecordHandler>(
    listener: TcpListener,
    shared: Arc<Shared<H>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let local = listener.local_addr().ok();
    let mut connections = JoinSet::new();
    loop {
        if *shutdown.borrow() {
            break;
        }
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => start_connection(stream, peer, &shared, &shutdown, &mut connections),
                Err(err) => {
                    tracing::warn!(listener = ?local, error = %err, "accept failed");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            _ = shutdown.changed() => break,
        }
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

fn start_connection<H: RecordHandler>(
    stream: TcpStream,
    peer: SocketAddr,
    shared: &Arc<Shared<H>>,
    shutdown: &watch::Receiver<bool>,
    connections: &mut JoinSet<()>,
) {
    let stats = &shared.stats;
    let max = shared.limits.max_connections;
    let registration = match shared.registry.admit(max) {
        Admission::Admitted(registration) => registration,
        Admission::Evicting(registration) => {
            tracing::info!(%peer, max, "connection limit reached: closing an idle connection to serve a new one");
            registration
        }
        Admission::Refused => {
            stats.refused.fetch_add(1, Relaxed);
            tracing::warn!(%peer, max, "connection refused: too many connections, all of them busy");
            return; // Dropping the stream closes it.
        }
    };
    stats.open.fetch_add(1, Relaxed);
    let guard = OpenGuard(Arc::clone(stats));
    stats.accepted.fetch_add(1, Relaxed);
    if let Err(err) = stream.set_nodelay(true) {
        tracing::debug!(%peer, error = %err, "TCP_NODELAY not set");
    }
    let local = match stream.local_addr() {
        Ok(local) => local,
        Err(err) => {
            tracing::debug!(%peer, error = %err, "connection gone before it was served");
            return;
        }
    };
    // The real socket's addresses, also when the connection is served through the link's relay; an id
    // of its own, which is what NFSv4.1 sessions bind (an address is not an identity).
    let info = ConnectionInfo { id: ConnectionId::next(), peer, local, transport: TransportKind::Tcp };
    tracing::debug!(%peer, %local, conn = info.id.get(), "connection accepted");
    let (handler, mode, limits, stats) =
        (Arc::clone(&shared.handler), shared.mode, shared.limits, Arc::clone(&shared.stats));
    let link = shared.link.clone();
    let back_channel = shared.back_channel.clone();
    let shutdown = shutdown.clone();
    connections.spawn(async move {
        let _guard = guard;
        let stream = match link {
            Some(link) => match wan::tcp::relay(stream, link).await {
                Ok(stream) => stream,
                Err(err) => {
                    tracing::warn!(%peer, error = %err, "connection dropped: the long-distance link's relay failed");
                    return;
                }
            },
            None => stream,
        };
        let backward = back_channel.map(|channel| Backward::register(&channel, info.id, limits.max_record));
        let connection = Connection::new(stream, info, handler, mode, limits, stats, registration);
        connection.carrying(backward).run(shutdown).await;
    });
}

/// Counts a connection as open for as long as it lives, however its task ends (an evicted connection
/// still counts while it closes: `open` may pass `max_connections` for that moment).
struct OpenGuard(Arc<TransportStats>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Relaxed);
    }
}
