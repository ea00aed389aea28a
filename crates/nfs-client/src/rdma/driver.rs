//! The RDMA side of a connection slot ([`Slot`]): opening queue pairs (RFC 8797 private data, receives
//! posted for every credit before the first call) and serving one by polling its completion queue until
//! it breaks or a timeout asks for a new one (`Recovery::Reconnect`). Reconnection, backoff and the
//! timer are the neutral [`crate::slot`] tasks.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use rdma::{next_completions, QpConfig, QueuePair, RdmaError};
use rpcrdma_proto::{effective_thresholds, InlineThresholds};
use tokio::sync::{watch, Notify};

use super::callback::BACKWARD_CREDITS;
use super::connection::{Connection, Link, Shared};
use super::pool;
use crate::lanes::Counters;
use crate::retransmit::RetransmitPolicy;
use crate::slot::{stopped, End, Slot};

/// RDMA Reads the server may have in flight towards us: what the Linux client offers.
const RESPONDER_RESOURCES: u8 = 16;
/// Completions taken per poll.
const BATCH: usize = 64;

/// Opens a queue pair to `addr`: our inline size in RFC 8797 private data both ways (no remote
/// invalidation), initiator depth 0 (the server does every RDMA Read and Write), a receive queue as
/// deep as the credits we ask for and the backward calls we accept, each receive posted before
/// anything is sent.
pub(crate) async fn open(shared: &Shared, addr: SocketAddr) -> Result<Link, RdmaError> {
    let ours = InlineThresholds { send: shared.inline_size, recv: shared.inline_size };
    let private = ours.to_private(false).encode();
    // RFC 8167 §4: receives for the server's calls beyond those for our replies; Sends for our replies.
    let receives = shared.credits + BACKWARD_CREDITS;
    let config = QpConfig {
        recv_size: shared.inline_size,
        max_recv: receives,
        max_send: receives,
        initiator_depth: 0,
        responder_resources: RESPONDER_RESOURCES,
        pool_bytes: pool::pool_bytes(pool::piece_len(shared.chunk_size), shared.credits.min(pool::MAX_PIECES)),
        ..QpConfig::default()
    };
    let timeout = shared.policy.connect_timeout();
    let qp: Arc<dyn QueuePair> =
        match tokio::time::timeout(timeout, shared.provider.connect(addr, config, &private)).await {
            Ok(qp) => Arc::from(qp?),
            Err(_) => {
                let reason = format!("no answer within {timeout:?}");
                return Err(RdmaError::Refused { addr: addr.to_string(), reason: Some(reason) });
            }
        };
    // RFC 8797 §4: a peer that sent no (valid) private data is taken to use 1024 bytes each way.
    let limits = effective_thresholds(ours, Some(&qp.info().peer_private_data));
    // RFC 8166 §3.3.1: one posted receive per credit, so no reply ever finds none.
    if let Err(e) = qp.post_recvs(receives) {
        qp.disconnect();
        return Err(e);
    }
    Ok(Link::new(qp, limits, pool::piece_len(shared.chunk_size)))
}

impl Slot for Connection {
    type Link = Link;
    type OpenError = RdmaError;
    const KIND: &'static str = "RDMA ";

    fn remote(&self) -> SocketAddr {
        self.remote
    }

    fn index(&self) -> usize {
        self.index
    }

    fn policy(&self) -> RetransmitPolicy {
        self.shared.policy
    }

    fn counters(&self) -> &Counters {
        &self.counters
    }

    fn wake(&self) -> &Notify {
        &self.wake
    }

    fn has_waiting(&self) -> bool {
        Connection::has_waiting(self)
    }

    async fn open(&self) -> Result<Link, RdmaError> {
        open(&self.shared, self.remote).await
    }

    /// Sends the waiting calls on `link` and serves it; the queue pair is disconnected when it ends.
    async fn serve(self: &Arc<Self>, link: Link, shutdown: &mut watch::Receiver<bool>) -> End {
        let qp = Arc::clone(&link.qp);
        let generation = self.attach(link);
        let end = serve(self, &*qp, generation, shutdown).await;
        qp.disconnect();
        end
    }

    fn lost(&self) -> bool {
        self.detach()
    }

    fn check_timeouts(&self, now: Instant) {
        Connection::check_timeouts(self, now)
    }

    fn close(&self) {
        Connection::close(self)
    }
}

/// Polls `qp`'s completions until it breaks, a timeout asks for a new one, or shutdown.
///
/// The kick and shutdown waits live across iterations: a batch of completions is often one reply,
/// and registering two waiters anew for each would cost more than handling it.
async fn serve(conn: &Connection, qp: &dyn QueuePair, generation: u64, shutdown: &mut watch::Receiver<bool>) -> End {
    let mut batch = Vec::with_capacity(BATCH);
    let kicked = conn.kick.notified();
    let stop = stopped(shutdown);
    tokio::pin!(kicked, stop);
    loop {
        tokio::select! {
            biased;
            polled = next_completions(qp, &mut batch) => match polled {
                Ok(()) => {
                    if let Err(why) = conn.on_completions(&mut batch, qp) {
                        return End::Lost(why.to_string());
                    }
                }
                Err(e) => return End::Lost(e.to_string()),
            },
            () = &mut kicked => {
                if conn.take_drop(generation) {
                    return End::Lost("a call timed out; a new connection re-sends it (RDMA has no keep-alive)".into());
                }
                kicked.set(conn.kick.notified());
            }
            () = &mut stop => return End::Shutdown,
        }
    }
}
