//! The shared-memory channel: messages go through the peer's inbound [`Ring`], and the socket only
//! carries doorbells and the connection's end.
//!
//! A consumer that finds its ring empty may keep polling (waking its own task) for a short window
//! while that has been paying ([`Spin`]); then it declares itself asleep in the ring, checks once
//! more, and waits on the socket. A producer rings
//! the doorbell (one socket message) only when it finds the consumer asleep: store-then-load on both
//! sides, sequentially consistent, so a wake-up is never lost.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::io::unix::AsyncFd;

use super::ring::Ring;
use super::spin::Spin;
use super::{Channel, ChannelError};
use crate::sys::socket;

const TAG_DOORBELL: u8 = 2;

/// The ring channel of one side.
#[derive(Debug)]
pub(crate) struct ShmChannel {
    sock: Arc<AsyncFd<OwnedFd>>,
    /// Ours: the peer produces, we consume.
    inbound: Ring,
    /// The peer's: we produce.
    outbound: Ring,
    head: u64,
    tail: u64,
    recv_size: usize,
    spin: Spin,
    /// We closed the channel.
    closed: bool,
    /// The peer's end was read (after its last message).
    ended: bool,
}

impl ShmChannel {
    /// A channel receiving messages of up to `recv_size` bytes on `inbound`, sending on `outbound`,
    /// polling for up to `spin` (adaptively, see [`Spin`]) when its ring is empty before it sleeps.
    pub(crate) fn new(
        sock: Arc<AsyncFd<OwnedFd>>,
        inbound: Ring,
        outbound: Ring,
        recv_size: u32,
        spin: Duration,
    ) -> ShmChannel {
        ShmChannel {
            sock,
            inbound,
            outbound,
            head: 0,
            tail: 0,
            recv_size: recv_size as usize,
            spin: Spin::new(spin),
            closed: false,
            ended: false,
        }
    }

    fn ring_doorbell(&self) -> Result<(), ChannelError> {
        match socket::send(self.sock.get_ref().as_fd(), &[&[TAG_DOORBELL]], &[]) {
            Ok(_) => Ok(()),
            // A full socket holds doorbells the consumer has not read yet: it will wake.
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(()),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EPIPE | libc::ECONNRESET)) => Err(ChannelError::Closed),
            Err(e) => Err(ChannelError::Io(e)),
        }
    }

    /// Reads doorbells until the socket is empty; `Ready(Closed)` at its end, `Pending` with the
    /// waker registered once it is empty.
    fn poll_socket(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ChannelError>> {
        let mut buf = [0u8; 16];
        loop {
            let mut guard = match self.sock.poll_read_ready(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(ChannelError::Io(e))),
                Poll::Ready(Ok(guard)) => guard,
            };
            match guard.try_io(|fd| socket::recv(fd.get_ref().as_fd(), &mut buf, false)) {
                Err(_would_block) => continue,
                Ok(Ok(got)) if got.len == 0 && !got.truncated => return Poll::Ready(Err(ChannelError::Closed)),
                Ok(Ok(got)) if got.len == 1 && buf[0] == TAG_DOORBELL => return Poll::Ready(Ok(())),
                Ok(Ok(_)) => return Poll::Ready(Err(ChannelError::Protocol("unexpected socket message".into()))),
                Ok(Err(e)) => return Poll::Ready(Err(ChannelError::Io(e))),
            }
        }
    }

    /// Takes up to `limit` messages from the inbound ring.
    fn drain(&mut self, limit: usize, deliver: &mut dyn FnMut(Bytes)) -> Result<usize, ChannelError> {
        let mut taken = 0;
        while taken < limit {
            match self.inbound.pop(self.tail, self.recv_size)? {
                Some((message, tail)) => {
                    self.tail = tail;
                    deliver(Bytes::from(message));
                    taken += 1;
                }
                None => break,
            }
        }
        Ok(taken)
    }
}

impl Channel for ShmChannel {
    fn send(&mut self, parts: &[&[u8]]) -> Result<(), ChannelError> {
        if self.closed || self.outbound.is_closed() {
            return Err(ChannelError::Closed);
        }
        self.head = self.outbound.push(self.head, parts)?;
        let sleeping = self.outbound.sleeping();
        if sleeping.load(Ordering::SeqCst) != 0 && sleeping.swap(0, Ordering::SeqCst) != 0 {
            self.ring_doorbell()?;
        }
        Ok(())
    }

    fn poll_recv(
        &mut self,
        cx: &mut Context<'_>,
        limit: usize,
        deliver: &mut dyn FnMut(Bytes),
    ) -> Poll<Result<usize, ChannelError>> {
        loop {
            if self.closed || self.ended {
                return Poll::Ready(Err(ChannelError::Closed));
            }
            let taken = self.drain(limit, deliver)?;
            if taken > 0 {
                self.spin.arrived();
                return Poll::Ready(Ok(taken));
            }
            if self.inbound.is_closed() {
                return Poll::Ready(Err(ChannelError::Closed));
            }
            if self.spin.keep_polling(Instant::now()) {
                // Busy connection: poll again soon instead of sleeping (other tasks still run).
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            self.inbound.sleeping().store(1, Ordering::SeqCst);
            if self.inbound.head() != self.tail || self.inbound.is_closed() {
                self.inbound.sleeping().store(0, Ordering::SeqCst);
                continue;
            }
            match self.poll_socket(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok(())) => self.inbound.sleeping().store(0, Ordering::SeqCst),
                Poll::Ready(Err(ChannelError::Closed)) => {
                    // Messages sent before the end are still delivered.
                    let taken = self.drain(limit, deliver)?;
                    self.ended = taken == 0;
                    if taken > 0 {
                        return Poll::Ready(Ok(taken));
                    }
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            }
        }
    }

    fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            self.inbound.close();
            self.outbound.close();
            socket::shutdown(self.sock.get_ref().as_fd());
        }
    }
}

#[cfg(test)]
mod tests;
