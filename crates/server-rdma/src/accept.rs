//! Connection set-up: the accept loop and the RFC 8797 handshake of each connection.
//!
//! The listener is served on the caller's task; each request is answered on its own task (a slow peer
//! holds up nobody): the peer's private data gives the inline thresholds (none or invalid → 1024 each
//! way), we accept with our own private data, a queue pair sized for our credits, an initiator depth
//! within the peer's responder resources, and `credits` receives (and `backward_credits` more, for the
//! replies to our backward calls) posted before the peer can send. A connection registers in the
//! server's backchannel, when it has one, for as long as it lives. Each connection, its handshake
//! included (so its queue pair's descriptors are watched there), runs on the network thread
//! [`NetworkThreads`] places it on.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;

use nfs_server::{ConnectionId, ConnectionInfo, TransportKind};
use rdma::{Incoming, Listener, RdmaError};
use rpcrdma_proto::effective_thresholds;
use server_core::{BackChannel, CallMode, RecordHandler};
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::backward::Backward;
use crate::buffers::BufferPool;
use crate::config::RdmaServerConfig;
use crate::connection::{Connection, Setup};
use crate::stats::{OpenGuard, RdmaTransportStats};
use crate::targets::KeptBudget;
use crate::threads::{NetworkThreads, Placement};

/// Pause after a transient accept failure (e.g. out of file descriptors) before trying again.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

/// What every connection of a server shares.
pub(crate) struct Shared<H: RecordHandler> {
    pub handler: Arc<H>,
    pub mode: CallMode,
    pub config: RdmaServerConfig,
    pub stats: Arc<RdmaTransportStats>,
    pub local: SocketAddr,
    /// Call buffers reused across connections.
    pub pool: Arc<BufferPool>,
    /// What every connection's kept RDMA Read targets may hold together.
    pub kept: Arc<KeptBudget>,
    /// Where connections register to carry backward calls, if anywhere.
    pub back_channel: Option<Arc<BackChannel>>,
    /// The threads connections run on.
    pub threads: NetworkThreads,
}

/// Accepts until `shutdown` completes or the listener fails, then tells every connection to finish and
/// waits for them. The listener's own failure is returned after that.
pub(crate) async fn accept_loop<H: RecordHandler>(
    mut listener: Box<dyn Listener>,
    shared: Arc<Shared<H>>,
    shutdown: impl std::future::Future<Output = ()>,
) -> Result<(), RdmaError> {
    let (stop, stopped) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut result = Ok(());
    tokio::pin!(shutdown);
    loop {
        while connections.try_join_next().is_some() {}
        tokio::select! {
            () = &mut shutdown => break,
            incoming = listener.accept() => match incoming {
                Ok(incoming) => start(incoming, &shared, &stopped, &mut connections),
                Err(err @ RdmaError::Io { .. }) | Err(err @ RdmaError::QueueFull { .. }) => {
                    tracing::warn!(listener = %shared.local, error = %err, "accept failed; retrying");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                }
                Err(err) => {
                    tracing::error!(listener = %shared.local, error = %err, "listener failed");
                    result = Err(err);
                    break;
                }
            },
        }
    }
    drop(listener);
    tracing::debug!(listener = %shared.local, open = connections.len(), "no new connections; draining");
    stop.send_replace(true);
    while connections.join_next().await.is_some() {}
    result
}

fn start<H: RecordHandler>(
    incoming: Box<dyn Incoming>,
    shared: &Arc<Shared<H>>,
    stopped: &watch::Receiver<bool>,
    connections: &mut JoinSet<()>,
) {
    let stats = &shared.stats;
    if stats.open.fetch_add(1, Relaxed) >= shared.config.max_connections {
        stats.open.fetch_sub(1, Relaxed);
        stats.refused.fetch_add(1, Relaxed);
        let (peer, max) = (incoming.peer_addr(), shared.config.max_connections);
        tracing::warn!(?peer, max, "connection rejected: too many connections");
        incoming.reject();
        return;
    }
    let guard = OpenGuard(Arc::clone(stats));
    let Placement { handle, comp_vector } = shared.threads.place();
    let (shared, stopped) = (Arc::clone(shared), stopped.clone());
    connections.spawn_on(
        async move {
            let _guard = guard;
            if let Some(connection) = handshake(incoming, &shared, comp_vector).await {
                connection.run(stopped).await;
            }
        },
        &handle,
    );
}

/// RFC 8797: negotiates the inline thresholds and accepts, the queue pair's completions signalled on
/// `comp_vector`; `None` when the accept failed.
async fn handshake<H: RecordHandler>(
    incoming: Box<dyn Incoming>,
    shared: &Shared<H>,
    comp_vector: u32,
) -> Option<Connection<H>> {
    let config = shared.config;
    let peer = incoming.peer_addr();
    // RFC 8797 §4: each side sends no more than the peer receives; without valid private data the
    // peer is taken to use 1024 bytes each way (RFC 8166 §3.3.2).
    let thresholds = effective_thresholds(config.thresholds(), Some(incoming.private_data()));
    let qp_config = rdma::QpConfig { comp_vector, ..config.qp_config(incoming.peer_responder_resources()) };
    let ours = config.private_data().encode();
    let qp = match incoming.accept_with_recvs(qp_config, &ours, config.receives()).await {
        Ok(qp) => qp,
        Err(err) => {
            shared.stats.handshake_failures.fetch_add(1, Relaxed);
            tracing::warn!(?peer, error = %err, "accepting an RDMA connection failed");
            return None;
        }
    };
    shared.stats.accepted.fetch_add(1, Relaxed);
    let info = qp.info();
    let unknown = SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0));
    let info_for_handler = ConnectionInfo {
        id: ConnectionId::next(),
        peer: info.peer.or(peer).unwrap_or(unknown),
        local: info.local.unwrap_or(shared.local),
        transport: TransportKind::Rdma,
    };
    let read_depth = u32::from(info.initiator_depth.min(qp_config.initiator_depth));
    tracing::debug!(
        peer = %info_for_handler.peer,
        conn = info_for_handler.id.get(),
        provider = %info.provider,
        send = thresholds.send,
        recv = thresholds.recv,
        read_depth,
        credits = config.credits,
        "RDMA connection accepted"
    );
    let setup = Setup {
        info: info_for_handler,
        mode: shared.mode,
        config,
        send_limit: thresholds.send as usize,
        read_depth,
        blocking: shared.threads.blocking().clone(),
    };
    let shares =
        (Arc::clone(&shared.handler), Arc::clone(&shared.stats), Arc::clone(&shared.pool), Arc::clone(&shared.kept));
    let backward = Backward::new(
        shared.back_channel.as_ref(),
        info_for_handler.id,
        config.backward_credits,
        thresholds.send as usize,
    );
    Some(Connection::new(qp, setup, config.receives(), backward, shares))
}
