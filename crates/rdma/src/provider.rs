//! The provider traits: connection set-up and the queue pair. Object-safe, so the transport picks a
//! provider at run time (`verbs` when a device exists, `soft` otherwise).

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::RdmaError;
use crate::region::{Access, MemoryRegion, RegBuf};
use crate::types::{Completion, ConnectionInfo, PeerOneSided, QpConfig, RemoteSegment, WrId};

/// A boxed future, as the object-safe traits return them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A way to make RDMA connections: a device through rdma-core, or the software provider.
pub trait Provider: Send + Sync + fmt::Debug {
    /// What reports say was used, e.g. "verbs (rxe0)" or "soft (shared memory, no RDMA device)".
    fn name(&self) -> String;

    /// Connects to a listener at `addr`, sending `private_data` (at most 56 bytes, the RDMA-CM limit
    /// for RC) and `config`'s initiator depth and responder resources.
    fn connect<'a>(
        &'a self,
        addr: SocketAddr,
        config: QpConfig,
        private_data: &'a [u8],
    ) -> BoxFuture<'a, Result<Box<dyn QueuePair>, RdmaError>>;

    /// Listens at `addr` (port 0 picks one; see [`Listener::local_addr`]).
    fn listen(&self, addr: SocketAddr) -> Result<Box<dyn Listener>, RdmaError>;
}

/// A listening endpoint.
pub trait Listener: Send + fmt::Debug {
    fn local_addr(&self) -> SocketAddr;

    /// The next connection request. Errors here are the listener's own (not one peer's).
    fn accept(&mut self) -> BoxFuture<'_, Result<Box<dyn Incoming>, RdmaError>>;
}

/// A connection request not yet answered.
pub trait Incoming: Send + fmt::Debug {
    fn peer_addr(&self) -> Option<SocketAddr>;

    /// The private data the peer sent (empty when none).
    fn private_data(&self) -> &[u8];

    /// RDMA Reads the peer will accept in flight from us (its responder resources): bounds our
    /// initiator depth.
    fn peer_responder_resources(&self) -> u8;

    /// Accepts with our own private data and queue configuration; completes once established.
    fn accept(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>>;

    /// Accepts like [`accept`](Self::accept) with `recvs` receives posted before the peer can send: a
    /// responder grants credits for receives it has posted (RFC 8166 §3.3.1), and a peer may send its
    /// first call the moment the connection is established (knfsd posts its receives before
    /// `rdma_accept`). Providers that can post before answering the request override this; the default
    /// posts right after [`accept`](Self::accept) completes, which a peer sending at once may beat.
    fn accept_with_recvs(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
        recvs: u32,
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        let accepted = self.accept(config, private_data);
        Box::pin(async move {
            let qp = accepted.await?;
            qp.post_recvs(recvs)?;
            Ok(qp)
        })
    }

    /// Refuses the connection.
    fn reject(self: Box<Self>);
}

/// One reliable connection and its completion queue. Every method takes `&self`: posting and polling
/// may happen from different tasks.
pub trait QueuePair: Send + Sync + fmt::Debug {
    fn info(&self) -> ConnectionInfo;

    /// Registers `buf` for this connection's peer with `access`.
    fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError>;

    /// Posts `count` more receive buffers of [`QpConfig::recv_size`] bytes.
    fn post_recvs(&self, count: u32) -> Result<(), RdmaError>;

    /// Sends one message gathered from `message` (at most the peer's receive size); the bytes are
    /// copied before this returns.
    fn post_send(&self, wr_id: WrId, message: &[&[u8]]) -> Result<(), RdmaError>;

    /// RDMA Read of `remote` into `local` at `local_offset` (`remote.length` bytes; `local` must be
    /// writable and registered with [`Access::LOCAL_WRITE`]).
    fn post_read(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        local_offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError>;

    /// RDMA Write of `remote.length` bytes of `local` from `local_offset` to `remote`.
    fn post_write(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        local_offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError>;

    /// Moves the completions that are ready into `out` (Ready(Ok) when at least one was added);
    /// otherwise registers `cx`'s waker. `Ready(Err(Disconnected))` once the connection is down and
    /// every outstanding request has completed (flushed).
    fn poll_completions(&self, cx: &mut Context<'_>, out: &mut Vec<Completion>) -> Poll<Result<(), RdmaError>>;

    /// Starts an orderly disconnect; outstanding requests are flushed.
    fn disconnect(&self);

    /// What the peer did to our memory by its own one-sided operations so far on this connection:
    /// cumulative bytes it RDMA-Read from us and RDMA-Wrote to us, and its Reads, counted before it posts the
    /// Send that follows them, so a receive completion polled here already includes the bytes of every
    /// operation the peer finished before sending that message. `None` when the provider cannot tell
    /// (a NIC does not report the peer's operations: the verbs provider); the link emulation needs it
    /// to delay the peer's RDMA traffic from this side alone.
    fn peer_one_sided(&self) -> Option<PeerOneSided> {
        None
    }
}

/// Waits for the next batch of completions (at least one) from `qp`.
pub async fn next_completions(qp: &dyn QueuePair, out: &mut Vec<Completion>) -> Result<(), RdmaError> {
    std::future::poll_fn(|cx| qp.poll_completions(cx, out)).await
}
