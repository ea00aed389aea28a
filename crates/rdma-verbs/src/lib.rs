//! The rdma-core provider of nfsbench's RDMA interface ([`rdma::Provider`]): RDMA-CM (librdmacm) sets
//! connections up and libibverbs moves the data, so nfsbench's RPC-over-RDMA speaks to the Linux kernel
//! NFS client and server over real devices (InfiniBand, RoCE, iWARP, Soft-RoCE `rxe`).
//!
//! - [`VerbsProvider::open`] fails with `Unavailable` when there is no device; [`devices`] lists them.
//! - Connection set-up (`setup`, `cm`, `channel`): RDMA_PS_TCP ids; private data passed verbatim (the
//!   kernel must see the RFC 8797 magic first); `retry_count` 7, `rnr_retry_count` 0; RDMA Read depths
//!   clamped to the device and the peer. Every connection has its own event channel (a request's id is
//!   migrated off the listener's), read through tokio's `AsyncFd`.
//! - Queue pairs (`qp`, `state`, `completion`): a PD, a CQ with a non-blocking completion channel
//!   (`AsyncFd`, armed then re-polled so no event is missed), an RC QP. Receives land in a registered
//!   pool (`pool`) and are copied out; Sends are copied into a registered pool sized for the peer's
//!   RFC 8797 receive size; RDMA Read/Write use the caller's [`rdma::MemoryRegion`], held until the
//!   completion. Work completion statuses map onto [`rdma::WcError`].
//! - No registration per I/O (`memory`, `window`, `gather`): the pool is page-aligned memory
//!   registered once (with MW_BIND); windows into it are type-2 memory windows bound by a work request
//!   on the queue pair and invalidated by another (a window is idle once its invalidation has been
//!   polled from the completion queue), or registrations of their bytes on a device without them; a
//!   gather RDMA Write takes the pool's key for sources in the pool and registers the others for the
//!   operation. [`rdma::QueuePair::registrations`] counts every registration.
//! - Ownership (`verbs`, `mr`): each object holds an `Arc` of what must outlive it (MR → PD → id →
//!   event channel; QP → CQ, PD, id), so nothing is destroyed while something still uses it.
//!
//! Raw bindings come from `rdma-sys`; unsafe code is confined to the modules that call them, each block
//! saying what must outlive what.

mod addr;
mod channel;
mod cm;
mod completion;
mod device;
mod gather;
mod memory;
mod mr;
mod pool;
mod provider;
mod qp;
mod setup;
mod state;
mod verbs;
mod window;

pub use device::devices;
pub use provider::VerbsProvider;
pub use qp::VerbsQueuePair;
pub use setup::{VerbsIncoming, VerbsListener};
