//! The TCP baselines. Stream: the client writes 1 MiB buffers on N connections for the duration, then
//! half-closes; the responder reads and discards, and answers the byte count it received (u64), so the
//! figure is what arrived, not what was buffered. Ping-pong: messages of the hello's size echoed, one
//! outstanding, TCP_NODELAY on both ends.

use crate::error::WireError;
use crate::hello::{Hello, Mode, HELLO_LEN};
use crate::stats::{PingPong, Stream};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long a responder waits for a hello, and a measurer for answers beyond its duration.
const GRACE: Duration = Duration::from_secs(10);
const STREAM_WRITE: usize = 1 << 20;

/// Answer baseline connections on `listener` until the task is dropped.
pub async fn serve_tcp(listener: TcpListener) {
    loop {
        match listener.accept().await {
            Ok((conn, peer)) => {
                tokio::spawn(async move {
                    if let Err(e) = respond(conn).await {
                        tracing::debug!(%peer, "wire baseline connection ended: {e}");
                    }
                });
            }
            Err(e) => {
                tracing::warn!("wire baseline listener: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

async fn respond(mut conn: TcpStream) -> Result<(), WireError> {
    conn.set_nodelay(true)?;
    let mut hello = [0u8; HELLO_LEN];
    timed(conn.read_exact(&mut hello)).await??;
    let hello = Hello::decode(&hello)?;
    match hello.mode {
        Mode::Stream => {
            let mut buf = vec![0u8; STREAM_WRITE];
            let mut total = 0u64;
            loop {
                let n = conn.read(&mut buf).await?;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            conn.write_all(&total.to_be_bytes()).await?;
            conn.shutdown().await?;
        }
        Mode::PingPong => {
            let mut buf = vec![0u8; hello.size as usize];
            loop {
                match conn.read_exact(&mut buf).await {
                    Ok(_) => conn.write_all(&buf).await?,
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
    Ok(())
}

/// Stream to `addr` over `connections` connections for `duration`.
pub async fn tcp_stream(addr: SocketAddr, connections: u32, duration: Duration) -> Result<Stream, WireError> {
    let start = Instant::now();
    let deadline = start + duration;
    let streams = (0..connections.max(1)).map(|_| one_stream(addr, deadline));
    let counts = futures_util::future::join_all(streams).await;
    let mut bytes = 0;
    for c in counts {
        bytes += c?;
    }
    Ok(Stream { bytes, seconds: start.elapsed().as_secs_f64() })
}

async fn one_stream(addr: SocketAddr, deadline: Instant) -> Result<u64, WireError> {
    let mut conn = timed(TcpStream::connect(addr)).await??;
    conn.write_all(&Hello { mode: Mode::Stream, size: STREAM_WRITE as u32 }.encode()).await?;
    let buf = vec![0x5a_u8; STREAM_WRITE];
    while Instant::now() < deadline {
        conn.write_all(&buf).await?;
    }
    conn.shutdown().await?;
    let mut count = [0u8; 8];
    timed(conn.read_exact(&mut count)).await??;
    Ok(u64::from_be_bytes(count))
}

/// Ping-pong `size`-byte messages with `addr` for `duration`.
pub async fn tcp_ping_pong(addr: SocketAddr, size: u32, duration: Duration) -> Result<PingPong, WireError> {
    let hello = Hello { mode: Mode::PingPong, size };
    Hello::decode(&hello.encode())?;
    let mut conn = timed(TcpStream::connect(addr)).await??;
    conn.set_nodelay(true)?;
    conn.write_all(&hello.encode()).await?;
    let msg = vec![0xa5_u8; size as usize];
    let mut back = vec![0u8; size as usize];
    let mut samples = Vec::new();
    let deadline = Instant::now() + duration;
    while Instant::now() < deadline {
        let t = Instant::now();
        conn.write_all(&msg).await?;
        timed(conn.read_exact(&mut back)).await??;
        samples.push(t.elapsed().as_nanos() as u64);
        if back != msg {
            return Err(WireError::Protocol("the echo differs from the message sent".into()));
        }
    }
    Ok(PingPong::from_samples(samples))
}

/// `f` with the grace timeout.
pub(crate) async fn timed<F: std::future::Future>(f: F) -> Result<F::Output, WireError> {
    tokio::time::timeout(GRACE, f).await.map_err(|_| WireError::Timeout(GRACE.as_secs()))
}
