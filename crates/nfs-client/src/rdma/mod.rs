//! RPC over RDMA version 1 (RFC 8166, RFC 8267 for NFSv3, RFC 8797 connection private data) with
//! `nconnect` queue pairs, over any [`rdma::Provider`] (a NIC through rdma-core, or the software one).
//!
//! Each slot (one per address of the mount) has a driver task that connects, polls the completion
//! queue and reconnects, and a timer task for timeouts ([`crate::slot`]); calls are spread over the
//! slots round-robin and kept in each slot's [`crate::calls::CallTable`].
//! On a queue pair, as the Linux client does:
//! - Connection: RFC 8797 private data with our inline size both ways; initiator depth 0 (the server
//!   issues every RDMA Read and Write); one receive posted per credit asked for, before any call.
//! - Credits (RFC 8166 §3.3): one call may be outstanding at first, then as many as the latest reply
//!   granted (`rpcrdma_proto::CreditState`); calls wait in FIFO order for a credit.
//! - Marshalling (`marshal.rs`): inline, WRITE data in a Read chunk, or a Long Call; READ data through a
//!   Write chunk, large replies through a Reply chunk. Each chunk is a piece of the queue pair's pool
//!   (registered once, `pool.rs`) opened to the server through a window of its own, closed when the
//!   reply arrives or the call fails, before the caller hears of it; only a chunk longer than a piece,
//!   or a call that finds every piece out, registers memory for itself.
//! - The server's calls (RFC 8167, `callback.rs`): [`BACKWARD_CREDITS`] receives are posted beyond the
//!   credits for them; one arriving as RDMA_MSG with an RPC CALL is answered by the transport's
//!   callback handler (or PROG_UNAVAIL) with an inline RDMA_MSG granting that many, never matched to
//!   one of our calls and never read as a forward grant.
//! - Timeouts and lost connections (`connection.rs`, `driver.rs`): the same [`RetransmitPolicy`] as over
//!   TCP (`timeo`/`retrans`/`hard`/`soft`), but a sent call that times out forces a reconnection instead
//!   of a retransmission on the same queue pair (`Recovery::Reconnect`, as Linux's xprtrdma: a responder
//!   counts every call against its credits, and RDMA has no keep-alive); every outstanding call is then
//!   sent again on the new queue pair, same xid, fresh registrations.

mod callback;
mod connection;
mod driver;
mod link;
mod marshal;
mod pool;
mod receive;
mod reply;
#[doc(hidden)]
pub use reply::reassemble_reply_for_fuzzing;
mod transmit;

use std::net::SocketAddr;
use std::sync::Arc;

use rdma::Provider;
use rpcrdma_proto::LINUX_CLIENT_CREDIT_REQUEST;
use tokio::task::JoinSet;

use crate::error::ClientError;
use crate::lanes::{transport_over_lanes, Lanes};
use crate::responsiveness::Responsiveness;
use crate::retransmit::RetransmitPolicy;
use crate::slot;
use crate::transport::Callbacks;
pub use callback::BACKWARD_CREDITS;
use connection::{Connection, Shared};
pub use link::provider_over_link;

/// The Linux client's inline threshold (`RPCRDMA_DEF_INLINE`).
pub const DEFAULT_INLINE_SIZE: u32 = 4096;
/// [`RdmaConfig::chunk_size`] by default: the largest rsize and wsize.
pub const DEFAULT_CHUNK_SIZE: u32 = 1 << 20;
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
    /// The largest data a chunk lent from a queue pair's pool carries (the mount's larger of rsize
    /// and wsize; 1 MiB by default): each queue pair registers a pool of this much (plus 4 KiB of
    /// headers) per credit, up to 64, once; longer chunks are registered per call.
    pub chunk_size: u32,
}

impl RdmaConfig {
    /// The Linux client's defaults over `provider`: 128 credits, 4 KiB inline.
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        RdmaConfig {
            provider,
            credits: LINUX_CLIENT_CREDIT_REQUEST,
            inline_size: DEFAULT_INLINE_SIZE,
            chunk_size: DEFAULT_CHUNK_SIZE,
        }
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

/// The RPC-over-RDMA [`RpcTransport`]: one queue pair per address given, reconnected when lost.
#[derive(Debug)]
pub struct RdmaTransport {
    lanes: Lanes<Connection>,
    callbacks: Arc<Callbacks>,
}

impl RdmaTransport {
    /// Connects to every address (all at once) and starts the slots' tasks. Fails if the
    /// configuration is out of range or any queue pair cannot be made. Must run inside Tokio.
    pub async fn connect(
        addrs: &[SocketAddr],
        config: &RdmaConfig,
        policy: RetransmitPolicy,
    ) -> Result<Self, ClientError> {
        config.validate()?;
        if addrs.is_empty() {
            return Err(ClientError::Unsupported("a mount needs at least one connection".into()));
        }
        let shared = Arc::new(Shared {
            policy,
            provider: Arc::clone(&config.provider),
            credits: config.credits,
            inline_size: config.inline_size,
            chunk_size: config.chunk_size,
            responsiveness: Responsiveness::default(),
            callbacks: Arc::new(Callbacks::default()),
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
        let lanes = Lanes::start(links, |(index, addr, link), stopped| {
            let conn = Arc::new(Connection::new(index, addr, Arc::clone(&shared)));
            let tasks = vec![
                tokio::spawn(slot::drive(Arc::clone(&conn), link, stopped.clone())),
                tokio::spawn(slot::time(Arc::clone(&conn), stopped)),
            ];
            (conn, tasks)
        });
        Ok(RdmaTransport { lanes, callbacks: Arc::clone(&shared.callbacks) })
    }
}

transport_over_lanes!(RdmaTransport, Connection);
