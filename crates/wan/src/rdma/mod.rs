//! RDMA through the emulated link: a provider wrapper whose queue pairs delay every operation that
//! crosses the link as an RC connection over that distance would, from one side only (client or server).
//!
//! The wrapped side delays, in both directions of one [`Link`]:
//! - its Sends and RDMA Writes: posted on the inner queue pair when they arrive at the peer (after
//!   serialisation on `outbound` and one-way propagation), in posting order (RC); they complete one
//!   one-way later, when the acknowledgement would be back;
//! - its RDMA Reads: the request is posted after it travels out; the completion comes once the data
//!   has crossed `inbound` (serialisation and propagation);
//! - the peer's Sends: each receive completion is held until the message arrives over `inbound`.
//!   Before the message, the wrapper charges what the peer did to our memory with its own one-sided
//!   operations since its previous message ([`::rdma::QueuePair::peer_one_sided`]): bytes it
//!   wrote cross `inbound` ahead of the message; bytes it read need its request to reach us (one-way),
//!   then cross `outbound` and travel back, and only then does the peer send. In RPC-over-RDMA the
//!   server moves all bulk data with RDMA Read and Write of the client's memory (RFC 8166 §3.4), so
//!   this is what makes client-side emulation right: an NFS WRITE of 1 MiB costs the call (one-way),
//!   the server's Read of the Read chunk (a round trip plus 1 MiB on `outbound`) and the reply
//!   (one-way); an NFS READ the call, 1 MiB on `inbound` (Write chunk) and the reply.
//!
//! The peer's counters exist only where the provider can see them: the soft provider reports them;
//! verbs cannot (a NIC does not tell what the peer did to our memory), so over verbs only the wrapped
//! side's own operations would be delayed. Use the wrapper on the server side there, or not at all
//! (the CLI refuses `--wan` with verbs).
//!
//! Each wrapped queue pair runs a tokio task (`task`) over a timeline (`schedule`): a timer queue
//! of work requests to post and completions held in queue order, woken by the microsecond clock.

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use ::rdma::{
    Access, BoxFuture, Completion, ConnectionInfo, Incoming, Listener, MemoryRegion, Provider, QpConfig, QueuePair,
    RdmaError, RegBuf, RemoteSegment, Window, WrId,
};
use bytes::Bytes;

use crate::link::Link;

mod schedule;
mod task;

use schedule::{Op, State};
use task::lock;

/// A provider whose connections go through the emulated `link`.
pub struct WanProvider {
    inner: Arc<dyn Provider>,
    link: Arc<Link>,
}

impl WanProvider {
    /// `inner`'s connections, delayed by `link` (the process's one link, shared by all of them).
    pub fn new(inner: Arc<dyn Provider>, link: Arc<Link>) -> WanProvider {
        WanProvider { inner, link }
    }

    pub fn link(&self) -> &Arc<Link> {
        &self.link
    }
}

impl fmt::Debug for WanProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WanProvider").field("inner", &self.inner).field("link", &self.link.spec).finish()
    }
}

fn over_link(name: &str, link: &Link) -> String {
    format!("{name} over an emulated link ({})", link.spec.describe())
}

impl Provider for WanProvider {
    fn name(&self) -> String {
        over_link(&self.inner.name(), &self.link)
    }

    fn connect<'a>(
        &'a self,
        addr: SocketAddr,
        config: QpConfig,
        private_data: &'a [u8],
    ) -> BoxFuture<'a, Result<Box<dyn QueuePair>, RdmaError>> {
        Box::pin(async move {
            let qp = self.inner.connect(addr, config, private_data).await?;
            Ok(Box::new(WanQueuePair::wrap(qp, self.link.clone(), &config)?) as Box<dyn QueuePair>)
        })
    }

    fn listen(&self, addr: SocketAddr) -> Result<Box<dyn Listener>, RdmaError> {
        let inner = self.inner.listen(addr)?;
        Ok(Box::new(WanListener { inner, link: self.link.clone() }))
    }

    fn has_completion_vectors(&self) -> bool {
        self.inner.has_completion_vectors()
    }
}

