//! The driver task of a connection slot: runs a reader and a writer task on the current TCP
//! connection, and when either ends, queues every outstanding call again and reconnects (lazily: only
//! once there is something to send), backing off while attempts fail. On shutdown it fails whatever
//! is outstanding with `Closed`.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpStream;
use tokio::sync::watch;

use super::connection::Connection;
use super::{reader, writer};

/// Delay before the second reconnection attempt in a row; doubles up to [`MAX_BACKOFF`]. (Linux waits
/// 3 s to 5 min; a benchmark wants its connections back sooner.)
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// Opens a TCP connection with TCP_NODELAY (calls are small and latency-bound), within `timeout`.
pub(crate) async fn connect(addr: SocketAddr, timeout: Duration) -> io::Result<TcpStream> {
    Ok(open(addr, timeout, None).await?.stream)
}

/// A connection of a slot: the stream its reader and writer use, and the real socket's local address
/// (with a long-distance link the stream is the application's end of the link's relay, on loopback).
#[derive(Debug)]
pub(crate) struct Socket {
    pub(crate) stream: TcpStream,
    pub(crate) local: SocketAddr,
}

/// Opens a TCP connection like [`connect`], through the emulated `link` when one is given.
pub(crate) async fn open(addr: SocketAddr, timeout: Duration, link: Option<&Arc<wan::Link>>) -> io::Result<Socket> {
    match tokio::time::timeout(timeout, wan::tcp::connect(addr, link)).await {
        Ok(opened) => opened.map(|(stream, local)| Socket { stream, local }),
        Err(_) => Err(io::Error::new(io::ErrorKind::TimedOut, format!("connect timed out after {timeout:?}"))),
    }
}

/// The pause before reconnection attempt `failures + 1` after `failures` failed in a row (none before
/// the first retry): [`FIRST_BACKOFF`] doubling up to [`MAX_BACKOFF`]. The RDMA transport shares it.
pub(crate) fn reconnect_delay(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    FIRST_BACKOFF.saturating_mul(1 << (failures - 1).min(10)).min(MAX_BACKOFF)
}

/// How long to wait for a connection to be accepted.
pub(crate) fn connect_timeout(timeo: Duration) -> Duration {
    timeo.clamp(Duration::from_secs(1), Duration::from_secs(60))
}

enum End {
    Shutdown,
    Lost(String),
}

async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    // An error means the transport is gone: stop as well.
    let _ = shutdown.wait_for(|&stop| stop).await;
}

/// Serves the slot, starting with the connection `first` made at mount time, until shutdown.
pub(crate) async fn run(conn: Arc<Connection>, first: Socket, mut shutdown: watch::Receiver<bool>) {
    let mut stream = Some(first);
    let mut failures = 0u32;
    loop {
        let socket = match stream.take() {
            Some(socket) => socket,
            None => match reconnect(&conn, &mut shutdown, &mut failures).await {
                Some(socket) => socket,
                None => break,
            },
        };
        match serve(&conn, socket, &mut shutdown).await {
            End::Shutdown => break,
            End::Lost(why) => {
                let answered = conn.disconnected();
                failures = if answered { 0 } else { failures + 1 };
                tracing::warn!(server = %conn.remote, connection = conn.index, "connection lost: {why}; reconnecting");
            }
        }
    }
    conn.close();
}

/// Runs reader and writer on `socket` until one of them ends or shutdown is asked for.
async fn serve(conn: &Arc<Connection>, socket: Socket, shutdown: &mut watch::Receiver<bool>) -> End {
    conn.connected(Some(socket.local));
    let (read_half, write_half) = socket.stream.into_split();
    let mut reader = tokio::spawn(reader::run(Arc::clone(conn), read_half));
    let mut writer = tokio::spawn(writer::run(Arc::clone(conn), write_half));
    let (end, reader_done, writer_done) = tokio::select! {
        ended = &mut reader => (End::Lost(match ended {
            Ok(why) => why.to_string(),
            Err(e) => format!("reader task failed: {e}"),
        }), true, false),
        ended = &mut writer => (End::Lost(match ended {
            Ok(Ok(())) => "writer stopped".to_string(),
            Ok(Err(e)) => format!("write failed: {e}"),
            Err(e) => format!("writer task failed: {e}"),
        }), false, true),
        _ = stopped(shutdown) => (End::Shutdown, false, false),
    };
    // Both gone before the calls they held are queued again (a finished JoinHandle is not polled again).
    if !reader_done {
        reader.abort();
        let _ = reader.await;
    }
    if !writer_done {
        writer.abort();
        let _ = writer.await;
    }
    end
}

/// A new connection once calls are waiting; `None` on shutdown.
async fn reconnect(conn: &Connection, shutdown: &mut watch::Receiver<bool>, failures: &mut u32) -> Option<Socket> {
    let timeout = connect_timeout(conn.shared.policy.timeo);
    loop {
        if !conn.has_queued() {
            tokio::select! {
                _ = conn.wake.notified() => {}
                _ = stopped(shutdown) => return None,
            }
            continue;
        }
        if *failures > 0 {
            let delay = reconnect_delay(*failures);
            tokio::select! {
                _ = tokio::time::sleep(delay) => {}
                _ = stopped(shutdown) => return None,
            }
        }
        let attempt = tokio::select! {
            attempt = open(conn.remote, timeout, conn.shared.link.as_ref()) => attempt,
            _ = stopped(shutdown) => return None,
        };
        match attempt {
            Ok(socket) => {
                conn.counters.reconnects.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Some(socket);
            }
            Err(e) => {
                *failures += 1;
                tracing::warn!(server = %conn.remote, connection = conn.index, "reconnect failed: {e}");
            }
        }
    }
}
