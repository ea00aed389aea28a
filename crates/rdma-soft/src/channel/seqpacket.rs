//! Messages on the connection's SOCK_SEQPACKET socket: one socket message per Send, prefixed by a tag
//! byte (so that an empty Send is not mistaken for end-of-file). A message the socket buffer cannot
//! take yet waits, in order, in a queue bounded by the peer's receive count.

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::unix::AsyncFd;

use super::{Channel, ChannelError};
use crate::sys::socket;

const TAG_DATA: u8 = 1;

/// The socket channel.
#[derive(Debug)]
pub(crate) struct SeqpacketChannel {
    fd: Arc<AsyncFd<OwnedFd>>,
    /// Receive buffer: the tag plus the largest message we accept.
    scratch: Vec<u8>,
    /// Messages (tag included) waiting for room in the socket buffer.
    pending: VecDeque<Vec<u8>>,
    /// The most messages that may wait: the peer's receive count.
    pending_limit: usize,
    closed: bool,
}

impl SeqpacketChannel {
    /// A channel on `fd` accepting messages of up to `recv_size` bytes; at most `peer_max_recv`
    /// messages may wait for the socket.
    pub(crate) fn new(fd: Arc<AsyncFd<OwnedFd>>, recv_size: u32, peer_max_recv: u32) -> SeqpacketChannel {
        socket::grow_send_buffer(fd.get_ref().as_fd(), 4 << 20);
        SeqpacketChannel {
            fd,
            scratch: vec![0; recv_size as usize + 1],
            pending: VecDeque::new(),
            pending_limit: peer_max_recv as usize,
            closed: false,
        }
    }

    fn send_now(&self, parts: &[&[u8]]) -> io::Result<()> {
        socket::send(self.fd.get_ref().as_fd(), parts, &[]).map(drop)
    }

    /// Sends queued messages until the socket buffer is full again.
    fn flush(&mut self) -> Result<(), ChannelError> {
        while let Some(message) = self.pending.front() {
            match self.send_now(&[message]) {
                Ok(()) => {
                    self.pending.pop_front();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) => return Err(broken(e)),
            }
        }
        Ok(())
    }

    fn queue(&mut self, parts: &[&[u8]]) -> Result<(), ChannelError> {
        if self.pending.len() >= self.pending_limit {
            return Err(ChannelError::Protocol("the peer does not take the messages its receives allow".into()));
        }
        let mut message = vec![TAG_DATA];
        parts.iter().for_each(|p| message.extend_from_slice(p));
        self.pending.push_back(message);
        Ok(())
    }

    /// Receives one message: `Some(len)` of the payload in `scratch[1..]`, `None` at end-of-file.
    fn recv_one(&mut self) -> io::Result<Option<usize>> {
        let got = socket::recv(self.fd.get_ref().as_fd(), &mut self.scratch, false)?;
        if got.len == 0 && !got.truncated {
            return Ok(None);
        }
        if got.truncated {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "message longer than the receive buffers"));
        }
        if self.scratch[0] != TAG_DATA {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "unknown message tag"));
        }
        Ok(Some(got.len - 1))
    }
}

fn broken(e: io::Error) -> ChannelError {
    match e.raw_os_error() {
        Some(libc::EPIPE | libc::ECONNRESET | libc::ENOTCONN) => ChannelError::Closed,
        _ if e.kind() == io::ErrorKind::InvalidData => ChannelError::Protocol(e.to_string()),
        _ => ChannelError::Io(e),
    }
}

impl Channel for SeqpacketChannel {
    fn send(&mut self, parts: &[&[u8]]) -> Result<(), ChannelError> {
        if self.closed {
            return Err(ChannelError::Closed);
        }
        if !self.pending.is_empty() {
            self.queue(parts)?;
            return self.flush();
        }
        let mut gathered = Vec::with_capacity(parts.len() + 1);
        gathered.push(&[TAG_DATA][..]);
        gathered.extend_from_slice(parts);
        match self.send_now(&gathered) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => self.queue(parts),
            Err(e) => Err(broken(e)),
        }
    }

    fn poll_recv(
        &mut self,
        cx: &mut Context<'_>,
        limit: usize,
        deliver: &mut dyn FnMut(Bytes),
    ) -> Poll<Result<usize, ChannelError>> {
        if self.closed {
            return Poll::Ready(Err(ChannelError::Closed));
        }
        if !self.pending.is_empty() {
            self.flush()?;
            if !self.pending.is_empty() {
                // Registers the waker for when the socket buffer has room again.
                if let Poll::Ready(Ok(mut guard)) = self.fd.poll_write_ready(cx) {
                    guard.clear_ready();
                    cx.waker().wake_by_ref();
                }
            }
        }
        let fd = self.fd.clone();
        let mut taken = 0;
        while taken < limit {
            let mut guard = match fd.poll_read_ready(cx) {
                Poll::Pending => break,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(ChannelError::Io(e))),
                Poll::Ready(Ok(guard)) => guard,
            };
            match guard.try_io(|_| self.recv_one()) {
                Err(_would_block) => continue,
                Ok(Ok(Some(len))) => {
                    deliver(Bytes::copy_from_slice(&self.scratch[1..=len]));
                    taken += 1;
                }
                Ok(Ok(None)) if taken == 0 => return Poll::Ready(Err(ChannelError::Closed)),
                // Deliver what came first; the end is seen on the next poll.
                Ok(Ok(None)) => break,
                Ok(Err(e)) => return Poll::Ready(Err(broken(e))),
            }
        }
        if taken > 0 {
            Poll::Ready(Ok(taken))
        } else {
            Poll::Pending
        }
    }

    fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            self.pending.clear();
            socket::shutdown(self.fd.get_ref().as_fd());
        }
    }
}