#[derive(Debug)]
struct WanListener {
    inner: Box<dyn Listener>,
    link: Arc<Link>,
}

impl Listener for WanListener {
    fn local_addr(&self) -> SocketAddr {
        self.inner.local_addr()
    }

    fn accept(&mut self) -> BoxFuture<'_, Result<Box<dyn Incoming>, RdmaError>> {
        Box::pin(async move {
            let inner = self.inner.accept().await?;
            Ok(Box::new(WanIncoming { inner, link: self.link.clone() }) as Box<dyn Incoming>)
        })
    }
}

#[derive(Debug)]
struct WanIncoming {
    inner: Box<dyn Incoming>,
    link: Arc<Link>,
}

impl Incoming for WanIncoming {
    fn peer_addr(&self) -> Option<SocketAddr> {
        self.inner.peer_addr()
    }

    fn private_data(&self) -> &[u8] {
        self.inner.private_data()
    }

    fn peer_responder_resources(&self) -> u8 {
        self.inner.peer_responder_resources()
    }

    fn accept(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        let link = self.link;
        let accepted = self.inner.accept(config, private_data);
        Box::pin(async move { Ok(Box::new(WanQueuePair::wrap(accepted.await?, link, &config)?) as Box<dyn QueuePair>) })
    }

    fn accept_with_recvs(
        self: Box<Self>,
        config: QpConfig,
        private_data: &[u8],
        recvs: u32,
    ) -> BoxFuture<'static, Result<Box<dyn QueuePair>, RdmaError>> {
        // Receives are local: posted by the inner before it answers, as without the link.
        let link = self.link;
        let accepted = self.inner.accept_with_recvs(config, private_data, recvs);
        Box::pin(async move { Ok(Box::new(WanQueuePair::wrap(accepted.await?, link, &config)?) as Box<dyn QueuePair>) })
    }

    fn reject(self: Box<Self>) {
        self.inner.reject();
    }
}

/// A queue pair whose traffic crosses the emulated link. Registration and receives go straight to the
/// inner queue pair (they are local); sends, reads, writes and completions follow the link's timeline.
///
/// Memory stays bounded: requests waiting for their time count against the send queue's depth
/// (`QpConfig::max_send`, refused with `QueueFull` as the inner would), and an RPC-over-RDMA peer
/// sends no more messages than the credits we granted, so held receives are bounded by our receives.
#[derive(Debug)]
pub struct WanQueuePair {
    inner: Arc<dyn QueuePair>,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
    provider: String,
}

