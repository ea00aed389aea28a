//! RPC over RDMA version 1 (RFC 8166, RFC 8267 for NFSv3, RFC 8797 connection private data) with
//! `nconnect` queue pairs, over any [`rdma::Provider`] (a NIC through rdma-core, or the software one).
//!
//! Each slot (one per address of the mount) has a driver task that connects, polls the completion
//! queue and reconnects, and a timer task for timeouts; calls are spread over the slots round-robin.
//! On a queue pair, as the Linux client does:
//! - Connection: RFC 8797 private data with our inline size both ways; initiator depth 0 (the server
//!   issues every RDMA Read and Write); one receive posted per credit asked for, before any call.
//! - Credits (RFC 8166 §3.3): one call may be outstanding at first, then as many as the latest reply
//!   granted (`rpcrdma_proto::CreditState`); calls wait in FIFO order for a credit.
//! - Marshalling (`marshal.rs`): inline, WRITE data in a Read chunk, or a Long Call; READ data through a
//!   Write chunk, large replies through a Reply chunk. Memory is registered per call and invalidated
//!   when its reply arrives or it fails, before the caller hears of it.
//! - Timeouts and lost connections (`timeout.rs`, `driver.rs`): `timeo`/`retrans`/`hard`/`soft` as over
//!   TCP, but a timeout forces a reconnection instead of a retransmission on the same queue pair.

mod connection;
mod driver;
mod marshal;
mod receive;
mod reply;
mod timeout;
mod transmit;

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rdma::Provider;
use rpcrdma_proto::LINUX_CLIENT_CREDIT_REQUEST;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use crate::error::ClientError;
use crate::tcp::RetransmitPolicy;
use crate::transport::{ReplySender, RpcCall, RpcTransport};
use crate::types::{ClientStats, ConnectionInfo};
use connection::{Connection, Shared};

/// The Linux client's inline threshold (`RPCRDMA_DEF_INLINE`).
pub const DEFAULT_INLINE_SIZE: u32 = 4096;
/// Inline thresholds accepted: the RFC 8166 §3.3.2 minimum up to 64 KiB (receive buffers are posted
/// for every credit, so larger ones cost memory for nothing: bulk data moves in chunks).
pub const INLINE_SIZE_RANGE: std::ops::RangeInclusive<u32> = 1024..=65536;
/// Credits that may be asked for (each one is a receive buffer posted per queue pair).
pub const CREDITS_RANGE: std::ops::RangeInclusive<u32> = 1..=1024;

/// How a mount uses RPC-over-RDMA.
#[derive(Debug, Clone)]
pub struct RdmaConfig {
    /// Where queue pairs come from (`rdma_soft::SoftProvider`, the verbs provider, ...).
    pub provider: Arc<dyn Provider>,
    /// Credits asked for in every call, and receives posted per queue pair
    /// ([`LINUX_CLIENT_CREDIT_REQUEST`] by default).
    pub credits: u32,
    /// Our inline send and receive threshold in bytes (RFC 8797 private data), within
    /// [`INLINE_SIZE_RANGE`]; 4096 by default.
    pub inline_size: u32,
}

impl RdmaConfig {
    /// The Linux client's defaults over `provider`: 128 credits, 4 KiB inline.
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        RdmaConfig { provider, credits: LINUX_CLIENT_CREDIT_REQUEST, inline_size: DEFAULT_INLINE_SIZE }
    }

    /// Refuses values out of range, naming them.
    pub fn validate(&self) -> Result<(), ClientError> {
        if !INLINE_SIZE_RANGE.contains(&self.inline_size) {
            return Err(ClientError::Unsupported(format!(
                "inline_size={}: the RPC-over-RDMA inline threshold must be {}..={} bytes",
                self.inline_size,
                INLINE_SIZE_RANGE.start(),
                INLINE_SIZE_RANGE.end()
            )));
        }
        if !CREDITS_RANGE.contains(&self.credits) {
            return Err(ClientError::Unsupported(format!(
                "credits={}: RPC-over-RDMA credits must be {}..={}",
                self.credits,
                CREDITS_RANGE.start(),
                CREDITS_RANGE.end()
            )));
        }
        Ok(())
    }
}

