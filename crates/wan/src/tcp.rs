//! A TCP connection through the emulated link, on either side: [`relay`] puts an in-process relay
//! between the application and the real socket.
//!
//! The application gets one end of a fresh loopback pair; two pumps move bytes between the other end and
//! the real socket. Outbound, each chunk the application wrote (up to 64 KiB) is read at once, given its
//! arrival time by [`Link::outbound`] (serialisation at the rate, propagation, jitter, loss) and written to
//! the real socket at that time; inbound the same with [`Link::inbound`] towards the application. A
//! [`Flow`] per pump keeps the connection's bytes in order.
//!
//! TCP's window bounds each direction: at most `tcp_window` bytes are unacknowledged, each chunk counting
//! from when it is read until its ACK is back (delivered, then one more propagation delay). While the
//! window is full the pump stops reading its source, so the writer stalls in the loopback socket's flow
//! control, throughput tops out at window / RTT, and the relay holds at most one window per direction.
//! End of stream travels the link too (a FIN is delivered one way later, then the write side is shut
//! down); an error on either socket closes both.

use std::collections::VecDeque;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinSet;

use crate::clock::sleep_until;
use crate::link::{Direction, Flow, Link};

/// Largest chunk a pump reads at once.
const CHUNK: usize = 64 << 10;
/// A read waits until the window has room for one segment (TCP's sender does not send slivers of a
/// closed window: silly window syndrome avoidance, RFC 9293 §3.8.6.2.1).
const MSS: usize = 1448;

/// Connects to `addr` with TCP_NODELAY, through a relay over `link` when one is given. Returns the
/// stream for the application and the real connection's local address (the relay's end is loopback).
pub async fn connect(addr: SocketAddr, link: Option<&Arc<Link>>) -> io::Result<(TcpStream, SocketAddr)> {
    let real = TcpStream::connect(addr).await?;
    real.set_nodelay(true)?;
    let local = real.local_addr()?;
    match link {
        Some(link) => Ok((relay(real, Arc::clone(link)).await?, local)),
        None => Ok((real, local)),
    }
}

/// Puts `real` behind the link: returns the application's end of a loopback pair whose other end is
/// pumped to and from `real` with the link's delays. The pumps run as tasks until both directions end.
pub async fn relay(real: TcpStream, link: Arc<Link>) -> io::Result<TcpStream> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
    let app = TcpStream::connect(listener.local_addr()?).await?;
    let expected = app.local_addr()?;
    // Anyone may connect to a loopback port: take only our own connection.
    let inner = loop {
        let (stream, peer) = listener.accept().await?;
        if peer == expected {
            break stream;
        }
    };
    drop(listener);
    for s in [&real, &inner, &app] {
        s.set_nodelay(true)?;
    }
    let (inner_read, inner_write) = inner.into_split();
    let (real_read, real_write) = real.into_split();
    let mut pumps = JoinSet::new();
    pumps.spawn(pump(inner_read, real_write, Arc::clone(&link), true));
    pumps.spawn(pump(real_read, inner_write, link, false));
    tokio::spawn(async move {
        while let Some(ended) = pumps.join_next().await {
            if !matches!(ended, Ok(Ok(()))) {
                // Dropping the other pump drops the last halves: both sockets close.
                pumps.abort_all();
            }
        }
    });
    Ok(app)
}

/// What a pump's reader hands its writer.
enum Segment {
    Data(Instant, Vec<u8>),
    Fin(Instant),
}

/// One direction: reads `from`, delivers to `to` at the link's arrival times, within the window.
async fn pump(from: OwnedReadHalf, to: OwnedWriteHalf, link: Arc<Link>, outbound: bool) -> io::Result<()> {
    let window_bytes = usize::try_from(link.spec.tcp_window).unwrap_or(usize::MAX).min(Semaphore::MAX_PERMITS);
    let window = Semaphore::new(window_bytes);
    // Unbounded as a channel, bounded in bytes: everything in it holds window permits.
    let (tx, rx) = mpsc::unbounded_channel();
    let direction = if outbound { &link.outbound } else { &link.inbound };
    tokio::try_join!(read(from, tx, &window, window_bytes, direction), deliver(rx, to, &window, direction))?;
    Ok(())
}

async fn read(
    mut from: OwnedReadHalf,
    tx: mpsc::UnboundedSender<Segment>,
    window: &Semaphore,
    window_bytes: usize,
    direction: &Direction,
) -> io::Result<()> {
    let mut flow = Flow::default();
    let mut buf = vec![0u8; CHUNK.min(window_bytes)];
    loop {
        // Room for a segment, then whatever else the window has, up to a chunk.
        let first = MSS.min(buf.len());
        window.acquire_many(first as u32).await.map_err(io::Error::other)?.forget();
        let extra = window.available_permits().min(buf.len() - first);
        if let Ok(permits) = window.try_acquire_many(extra as u32) {
            permits.forget();
        }
        let granted = first + extra;
        let n = from.read(&mut buf[..granted]).await?;
        let now = Instant::now();
        window.add_permits(granted - n);
        let segment = match n {
            0 => Segment::Fin(flow.arrival(direction, now, 0)),
            n => Segment::Data(flow.arrival(direction, now, n as u64), buf[..n].to_vec()),
        };
        let fin = matches!(segment, Segment::Fin(_));
        if tx.send(segment).is_err() || fin {
            return Ok(());
        }
    }
}

async fn deliver(
    mut rx: mpsc::UnboundedReceiver<Segment>,
    mut to: OwnedWriteHalf,
    window: &Semaphore,
    direction: &Direction,
) -> io::Result<()> {
    // Bytes delivered and not yet acknowledged: (when the ACK is back at the sender, bytes).
    let mut acks: VecDeque<(Instant, usize)> = VecDeque::new();
    let mut next: Option<Segment> = None;
    loop {
        while let Some(&(at, n)) = acks.front() {
            if at > Instant::now() {
                break;
            }
            window.add_permits(n);
            acks.pop_front();
        }
        let ack_due = acks.front().map(|&(at, _)| at);
        let segment = match next.take() {
            Some(segment) => segment,
            None => {
                tokio::select! {
                    received = rx.recv() => match received {
                        Some(segment) => segment,
                        None => return Ok(()), // the reader failed; it reports why
                    },
                    () = sleep_until(ack_due.unwrap_or_else(Instant::now)), if ack_due.is_some() => continue,
                }
            }
        };
        let due = match &segment {
            Segment::Data(at, _) | Segment::Fin(at) => *at,
        };
        if let Some(ack) = ack_due.filter(|&ack| ack < due) {
            // An earlier ACK comes back first and reopens the window.
            sleep_until(ack).await;
            next = Some(segment);
            continue;
        }
        sleep_until(due).await;
        match segment {
            Segment::Data(_, bytes) => {
                to.write_all(&bytes).await?;
                // The receiver's ACK takes the return path: one more propagation delay.
                acks.push_back((due.max(Instant::now()) + direction.one_way(), bytes.len()));
            }
            Segment::Fin(_) => {
                to.shutdown().await?;
                return Ok(());
            }
        }
    }
}
