//! Hooks for testing servers built on this provider (nfsbench's hostile-client suite and soak): a
//! connection that misbehaves the way any local process holding the other side's shared memory can.
//! They give nothing a process does not already have — it writes only its own memory, and the address
//! it claims is checked by the listener — so they are always built (a cargo feature would make the
//! tests' build of the workspace differ from the release one, and CI build it twice).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use rdma::{QpConfig, QueuePair, RdmaError};

use crate::keytable::SLOTS;
use crate::sys::mem::SharedMem;

/// This side's busy counters on the peer's slots, which the peer consults before it frees a
/// registration of its own: a hostile process raises them and keeps them up.
#[derive(Debug)]
pub struct BusyCounters {
    mem: Arc<SharedMem>,
}

impl BusyCounters {
    /// Raises the counter of every slot of the peer's key table by one, and keeps it there.
    pub fn raise_all(&self) {
        for slot in 0..SLOTS {
            self.mem.u32_at(slot * 4).fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// Connects like [`rdma::Provider::connect`] and also returns the busy counters the peer reads.
pub async fn connect(
    addr: SocketAddr,
    config: QpConfig,
    private_data: &[u8],
) -> Result<(Box<dyn QueuePair>, BusyCounters), RdmaError> {
    let qp = crate::connect::connect(addr, config, private_data).await?;
    let mem = Arc::clone(qp.local.guard());
    Ok((Box::new(qp), BusyCounters { mem }))
}

/// What is wrong with the pool a hostile connection offers its peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolFault {
    /// A memfd without seals: its owner could shrink it under the peer's mapping (SIGBUS).
    Unsealed,
    /// A sealed memfd one page shorter than the pool length announced.
    Short,
}

/// Connects like [`rdma::Provider::connect`], offering a pool (`config.pool_bytes`, which must not
/// be 0) with `fault`.
pub async fn connect_with_pool_fault(
    addr: SocketAddr,
    config: QpConfig,
    private_data: &[u8],
    fault: PoolFault,
) -> Result<Box<dyn QueuePair>, RdmaError> {
    let qp = crate::connect::connect_with(addr, addr.ip(), config, private_data, Some(fault)).await?;
    Ok(Box::new(qp))
}

/// Connects like [`rdma::Provider::connect`] to the listener at `addr`, claiming in the Hello that
/// the address dialed was `claimed` (the address the listener would know the client by).
pub async fn connect_claiming(
    addr: SocketAddr,
    claimed: IpAddr,
    config: QpConfig,
    private_data: &[u8],
) -> Result<Box<dyn QueuePair>, RdmaError> {
    Ok(Box::new(crate::connect::connect_claiming(addr, claimed, config, private_data).await?))
}
