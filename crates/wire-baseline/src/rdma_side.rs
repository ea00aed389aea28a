//! The RDMA baselines over any provider. The client speaks first on every connection (its hello is the
//! connection's private data; a responder accepts with receives already posted), so no Send ever meets
//! a missing receive.
//!
//! - Write bandwidth (ib_write_bw): the client sends "ready"; the responder registers a buffer of the
//!   hello's size for remote writes and sends its segment (handle u32, offset u64, length u32); the
//!   client keeps [`WRITE_DEPTH`] RDMA Writes of that size in flight to it until the duration is over,
//!   counting those whose completion says placed, then disconnects.
//! - Ping-pong (ib_send_lat): Sends of the hello's size echoed, one outstanding; each side posts its next
//!   receive before it sends.

use crate::error::WireError;
use crate::hello::{Hello, Mode};
use crate::stats::{PingPong, Stream};
use crate::tcp::timed;
use bytes::Bytes;
use rdma::{
    next_completions, Access, Completion, CompletionKind, Listener, Provider, QpConfig, QueuePair, RegBuf,
    RemoteSegment,
};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// RDMA Writes in flight per queue pair.
pub const WRITE_DEPTH: u32 = 16;
const SEGMENT_LEN: usize = 16;
/// Receive size of the write-bandwidth connections (the segment and "ready" only).
const CONTROL_RECV: u32 = 64;

fn config(recv_size: u32, max_send: u32) -> QpConfig {
    QpConfig { recv_size, max_recv: 4, max_send, initiator_depth: 0, responder_resources: 0 }
}

/// Answer baseline connections from `listener` until the task is dropped.
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
                tracing::debug!("RDMA wire baseline: refusing a connection: {e}");
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
            let result = match accepted.await {
                Ok(qp) => match hello.mode {
                    Mode::Stream => respond_write_target(&*qp, hello.size).await,
                    Mode::PingPong => respond_echo(&*qp).await,
                },
                Err(e) => Err(e.into()),
            };
            if let Err(e) = result {
                tracing::debug!("RDMA wire baseline connection ended: {e}");
            }
        });
    }
}

async fn respond_write_target(qp: &dyn QueuePair, size: u32) -> Result<(), WireError> {
    let mut out = Vec::new();
    recv_one(qp, &mut out).await?;
    let region = qp.register(RegBuf::Writable(vec![0u8; size as usize]), Access::LOCAL_WRITE | Access::REMOTE_WRITE)?;
    let seg = region.segment(0, size).ok_or_else(|| WireError::Protocol("segment out of the region".into()))?;
    let mut msg = [0u8; SEGMENT_LEN];
    msg[..4].copy_from_slice(&seg.handle.to_be_bytes());
    msg[4..12].copy_from_slice(&seg.offset.to_be_bytes());
    msg[12..].copy_from_slice(&seg.length.to_be_bytes());
    qp.post_send(1, &[&msg])?;
    // The region stays registered until the client leaves.
    loop {
        out.clear();
        if next_completions(qp, &mut out).await.is_err() {
            region.invalidate();
            return Ok(());
        }
    }
}

async fn respond_echo(qp: &dyn QueuePair) -> Result<(), WireError> {
    let mut out = Vec::new();
    loop {
        let msg = match recv_one(qp, &mut out).await {
            Ok(m) => m,
            Err(WireError::Rdma(rdma::RdmaError::Disconnected)) => return Ok(()),
            Err(e) => return Err(e),
        };
        qp.post_recvs(1)?;
        qp.post_send(1, &[&msg])?;
    }
}

/// Wait for the next received message, passing over Send completions.
async fn recv_one(qp: &dyn QueuePair, out: &mut Vec<Completion>) -> Result<Bytes, WireError> {
    loop {
        if let Some(i) = out.iter().position(|c| !matches!(c.result, Ok(CompletionKind::Send))) {
            let c = out.remove(i);
            return match c.result {
                Ok(CompletionKind::Recv(bytes)) => Ok(bytes),
                Ok(other) => Err(WireError::Protocol(format!("unexpected completion {other:?}"))),
                Err(e) => Err(WireError::WorkRequest(e)),
            };
        }
        out.clear();
        next_completions(qp, out).await?;
    }
}

