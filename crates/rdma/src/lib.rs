//! The RDMA provider interface that nfsbench's RPC-over-RDMA transport (`transport-rdma`) runs on, so
//! that one protocol engine drives a real NIC (`rdma-verbs`: rdma-core over InfiniBand, RoCE, iWARP or
//! Soft-RoCE) and machines without one (`rdma-soft`).
//!
//! The model is a reliable-connected queue pair as verbs define it, reduced to what RPC-over-RDMA uses:
//! - [`Provider::connect`] / [`Provider::listen`] + [`Listener::accept`] + [`Incoming::accept`]:
//!   connection set-up carrying private data both ways (RFC 8797 puts the inline thresholds there), with
//!   the initiator depth and responder resources of [`QpConfig`] (the Linux client offers 0: the server
//!   issues every RDMA Read and Write). A responder accepts with [`Incoming::accept_with_recvs`] so that
//!   its first receives are posted before the peer can send.
//! - [`QueuePair::post_recvs`] posts receive buffers of the connection's receive size; a Send that meets
//!   no posted receive fails the connection, as on RC with `rnr_retry = 0`: credits are what prevent it.
//! - [`QueuePair::post_send`]: one message, copied out of the caller's slices before the call returns.
//! - [`QueuePair::register`] turns owned memory into a [`MemoryRegion`] the peer may read or write
//!   through its handle (R_key) until [`MemoryRegion::invalidate`]; an access with a stale or wrong
//!   handle, past the region or without the right fails with [`WcError::RemoteAccess`] and breaks the
//!   connection, as RC does.
//! - [`QueuePair::post_read`] / [`QueuePair::post_write`]: one-sided RDMA Read and Write between a local
//!   region and a [`RemoteSegment`]. Work requests complete in the order they were posted, and an RDMA
//!   Write is placed at the target before any Send posted after it is delivered (RC ordering), which is
//!   what lets a responder post its Writes and the reply's Send back to back.
//! - Memory for the data path without a registration per I/O: [`QueuePair::pool`] is registered once
//!   per connection ([`QpConfig::pool_bytes`]); [`QueuePair::open_window`] gives the peer access to a
//!   piece of it for one RPC under a handle of its own, refused once the [`Window`] is closed; and
//!   [`QueuePair::post_write_gather`] RDMA-Writes from memory the caller never registered (a RAM
//!   backend's pages). [`QueuePair::registrations`] counts what was registered. Bytes the peer wrote
//!   into the pool are copied out, or lent in place once no window is open on them
//!   ([`MemoryRegion::pool_bytes`]) when the caller treats them as opaque data.
//! - [`QueuePair::poll_completions`]: the completion queue, async-ready (a waker is woken when more
//!   arrive). After an error every outstanding request completes with [`WcError::Flushed`] and then the
//!   poll returns [`RdmaError::Disconnected`].
//!
//! Memory safety across the provider boundary: a [`MemoryRegion`] owns its buffer, and every posted
//! operation holds a clone of the region until its completion, so no RDMA access can outlive the memory
//! it targets. The buffer is given back by [`MemoryRegion::into_buffer`] once nothing holds it. A
//! provider whose deregistration cannot wait for the peer (the peer is not trusted to finish) says
//! so with [`Registration::is_idle`]: the buffer is then not given back, and dropping the region hands
//! it to the provider ([`Registration::retire`]), which frees it once no access can touch it.

mod error;
mod provider;
mod region;
mod types;

pub use error::{RdmaError, WcError};
pub use provider::{check_gather, next_completions, BoxFuture, Incoming, Listener, Provider, QueuePair};
pub use region::{Access, MemoryRegion, PoolMemory, RegBuf, Registration, Window};
pub use types::{Completion, CompletionKind, ConnectionInfo, PeerOneSided, QpConfig, RemoteSegment, WrId};