impl WanQueuePair {
    /// Puts `inner`, made with `config`, behind `link`. Starts the queue pair's task: must be called
    /// inside a tokio runtime.
    pub fn wrap(inner: Box<dyn QueuePair>, link: Arc<Link>, config: &QpConfig) -> Result<WanQueuePair, RdmaError> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| RdmaError::Unavailable("link emulation must run inside a tokio runtime".into()))?;
        let inner: Arc<dyn QueuePair> = Arc::from(inner);
        let info = inner.info();
        let provider = over_link(&info.provider, &link);
        let state =
            Arc::new(Mutex::new(State::new(link, config.max_send, info.initiator_depth, config.responder_resources)));
        let task = runtime.spawn(task::drive(state.clone(), inner.clone()));
        Ok(WanQueuePair { inner, state, task, provider })
    }

    /// Queues `op` and wakes the task.
    fn post(&self, wr_id: WrId, op: Op) -> Result<(), RdmaError> {
        let waker = {
            let mut st = lock(&self.state);
            st.post(Instant::now(), wr_id, op)?;
            st.task.clone()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}

impl Drop for WanQueuePair {
    fn drop(&mut self) {
        // The task holds the inner queue pair; ending it drops (and so disconnects) the inner.
        self.task.abort();
    }
}

/// What the inner would refuse at once about the local side of a Read or Write: a range past the
/// region, an invalidated region, a Read into memory that is not locally writable.
fn check_local(local: &MemoryRegion, offset: usize, length: u32, read: bool) -> Result<(), RdmaError> {
    if local.is_invalidated() {
        return Err(RdmaError::Invalid("the local region is invalidated".into()));
    }
    if offset.checked_add(length as usize).is_none_or(|end| end > local.len()) {
        return Err(RdmaError::Invalid(format!(
            "{length} bytes at offset {offset} leave the local region ({} bytes)",
            local.len()
        )));
    }
    if read && !(local.is_writable() && local.access().contains(Access::LOCAL_WRITE)) {
        return Err(RdmaError::Invalid("an RDMA Read needs a writable region registered with LOCAL_WRITE".into()));
    }
    Ok(())
}

impl QueuePair for WanQueuePair {
    fn info(&self) -> ConnectionInfo {
        ConnectionInfo { provider: self.provider.clone(), ..self.inner.info() }
    }

    fn register(&self, buf: RegBuf, access: Access) -> Result<MemoryRegion, RdmaError> {
        self.inner.register(buf, access)
    }

    fn pool(&self) -> Option<MemoryRegion> {
        self.inner.pool()
    }

    /// Local, like registration: the window's handle is the inner's.
    fn open_window(
        &self,
        region: &MemoryRegion,
        offset: usize,
        len: usize,
        access: Access,
    ) -> Result<Window, RdmaError> {
        self.inner.open_window(region, offset, len, access)
    }

    /// Charged to the link like [`post_write`](QueuePair::post_write): its bytes cross `outbound`.
    fn post_write_gather(&self, wr_id: WrId, sources: &[Bytes], remote: RemoteSegment) -> Result<(), RdmaError> {
        let total = sources.iter().try_fold(0usize, |sum, s| sum.checked_add(s.len()));
        if total != Some(remote.length as usize) {
            return Err(RdmaError::Invalid(format!(
                "a gather write of {total:?} bytes to a segment of {} bytes",
                remote.length
            )));
        }
        self.post(wr_id, Op::WriteGather { sources: sources.to_vec(), remote })
    }

    fn registrations(&self) -> u64 {
        self.inner.registrations()
    }

    fn post_recvs(&self, count: u32) -> Result<(), RdmaError> {
        self.inner.post_recvs(count)
    }

    fn post_send(&self, wr_id: WrId, message: &[&[u8]]) -> Result<(), RdmaError> {
        // The trait copies the bytes before returning; the inner Send happens later.
        self.post(wr_id, Op::Send(message.concat()))
    }

    fn post_read(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        check_local(local, offset, remote.length, true)?;
        self.post(wr_id, Op::Read { local: local.clone(), offset, remote })
    }

    fn post_write(
        &self,
        wr_id: WrId,
        local: &MemoryRegion,
        offset: usize,
        remote: RemoteSegment,
    ) -> Result<(), RdmaError> {
        check_local(local, offset, remote.length, false)?;
        self.post(wr_id, Op::Write { local: local.clone(), offset, remote })
    }

    fn poll_completions(&self, cx: &mut Context<'_>, out: &mut Vec<Completion>) -> Poll<Result<(), RdmaError>> {
        let mut st = lock(&self.state);
        if st.take_ready(out).is_some() {
            return Poll::Ready(Ok(()));
        }
        if st.finished() {
            return Poll::Ready(Err(RdmaError::Disconnected));
        }
        st.caller = Some(cx.waker().clone());
        Poll::Pending
    }

    fn disconnect(&self) {
        let waker = {
            let mut st = lock(&self.state);
            st.disconnect(Instant::now());
            st.task.clone()
        };
        self.inner.disconnect();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn peer_one_sided(&self) -> Option<::rdma::PeerOneSided> {
        self.inner.peer_one_sided()
    }
}
