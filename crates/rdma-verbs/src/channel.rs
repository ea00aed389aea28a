//! RDMA-CM event channels, read through tokio, and the events they deliver.
//!
//! Ownership, what must outlive what: an [`EventChannel`] outlives every [`CmId`] on it (each id holds
//! an `Arc` of its channel), and each event is copied and acknowledged as soon as it is read, so no id
//! is ever destroyed or migrated with an event outstanding (`rdma_destroy_id` and `rdma_migrate_id`
//! would wait for it).
#![allow(unsafe_code)]

use std::future::poll_fn;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::ptr::{self, NonNull};
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use rdma::RdmaError;
use rdma_sys as sys;
use sys::rdma_cm_event_type as ev;
use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

use crate::cm::CmId;
use crate::device::c_string;

/// The file descriptor of an event channel, as the reactor sees it (borrowed: the channel closes it).
#[derive(Debug)]
struct ChannelFd(RawFd);

impl AsRawFd for ChannelFd {
    fn as_raw_fd(&self) -> RawFd {
        self.0
    }
}

/// Owns an `rdma_event_channel`.
#[derive(Debug)]
struct RawChannel(NonNull<sys::rdma_event_channel>);

// SAFETY: librdmacm's event channel is a file descriptor wrapper usable from any thread; every call on
// it is a system call on that descriptor.
unsafe impl Send for RawChannel {}
// SAFETY: as above; concurrent rdma_get_cm_event calls are serialised by the kernel.
unsafe impl Sync for RawChannel {}

impl Drop for RawChannel {
    fn drop(&mut self) {
        // SAFETY: every id on this channel held an Arc of the channel, so all are destroyed, and every
        // event read was acknowledged at once; the reactor registration was dropped first (field order
        // of EventChannel).
        unsafe { sys::rdma_destroy_event_channel(self.0.as_ptr()) }
    }
}

/// An RDMA-CM event channel whose (non-blocking) descriptor is watched by tokio.
#[derive(Debug)]
pub(crate) struct EventChannel {
    /// Dropped before `raw`, which closes the descriptor.
    fd: AsyncFd<ChannelFd>,
    raw: RawChannel,
}

/// Fails unless called inside a tokio runtime (whose reactor must have I/O enabled).
pub(crate) fn require_runtime() -> Result<(), RdmaError> {
    tokio::runtime::Handle::try_current()
        .map(|_| ())
        .map_err(|_| RdmaError::Invalid("the verbs provider must run inside a tokio runtime with I/O enabled".into()))
}

