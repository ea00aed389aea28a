//! The driver task of a slot: opens queue pairs (RFC 8797 private data, receives posted for every
//! credit before the first call), polls the completion queue, and when the queue pair breaks or a
//! timeout asks for it, makes every outstanding call wait again and reconnects (lazily: once a call
//! waits), backing off while attempts fail. On shutdown it fails whatever is outstanding with `Closed`.

use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use rdma::{next_completions, QpConfig, QueuePair, RdmaError};
use rpcrdma_proto::{effective_thresholds, InlineThresholds};
use tokio::sync::watch;

use super::connection::{Connection, Link, Shared};
use crate::tcp::{connect_timeout, reconnect_delay};

/// RDMA Reads the server may have in flight towards us: what the Linux client offers.
const RESPONDER_RESOURCES: u8 = 16;
/// Completions taken per poll.
const BATCH: usize = 64;

/// Opens a queue pair to `addr`: our inline size in RFC 8797 private data both ways (no remote
/// invalidation), initiator depth 0 (the server does every RDMA Read and Write), a receive queue as
/// deep as the credits we ask for, each receive posted before anything is sent.
pub(crate) async fn open(shared: &Shared, addr: SocketAddr) -> Result<Link, RdmaError> {
    let ours = InlineThresholds { send: shared.inline_size, recv: shared.inline_size };
    let private = ours.to_private(false).encode();
    let config = QpConfig {
        recv_size: shared.inline_size,
        max_recv: shared.credits,
        max_send: shared.credits,
        initiator_depth: 0,
        responder_resources: RESPONDER_RESOURCES,
    };
    let timeout = connect_timeout(shared.policy.timeo);
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
    if let Err(e) = qp.post_recvs(shared.credits) {
        qp.disconnect();
        return Err(e);
    }
    Ok(Link::new(qp, limits))
}

enum End {
    Shutdown,
    Lost(String),
}

async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    // An error means the transport is gone: stop as well.
    let _ = shutdown.wait_for(|&stop| stop).await;
}

/// Serves the slot, starting with the queue pair `first` opened at mount time, until shutdown.
pub(crate) async fn run(conn: Arc<Connection>, first: Link, mut shutdown: watch::Receiver<bool>) {
    let mut next = Some(first);
    let mut failures = 0u32;
    loop {
        let link = match next.take() {
            Some(link) => link,
            None => match reconnect(&conn, &mut shutdown, &mut failures).await {
                Some(link) => link,
                None => break,
            },
        };
        let qp = Arc::clone(&link.qp);
        let generation = conn.attach(link);
        let end = serve(&conn, &*qp, generation, &mut shutdown).await;
        qp.disconnect();
        match end {
            End::Shutdown => break,
            End::Lost(why) => {
                let answered = conn.detach();
                failures = if answered { 0 } else { failures + 1 };
                tracing::warn!(server = %conn.remote, connection = conn.index, "RDMA connection lost: {why}; reconnecting");
            }
        }
    }
    conn.close();
}

/// Polls `qp`'s completions until it breaks, a timeout asks for a new one, or shutdown.
async fn serve(conn: &Connection, qp: &dyn QueuePair, generation: u64, shutdown: &mut watch::Receiver<bool>) -> End {
    let mut batch = Vec::with_capacity(BATCH);
    loop {
        tokio::select! {
            biased;
            polled = next_completions(qp, &mut batch) => match polled {
                Ok(()) => {
                    if let Err(why) = conn.on_completions(&mut batch, qp) {
                        return End::Lost(why);
                    }
                }
                Err(e) => return End::Lost(e.to_string()),
            },
            _ = conn.kick.notified() => {
                if conn.take_drop(generation) {
                    return End::Lost("a call timed out; a new connection re-sends it (RDMA has no keep-alive)".into());
                }
            }
            _ = stopped(shutdown) => return End::Shutdown,
        }
    }
}

/// A new queue pair once calls are waiting; `None` on shutdown.
async fn reconnect(conn: &Connection, shutdown: &mut watch::Receiver<bool>, failures: &mut u32) -> Option<Link> {
    loop {
        if !conn.has_waiting() {
            tokio::select! {
                _ = conn.wake.notified() => {}
                _ = stopped(shutdown) => return None,
            }
            continue;
        }
        tokio::select! {
            _ = tokio::time::sleep(reconnect_delay(*failures)) => {}
            _ = stopped(shutdown) => return None,
        }
        let attempt = tokio::select! {
            attempt = open(&conn.shared, conn.remote) => attempt,
            _ = stopped(shutdown) => return None,
        };
        match attempt {
            Ok(link) => {
                conn.counters.reconnects.fetch_add(1, Relaxed);
                return Some(link);
            }
            Err(e) => {
                *failures += 1;
                tracing::warn!(server = %conn.remote, connection = conn.index, "RDMA reconnect failed: {e}");
            }
        }
    }
}