/// Timeouts of an [`RdmaTransport`] (nfs(5)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RdmaOptions {
    /// Wait before a call counts as timed out (and its queue pair is replaced).
    pub timeo: Duration,
    /// Timeouts before a major timeout.
    pub retrans: u32,
    /// Hard mount: keep trying after major timeouts; soft: fail the call.
    pub hard: bool,
}

/// The RPC-over-RDMA [`RpcTransport`]: one queue pair per address given, reconnected when lost.
#[derive(Debug)]
pub struct RdmaTransport {
    connections: Vec<Arc<Connection>>,
    next: AtomicUsize,
    shutdown: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl RdmaTransport {
    /// Connects to every address (all at once) and starts the slots' tasks. Fails if the
    /// configuration is out of range or any queue pair cannot be made. Must run inside Tokio.
    pub async fn connect(addrs: &[SocketAddr], config: &RdmaConfig, options: RdmaOptions) -> Result<Self, ClientError> {
        config.validate()?;
        if addrs.is_empty() {
            return Err(ClientError::Unsupported("a mount needs at least one connection".into()));
        }
        let policy = RetransmitPolicy { timeo: options.timeo, retrans: options.retrans, hard: options.hard };
        let shared = Arc::new(Shared {
            policy,
            provider: Arc::clone(&config.provider),
            credits: config.credits,
            inline_size: config.inline_size,
            not_responding: AtomicBool::new(false),
        });
        let mut attempts = JoinSet::new();
        for (index, &addr) in addrs.iter().enumerate() {
            let shared = Arc::clone(&shared);
            attempts.spawn(async move { (index, addr, driver::open(&shared, addr).await) });
        }
        let mut links = Vec::with_capacity(addrs.len());
        let mut failure = None;
        while let Some(joined) = attempts.join_next().await {
            match joined {
                Ok((index, addr, Ok(link))) => links.push((index, addr, link)),
                Ok((_, addr, Err(source))) => failure = failure.or(Some(ClientError::Rdma { addr, source })),
                Err(e) => failure = failure.or(Some(ClientError::Unsupported(format!("RDMA connect task: {e}")))),
            }
        }
        if let Some(err) = failure {
            for (_, _, link) in &links {
                link.qp.disconnect();
            }
            return Err(err);
        }
        links.sort_by_key(|(index, _, _)| *index);
        let (shutdown, stopped) = watch::channel(false);
        let mut connections = Vec::with_capacity(links.len());
        let mut tasks = Vec::with_capacity(2 * links.len());
        for (index, addr, link) in links {
            let conn = Arc::new(Connection::new(index, addr, Arc::clone(&shared)));
            tasks.push(tokio::spawn(driver::run(Arc::clone(&conn), link, stopped.clone())));
            tasks.push(tokio::spawn(timeout::run(Arc::clone(&conn), stopped.clone())));
            connections.push(conn);
        }
        Ok(RdmaTransport { connections, next: AtomicUsize::new(0), shutdown, tasks: Mutex::new(tasks) })
    }
}

impl RpcTransport for RdmaTransport {
    fn submit(&self, call: RpcCall, reply: ReplySender) {
        let n = self.connections.len();
        let i = if n == 1 { 0 } else { self.next.fetch_add(1, Relaxed) % n };
        match self.connections.get(i) {
            Some(conn) => conn.submit(call, reply),
            None => reply.send(Err(ClientError::Closed { proc: call.proc })),
        }
    }

    fn connections(&self) -> Vec<ConnectionInfo> {
        self.connections.iter().map(|c| c.info()).collect()
    }

    fn stats(&self) -> ClientStats {
        let mut s = ClientStats::default();
        for c in &self.connections {
            let k = &c.counters;
            s.calls += k.calls.load(Relaxed);
            s.retransmissions += k.retransmissions.load(Relaxed);
            s.reconnects += k.reconnects.load(Relaxed);
            s.soft_timeouts += k.soft_timeouts.load(Relaxed);
            s.major_timeouts += k.major_timeouts.load(Relaxed);
            s.unknown_replies += k.unknown_replies.load(Relaxed);
        }
        s
    }

    fn shutdown(&self) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.shutdown.send_replace(true);
        let tasks = std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        Box::pin(async move {
            for task in tasks {
                let _ = task.await;
            }
            // Calls submitted after the drivers ended.
            for conn in &self.connections {
                conn.close();
            }
        })
    }
}

impl Drop for RdmaTransport {
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
    }
}
