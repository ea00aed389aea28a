//! The message channel of one connection: how the bytes of a Send reach the peer's posted receive.
//!
//! Behind one small trait so that the carrier can change: [`shm`] writes each message into a ring in
//! shared memory that the receiver polls (the socket only carries doorbells and the end), and
//! [`seqpacket`] sends each message on the connection's SOCK_SEQPACKET socket (used when a
//! configuration would need a ring over 64 MiB). The queue pair checks credits (posted receives) and
//! sizes before it hands a message over, so a channel only moves bytes, keeps their order, and
//! reports the peer's end.

use std::fmt;
use std::io;
use std::task::{Context, Poll};

use bytes::Bytes;

pub(crate) mod ring;
pub(crate) mod seqpacket;
pub(crate) mod shm;
pub(crate) mod spin;

/// Why a channel stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ChannelError {
    /// The peer closed its end (orderly or because its process ended).
    #[error("the peer closed the connection")]
    Closed,
    /// The peer broke the channel's rules.
    #[error("protocol violation by the peer: {0}")]
    Protocol(String),
    /// The peer broke the shared-memory ring's rules.
    #[error("protocol violation by the peer: {0}")]
    Ring(#[from] ring::RingError),
    #[error("connection socket: {0}")]
    Io(#[from] io::Error),
}

/// Moves messages to the peer in order.
pub(crate) trait Channel: Send + Sync + fmt::Debug {
    /// Sends one message gathered from `parts`, in order after every earlier one; never blocks (a
    /// message the carrier cannot take yet is queued inside the channel).
    fn send(&mut self, parts: &[&[u8]]) -> Result<(), ChannelError>;

    /// Hands up to `limit` arrived messages to `deliver`: `Ready(Ok(n))` with `n > 0` when some came;
    /// `Pending` (with `cx` registered) when none did; `Ready(Err(Closed))` once the peer's end is
    /// reached after its last message.
    fn poll_recv(
        &mut self,
        cx: &mut Context<'_>,
        limit: usize,
        deliver: &mut dyn FnMut(Bytes),
    ) -> Poll<Result<usize, ChannelError>>;

    /// Ends the channel in both directions; the peer reads `Closed` after what was already sent.
    fn close(&mut self);
}
