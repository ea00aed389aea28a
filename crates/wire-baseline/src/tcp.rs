//! The TCP baselines. Every connection opens with the client's 16-byte [`Hello`] (magic, version, mode,
//! message size); a responder closes a connection whose hello is wrong or late, and only that one.
//!
//! - Stream (iperf -P N): the client opens N connections, then starts the clock and writes 1 MiB
//!   buffers on each until the duration is over, then half-closes (shutdown write). The responder reads
//!   and discards, and at end of stream answers the byte count it received (u64, big-endian), so the
//!   figure is what arrived, not what was buffered; the clock stops when the last count is in.
//! - Ping-pong (netperf TCP_RR, qperf tcp_lat): messages of the hello's size echoed, one outstanding,
//!   TCP_NODELAY on both ends.
//!
//! With a [`wan::Link`] (the `_over` variants) every connection goes through that emulated long-distance
//! link ([`wan::tcp::relay`]), on whichever side has it: the responder of `nfsbench serve --wan`, or a
//! measurer.
//!
//! A responder waits at most [`GRACE`] for any read or write, so a peer that vanished without closing
//! frees its task; its memory is one buffer of at most 1 MiB per connection.

use crate::error::WireError;
use crate::hello::{Hello, Mode, HELLO_LEN};
use crate::stats::{PingPong, Stream};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use wan::Link;

/// How long a responder waits for a peer, and a measurer for connections and answers.
pub(crate) const GRACE: Duration = Duration::from_secs(10);
const STREAM_WRITE: usize = 1 << 20;

/// Answer baseline connections on `listener` until the task is dropped (aborted).
pub async fn serve_tcp(listener: TcpListener) {
    serve_tcp_over(listener, None).await;
}

/// [`serve_tcp`], every connection through `link` when one is given.
pub async fn serve_tcp_over(listener: TcpListener, link: Option<Arc<Link>>) {
    loop {
        match listener.accept().await {
            Ok((conn, peer)) => {
                let link = link.clone();
                tokio::spawn(async move {
                    if let Err(e) = respond(conn, link).await {
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

async fn respond(conn: TcpStream, link: Option<Arc<Link>>) -> Result<(), WireError> {
    conn.set_nodelay(true)?;
    let mut conn = match link {
        Some(link) => timed(wan::tcp::relay(conn, link)).await??,
        None => conn,
    };
    let mut hello = [0u8; HELLO_LEN];
    timed(conn.read_exact(&mut hello)).await??;
    let hello = Hello::decode(&hello)?;
    match hello.mode {
        Mode::Stream => {
            let mut buf = vec![0u8; STREAM_WRITE];
            let mut total = 0u64;
            loop {
                let n = timed(conn.read(&mut buf)).await??;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
            timed(conn.write_all(&total.to_be_bytes())).await??;
            timed(conn.shutdown()).await??;
        }
        Mode::PingPong => {
            let mut buf = vec![0u8; hello.size as usize];
            loop {
                match timed(conn.read_exact(&mut buf)).await? {
                    Ok(_) => timed(conn.write_all(&buf)).await??,
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
                    Err(e) => return Err(e.into()),
                }
            }
        }
    }
    Ok(())
}

/// Stream to the responder at `addr` over `connections` connections (at least 1) for `duration`.
/// Each connection writes at least one buffer; `bytes` is what the responders counted.
pub async fn tcp_stream(addr: SocketAddr, connections: u32, duration: Duration) -> Result<Stream, WireError> {
    tcp_stream_over(addr, connections, duration, None).await
}

/// [`tcp_stream`] through `link` when one is given.
pub async fn tcp_stream_over(
    addr: SocketAddr,
    connections: u32,
    duration: Duration,
    link: Option<&Arc<Link>>,
) -> Result<Stream, WireError> {
    let opened = futures_util::future::join_all((0..connections.max(1)).map(|_| open_stream(addr, link))).await;
    let conns = opened.into_iter().collect::<Result<Vec<_>, _>>()?;
    let start = Instant::now();
    let deadline = start + duration;
    let counts = futures_util::future::join_all(conns.into_iter().map(|c| one_stream(c, deadline))).await;
    let mut bytes = 0;
    for c in counts {
        bytes += c?;
    }
    Ok(Stream { bytes, seconds: start.elapsed().as_secs_f64() })
}

async fn open_stream(addr: SocketAddr, link: Option<&Arc<Link>>) -> Result<TcpStream, WireError> {
    let (mut conn, _) = timed(wan::tcp::connect(addr, link)).await??;
    timed(conn.write_all(&Hello { mode: Mode::Stream, size: STREAM_WRITE as u32 }.encode())).await??;
    Ok(conn)
}

/// Writes until `deadline` (once at least), half-closes, and returns the responder's count, which must
/// be what was written.
async fn one_stream(mut conn: TcpStream, deadline: Instant) -> Result<u64, WireError> {
    let buf = vec![0x5a_u8; STREAM_WRITE];
    let mut written = 0u64;
    loop {
        timed(conn.write_all(&buf)).await??;
        written += buf.len() as u64;
        if Instant::now() >= deadline {
            break;
        }
    }
    timed(conn.shutdown()).await??;
    let mut count = [0u8; 8];
    timed(conn.read_exact(&mut count)).await??;
    let count = u64::from_be_bytes(count);
    if count != written {
        return Err(WireError::Protocol(format!("the responder counted {count} bytes of the {written} sent")));
    }
    Ok(count)
}

/// Ping-pong `size`-byte messages (1..=[`crate::MAX_PING`]) with the responder at `addr` for
/// `duration`, one outstanding; at least one round trip.
pub async fn tcp_ping_pong(addr: SocketAddr, size: u32, duration: Duration) -> Result<PingPong, WireError> {
    tcp_ping_pong_over(addr, size, duration, None).await
}

/// [`tcp_ping_pong`] through `link` when one is given.
pub async fn tcp_ping_pong_over(
    addr: SocketAddr,
    size: u32,
    duration: Duration,
    link: Option<&Arc<Link>>,
) -> Result<PingPong, WireError> {
    let hello = Hello { mode: Mode::PingPong, size };
    Hello::decode(&hello.encode())?;
    let (mut conn, _) = timed(wan::tcp::connect(addr, link)).await??;
    timed(conn.write_all(&hello.encode())).await??;
    let msg = vec![0xa5_u8; size as usize];
    let mut back = vec![0u8; size as usize];
    let mut samples = Vec::new();
    let deadline = Instant::now() + duration;
    loop {
        let t = Instant::now();
        timed(conn.write_all(&msg)).await??;
        timed(conn.read_exact(&mut back)).await??;
        samples.push(t.elapsed().as_nanos() as u64);
        if back != msg {
            return Err(WireError::Protocol("the echo differs from the message sent".into()));
        }
        if Instant::now() >= deadline {
            break;
        }
    }
    Ok(PingPong::from_samples(samples))
}

/// `f`, or [`WireError::Timeout`] after [`GRACE`].
pub(crate) async fn timed<F: std::future::Future>(f: F) -> Result<F::Output, WireError> {
    tokio::time::timeout(GRACE, f).await.map_err(|_| WireError::Timeout(GRACE.as_secs()))
}