/// RDMA Write bandwidth to the responder at `addr` over `qps` queue pairs for `duration`.
pub async fn rdma_write_bandwidth(
    provider: &dyn Provider,
    addr: SocketAddr,
    qps: u32,
    duration: Duration,
) -> Result<Stream, WireError> {
    let size = 1u32 << 20;
    let start = Instant::now();
    let deadline = start + duration;
    let runs = (0..qps.max(1)).map(|_| one_writer(provider, addr, size, deadline));
    let mut bytes = 0;
    for r in futures_util::future::join_all(runs).await {
        bytes += r?;
    }
    Ok(Stream { bytes, seconds: start.elapsed().as_secs_f64() })
}

async fn one_writer(provider: &dyn Provider, addr: SocketAddr, size: u32, deadline: Instant) -> Result<u64, WireError> {
    let hello = Hello { mode: Mode::Stream, size }.encode();
    let qp = timed(provider.connect(addr, config(CONTROL_RECV, WRITE_DEPTH + 4), &hello)).await??;
    let result = write_until(&*qp, size, deadline).await;
    qp.disconnect();
    result
}

async fn write_until(qp: &dyn QueuePair, size: u32, deadline: Instant) -> Result<u64, WireError> {
    let mut out = Vec::new();
    qp.post_recvs(1)?;
    qp.post_send(0, &[b"ready"])?;
    let seg = timed(recv_one(qp, &mut out)).await??;
    if seg.len() < SEGMENT_LEN {
        return Err(WireError::Protocol(format!("a {}-byte segment message", seg.len())));
    }
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let mut offset = [0u8; 8];
    offset.copy_from_slice(&seg[4..12]);
    let remote =
        RemoteSegment { handle: be32(&seg[..4]), offset: u64::from_be_bytes(offset), length: be32(&seg[12..]) };
    if remote.length != size {
        return Err(WireError::Protocol(format!("the responder offered {} bytes, not {size}", remote.length)));
    }
    let local = qp.register(RegBuf::ReadOnly(Bytes::from(vec![0x5a_u8; size as usize])), Access::NONE)?;
    let mut in_flight = 0;
    for _ in 0..WRITE_DEPTH {
        qp.post_write(2, &local, 0, remote)?;
        in_flight += 1;
    }
    let mut bytes = 0u64;
    while in_flight > 0 {
        for c in out.drain(..) {
            match c.result {
                Ok(CompletionKind::Write) => {
                    in_flight -= 1;
                    bytes += u64::from(size);
                    if Instant::now() < deadline {
                        qp.post_write(2, &local, 0, remote)?;
                        in_flight += 1;
                    }
                }
                Ok(_) => {}
                Err(e) => return Err(WireError::WorkRequest(e)),
            }
        }
        if in_flight > 0 {
            timed(next_completions(qp, &mut out)).await??;
        }
    }
    Ok(bytes)
}

/// Ping-pong `size`-byte Sends with the responder at `addr` for `duration`.
pub async fn rdma_ping_pong(
    provider: &dyn Provider,
    addr: SocketAddr,
    size: u32,
    duration: Duration,
) -> Result<PingPong, WireError> {
    let hello = Hello { mode: Mode::PingPong, size };
    Hello::decode(&hello.encode())?;
    let qp = timed(provider.connect(addr, config(size.max(CONTROL_RECV), 4), &hello.encode())).await??;
    let result = ping_until(&*qp, size, Instant::now() + duration).await;
    qp.disconnect();
    result
}

async fn ping_until(qp: &dyn QueuePair, size: u32, deadline: Instant) -> Result<PingPong, WireError> {
    let msg = vec![0xa5_u8; size as usize];
    let mut out = Vec::new();
    let mut samples = Vec::new();
    qp.post_recvs(1)?;
    while Instant::now() < deadline {
        let t = Instant::now();
        qp.post_send(0, &[&msg])?;
        let back = timed(recv_one(qp, &mut out)).await??;
        samples.push(t.elapsed().as_nanos() as u64);
        if back[..] != msg[..] {
            return Err(WireError::Protocol("the echo differs from the message sent".into()));
        }
        qp.post_recvs(1)?;
    }
    Ok(PingPong::from_samples(samples))
}
