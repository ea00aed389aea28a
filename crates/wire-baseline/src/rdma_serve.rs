//! The RDMA responder, over any provider. The client's [`Hello`] is the connection's private data; a bad
//! one is refused ([`rdma::Incoming::reject`]) and the listener goes on. The client speaks first on every
//! connection and the responder accepts with a receive already posted, and each side posts a receive
//! before the Send that the peer's next Send answers, so no Send ever meets a missing receive.
//!
//! - Write bandwidth (ib_write_bw), mode stream: after the client's "ready" the responder posts a
//!   receive for "done", registers a buffer of the hello's size for remote writes and sends its segment
//!   (see `control.rs`); the client's RDMA Writes land there until it sends "done", which the responder
//!   answers with "done" before the client disconnects. The buffer is invalidated when the client says
//!   done or leaves.
//! - Ping-pong (ib_send_lat): Sends of the hello's size echoed, one outstanding.
//!
//! A peer has [`GRACE`] for each step except the Writes (as long as the client measures); memory is
//! one buffer of the hello's size (at most [`crate::MAX_MESSAGE`]) per connection.

use crate::control::{self, DONE, READY};
use crate::error::WireError;
use crate::hello::{Hello, Mode};
use crate::tcp::{timed, GRACE};
use bytes::Bytes;
use rdma::{next_completions, Access, Completion, CompletionKind, Listener, QpConfig, QueuePair, RdmaError, RegBuf};
use std::time::Duration;

/// Receive size of the write-bandwidth connections (control messages only).
pub(crate) const CONTROL_RECV: u32 = 64;

/// A baseline connection's queues: `recv_size`-byte receives, `max_send` outstanding sends and
/// writes, no RDMA Reads either way.
pub(crate) fn config(recv_size: u32, max_send: u32) -> QpConfig {
    QpConfig { recv_size, max_recv: 4, max_send, initiator_depth: 0, responder_resources: 0, ..QpConfig::default() }
}

/// Answer baseline connections from `listener` until the task is dropped (aborted).
pub async fn serve_rdma(mut listener: Box<dyn Listener>) {
    loop {
        let incoming = match listener.accept().await {
            Ok(i) => i,
            Err(e) => {
                tracing::warn!("RDMA wire baseline listener: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let hello = match Hello::decode(incoming.private_data()) {
            Ok(h) => h,
            Err(e) => {
                tracing::debug!(peer = ?incoming.peer_addr(), "RDMA wire baseline: refusing a connection: {e}");
                incoming.reject();
                continue;
            }
        };
        let recv = match hello.mode {
            Mode::Stream => CONTROL_RECV,
            Mode::PingPong => hello.size.max(CONTROL_RECV),
        };
        let accepted = incoming.accept_with_recvs(config(recv, 4), &[], 1);
        tokio::spawn(async move {
            let result = match timed(accepted).await {
                Ok(Ok(qp)) => match hello.mode {
                    Mode::Stream => respond_write_target(&*qp, hello.size).await,
                    Mode::PingPong => respond_echo(&*qp).await,
                },
                Ok(Err(e)) => Err(e.into()),
                Err(e) => Err(e),
            };
            if let Err(e) = result {
                tracing::debug!("RDMA wire baseline connection ended: {e}");
            }
        });
    }
}

async fn respond_write_target(qp: &dyn QueuePair, size: u32) -> Result<(), WireError> {
    let mut out = Vec::new();
    control::expect(&timed(recv_one(qp, &mut out)).await??, READY)?;
    qp.post_recvs(1)?; // for "done", before the client has the segment
    let region = qp.register(RegBuf::Writable(vec![0u8; size as usize]), Access::LOCAL_WRITE | Access::REMOTE_WRITE)?;
    let seg = region.segment(0, size).ok_or_else(|| WireError::Protocol("segment out of the region".into()))?;
    qp.post_send(1, &[&control::encode_segment(seg)])?;
    // The Writes run as long as the client measures: no time limit here.
    let end = recv_one(qp, &mut out).await;
    region.invalidate();
    match end {
        Ok(msg) => control::expect(&msg, DONE)?,
        Err(WireError::Rdma(RdmaError::Disconnected)) => {
            return Err(WireError::Protocol("the client left without \"done\"".into()))
        }
        Err(e) => return Err(e),
    }
    qp.post_send(2, &[DONE])?;
    // The client disconnects once it has the answer.
    let _ = tokio::time::timeout(GRACE, until_disconnected(qp, &mut out)).await;
    Ok(())
}

async fn respond_echo(qp: &dyn QueuePair) -> Result<(), WireError> {
    let mut out = Vec::new();
    loop {
        let msg = match timed(recv_one(qp, &mut out)).await? {
            Ok(m) => m,
            Err(WireError::Rdma(RdmaError::Disconnected)) => return Ok(()),
            Err(e) => return Err(e),
        };
        qp.post_recvs(1)?;
        qp.post_send(1, &[&msg])?;
    }
}

/// The next received message, passing over successful Send and Write completions (`out` keeps the
/// completions not yet looked at). A flushed request or a closed connection is
/// [`RdmaError::Disconnected`].
pub(crate) async fn recv_one(qp: &dyn QueuePair, out: &mut Vec<Completion>) -> Result<Bytes, WireError> {
    loop {
        let passed_over = |c: &Completion| matches!(c.result, Ok(CompletionKind::Send | CompletionKind::Write));
        if let Some(i) = out.iter().position(|c| !passed_over(c)) {
            let c = out.remove(i);
            return match c.result {
                Ok(CompletionKind::Recv(bytes)) => Ok(bytes),
                Ok(other) => Err(WireError::Protocol(format!("unexpected completion {other:?}"))),
                Err(rdma::WcError::Flushed) => Err(RdmaError::Disconnected.into()),
                Err(e) => Err(WireError::WorkRequest(e)),
            };
        }
        out.clear();
        next_completions(qp, out).await?;
    }
}

/// Waits until the connection is down.
async fn until_disconnected(qp: &dyn QueuePair, out: &mut Vec<Completion>) {
    loop {
        out.clear();
        if next_completions(qp, out).await.is_err() {
            return;
        }
    }
}
