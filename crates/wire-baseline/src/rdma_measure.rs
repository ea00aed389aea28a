//! The RDMA measurers, over any provider, against [`crate::serve_rdma`] (the exchanges are described
//! there and in `control.rs`).
//!
//! Write bandwidth sets every queue pair up first (connect, "ready", the responder's segment), then
//! starts the clock, keeps [`WRITE_DEPTH`] RDMA Writes of [`WRITE_SIZE`] in flight on each until the
//! duration is over and stops it when the last Write has completed: bytes are those of Writes whose
//! completion says placed. "done" and the disconnects come after the clock.

use crate::control::{self, DONE, READY};
use crate::error::WireError;
use crate::hello::{Hello, Mode};
use crate::rdma_serve::{config, recv_one, CONTROL_RECV};
use crate::stats::{PingPong, Stream};
use crate::tcp::timed;
use bytes::Bytes;
use rdma::{next_completions, Access, Completion, CompletionKind, MemoryRegion, Provider, QueuePair, RegBuf};
use rdma::{RemoteSegment, WrId};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// RDMA Writes in flight per queue pair.
pub const WRITE_DEPTH: u32 = 16;
/// Bytes of each RDMA Write (and of the responder's buffer).
pub const WRITE_SIZE: u32 = 1 << 20;

const WRITE: WrId = 2;

/// RDMA Write bandwidth to the responder at `addr` over `qps` queue pairs (at least 1) for `duration`.
/// Each queue pair completes at least [`WRITE_DEPTH`] Writes.
pub async fn rdma_write_bandwidth(
    provider: &dyn Provider,
    addr: SocketAddr,
    qps: u32,
    duration: Duration,
) -> Result<Stream, WireError> {
    let opened = futures_util::future::join_all((0..qps.max(1)).map(|_| Writer::open(provider, addr))).await;
    let mut writers = opened.into_iter().collect::<Result<Vec<_>, _>>()?;
    let start = Instant::now();
    let deadline = start + duration;
    let written = futures_util::future::join_all(writers.iter_mut().map(|w| w.write_until(deadline))).await;
    let seconds = start.elapsed().as_secs_f64();
    let bytes = written.into_iter().sum::<Result<u64, _>>()?;
    let finished = futures_util::future::join_all(writers.iter_mut().map(Writer::finish)).await;
    finished.into_iter().collect::<Result<(), _>>()?;
    Ok(Stream { bytes, seconds })
}

/// One queue pair of the write bandwidth, set up. Dropping it disconnects.
#[derive(Debug)]
struct Writer {
    qp: Box<dyn QueuePair>,
    local: MemoryRegion,
    remote: RemoteSegment,
    out: Vec<Completion>,
}

impl Writer {
    async fn open(provider: &dyn Provider, addr: SocketAddr) -> Result<Writer, WireError> {
        let hello = Hello { mode: Mode::Stream, size: WRITE_SIZE }.encode();
        let qp = timed(provider.connect(addr, config(CONTROL_RECV, WRITE_DEPTH + 4), &hello)).await??;
        let mut out = Vec::new();
        qp.post_recvs(1)?;
        qp.post_send(0, &[READY])?;
        let remote = control::decode_segment(&timed(recv_one(&*qp, &mut out)).await??, WRITE_SIZE)?;
        let local = qp.register(RegBuf::ReadOnly(Bytes::from(vec![0x5a_u8; WRITE_SIZE as usize])), Access::NONE)?;
        Ok(Writer { qp, local, remote, out })
    }

    /// Writes until `deadline` and every Write has completed; the bytes placed.
    async fn write_until(&mut self, deadline: Instant) -> Result<u64, WireError> {
        let qp = &*self.qp;
        let mut in_flight = 0;
        for _ in 0..WRITE_DEPTH {
            qp.post_write(WRITE, &self.local, 0, self.remote)?;
            in_flight += 1;
        }
        let mut bytes = 0u64;
        while in_flight > 0 {
            timed(next_completions(qp, &mut self.out)).await??;
            for c in self.out.drain(..) {
                match c.result {
                    Ok(CompletionKind::Write) => {
                        in_flight -= 1;
                        bytes += u64::from(WRITE_SIZE);
                        if Instant::now() < deadline {
                            qp.post_write(WRITE, &self.local, 0, self.remote)?;
                            in_flight += 1;
                        }
                    }
                    Ok(CompletionKind::Recv(msg)) => {
                        return Err(WireError::Protocol(format!("a {}-byte message while writing", msg.len())))
                    }
                    Ok(_) => {}
                    Err(e) => return Err(WireError::WorkRequest(e)),
                }
            }
        }
        Ok(bytes)
    }

    /// "done", its answer, and the disconnect.
    async fn finish(&mut self) -> Result<(), WireError> {
        self.qp.post_recvs(1)?;
        self.qp.post_send(0, &[DONE])?;
        let answer = timed(recv_one(&*self.qp, &mut self.out)).await;
        self.qp.disconnect();
        control::expect(&answer??, DONE)
    }
}

/// Ping-pong `size`-byte Sends (1..=[`crate::MAX_PING`]) with the responder at `addr` for `duration`,
/// one outstanding; at least one round trip.
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
    loop {
        qp.post_recvs(1)?; // before the Send its echo answers
        let t = Instant::now();
        qp.post_send(0, &[&msg])?;
        let back = timed(recv_one(qp, &mut out)).await??;
        samples.push(t.elapsed().as_nanos() as u64);
        if back[..] != msg[..] {
            return Err(WireError::Protocol("the echo differs from the message sent".into()));
        }
        if Instant::now() >= deadline {
            break;
        }
    }
    Ok(PingPong::from_samples(samples))
}
