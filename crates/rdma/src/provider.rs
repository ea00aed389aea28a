//! The provider traits: connection set-up and the queue pair. Object-safe, so the transport picks a
//! provider at run time (`verbs` when a device exists, `soft` otherwise).

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::RdmaError;
use bytes::Bytes;

use crate::region::{Access, MemoryRegion, RegBuf, Window};
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

    /// Whether [`QpConfig::comp_vector`](crate::QpConfig::comp_vector) chooses anything: a device's
    /// completion vectors (interrupts). A provider without them signals each queue pair on its own.
    fn has_completion_vectors(&self) -> bool {
        false
    }
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

    /// Registers `buf` for this connection's peer with `access`. Each call is a memory registration
    /// (pinning pages on a NIC): the data path uses [`pool`](Self::pool) and windows instead.
    fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError>;

    /// This side's pool: [`QpConfig::pool_bytes`] of writable memory registered once, when the
    /// connection was made, with [`Access::LOCAL_WRITE`] and no remote access of its own (the peer
    /// reaches it only through windows). `None` when the configuration asked for none. Where the
    /// provider can, the pool is memory the peer's one-sided operations reach without a system call
    /// (the soft provider maps it into the peer). Its bytes are copied in and out with
    /// [`MemoryRegion::write_at`] and [`MemoryRegion::read_at`]; every call returns the same region.
    fn pool(&self) -> Option<MemoryRegion>;

    /// Opens `access` for the peer to `len` bytes of `region` (registered on this queue pair) from
    /// `offset`, under a handle of its own that the peer's operations are refused with once the
    /// window is closed ([`Window::close`], or dropping it): remote access limited to one RPC, as
    /// per-call registration gives (RFC 8166 §3.4.1), without a memory registration per call (a
    /// key-table slot in the soft provider, a memory window bound on the queue pair with verbs).
    fn open_window(
        &self,
        region: &MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<Window, RdmaError>;

    /// RDMA Write of `remote.length` bytes gathered in order from `sources` (their lengths add up to
    /// `remote.length`): memory the caller did not register, such as a RAM backend's pages, held by
    /// the provider until the completion. The soft provider copies from it directly; a provider that
    /// needs local keys registers what no registration of its own covers, and counts it in
    /// [`registrations`](Self::registrations).
    fn post_write_gather(&self, wr_id: WrId, sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError>;

    /// Memory registrations made on this queue pair so far (the pool, [`register`](Self::register)
    /// and the provider's own for [`post_write_gather`](Self::post_write_gather)); windows are not
    /// registrations. What reports divide by I/Os.
    fn registrations(&self) -> u64;

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

/// For providers: refuses a [`QueuePair::post_write_gather`] whose sources do not add up to the
/// segment's length.
pub fn check_gather(sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
    let total = sources.iter().try_fold(0usize, |sum, s| sum.checked_add(s.len()));
    if total != Some(remote.length as usize) {
        return Err(RdmaError::Invalid(format!(
            "a gather write of {total:?} bytes to a segment of {} bytes",
            remote.length
        )));
    }
    Ok(())
}

/// Waits for the next batch of completions (at least one) from `qp`.
pub async fn next_completions(qp: &dyn QueuePair, out: &mut Vec<Completion>) -> Result<(), RdmaError> {
    std::future::poll_fn(|cx| qp.poll_completions(cx, out)).await
}