/// Sets O_NONBLOCK on a descriptor rdma-core created.
pub(crate) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns; F_GETFL/F_SETFL touch no memory.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl EventChannel {
    pub(crate) fn new() -> Result<Arc<Self>, RdmaError> {
        require_runtime()?;
        // SAFETY: no arguments; returns null (errno set) or a channel we now own.
        let raw = NonNull::new(unsafe { sys::rdma_create_event_channel() }).ok_or_else(|| {
            RdmaError::Unavailable(format!(
                "librdmacm cannot open /dev/infiniband/rdma_cm (is rdma_ucm loaded?): {}",
                io::Error::last_os_error()
            ))
        })?;
        let raw = RawChannel(raw);
        // SAFETY: `raw` is a live channel.
        let fd = unsafe { (*raw.0.as_ptr()).fd };
        set_nonblocking(fd).map_err(|e| RdmaError::io("fcntl(O_NONBLOCK) on the RDMA-CM channel", e))?;
        // SAFETY: the descriptor stays open until `raw` is dropped, which happens after this AsyncFd
        // (declared first in EventChannel), and no one replaces it.
        let fd = unsafe { AsyncFd::register_with_interest(ChannelFd(fd), Interest::READABLE) }
            .map_err(|e| RdmaError::io("registering the RDMA-CM channel with tokio", e.into()))?;
        Ok(Arc::new(EventChannel { fd, raw }))
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::rdma_event_channel {
        self.raw.0.as_ptr()
    }

    /// Reads one event without blocking (`None` when none is queued); the event is copied and acked.
    fn try_event(self: &Arc<Self>) -> io::Result<Option<CmEvent>> {
        let mut event: *mut sys::rdma_cm_event = ptr::null_mut();
        // SAFETY: the channel is live; `event` receives an event we must ack (done below).
        if unsafe { sys::rdma_get_cm_event(self.as_ptr(), &mut event) } != 0 {
            let err = io::Error::last_os_error();
            return if err.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(err) };
        }
        // SAFETY: rdma_get_cm_event succeeded, so `event` is valid until acked; it is read here and
        // acked right after, before anything else can destroy or migrate its id.
        let copied = unsafe { CmEvent::copy(&*event, self) };
        // SAFETY: acks the event read above exactly once; nothing borrowed from it survives.
        unsafe { sys::rdma_ack_cm_event(event) };
        Ok(Some(copied))
    }

    /// The next event, registering `cx` to be woken when one is queued.
    pub(crate) fn poll_event(self: &Arc<Self>, cx: &mut Context<'_>) -> Poll<io::Result<CmEvent>> {
        loop {
            let mut guard = ready!(self.fd.poll_read_ready(cx))?;
            match self.try_event() {
                Ok(Some(event)) => return Poll::Ready(Ok(event)),
                Ok(None) => guard.clear_ready(),
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    pub(crate) async fn next_event(self: &Arc<Self>) -> io::Result<CmEvent> {
        poll_fn(|cx| self.poll_event(cx)).await
    }
}

/// One RDMA-CM event, copied out of librdmacm's buffer.
#[derive(Debug)]
pub(crate) struct CmEvent {
    pub kind: sys::rdma_cm_event_type::Type,
    /// A negative errno, or for REJECTED the InfiniBand CM reject reason.
    pub status: i32,
    /// The address of the id the event is about (for comparison only).
    pub id_key: usize,
    /// CONNECT_REQUEST: the new id, owned from now on (on the listener's channel until migrated).
    pub new_id: Option<CmId>,
    /// The private data that arrived (requests, replies, rejects); RDMA-CM may pad it with zeros.
    pub private_data: Vec<u8>,
    /// RDMA Reads we may issue towards the peer: the peer's responder resources.
    pub initiator_depth: u8,
    /// RDMA Reads the peer may issue towards us: the peer's initiator depth.
    pub responder_resources: u8,
}

impl CmEvent {
    /// # Safety
    /// `event` is a valid, not yet acknowledged event read from `channel`.
    unsafe fn copy(event: &sys::rdma_cm_event, channel: &Arc<EventChannel>) -> CmEvent {
        let kind = event.event;
        let mut copied = CmEvent {
            kind,
            status: event.status,
            id_key: event.id as usize,
            new_id: None,
            private_data: Vec::new(),
            initiator_depth: 0,
            responder_resources: 0,
        };
        let connection_event = matches!(
            kind,
            ev::RDMA_CM_EVENT_CONNECT_REQUEST
                | ev::RDMA_CM_EVENT_CONNECT_RESPONSE
                | ev::RDMA_CM_EVENT_ESTABLISHED
                | ev::RDMA_CM_EVENT_REJECTED
        );
        if connection_event {
            // SAFETY: for these events of a connected (RDMA_PS_TCP) id the union holds `conn`.
            let conn = unsafe { event.param.conn };
            copied.initiator_depth = conn.initiator_depth;
            copied.responder_resources = conn.responder_resources;
            if !conn.private_data.is_null() && conn.private_data_len > 0 {
                // SAFETY: librdmacm provides private_data_len readable bytes until the event is acked.
                let data = unsafe {
                    std::slice::from_raw_parts(conn.private_data.cast::<u8>(), usize::from(conn.private_data_len))
                };
                copied.private_data = data.to_vec();
            }
        }
        if kind == ev::RDMA_CM_EVENT_CONNECT_REQUEST {
            // SAFETY: a request's id is new and ours; its events arrive on `channel`.
            copied.new_id = NonNull::new(event.id).map(|raw| unsafe { CmId::adopt(raw, channel.clone()) });
        }
        copied
    }

    /// The event's name as librdmacm spells it (`RDMA_CM_EVENT_REJECTED`).
    pub(crate) fn name(&self) -> String {
        event_name(self.kind)
    }
}

pub(crate) fn event_name(kind: sys::rdma_cm_event_type::Type) -> String {
    // SAFETY: rdma_event_str returns a static string for every value, known or not.
    unsafe { c_string(sys::rdma_event_str(kind)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_names_come_from_librdmacm() {
        assert_eq!(event_name(ev::RDMA_CM_EVENT_DISCONNECTED), "RDMA_CM_EVENT_DISCONNECTED");
    }

    #[test]
    fn channels_need_a_runtime() {
        assert!(matches!(require_runtime(), Err(RdmaError::Invalid(_))));
    }
}
