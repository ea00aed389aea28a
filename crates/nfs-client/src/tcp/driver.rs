//! The TCP side of a connection slot ([`Slot`]): opening a connection (through the emulated
//! long-distance link when there is one), and serving it with a reader and a writer task until either
//! ends. Reconnection and the timer are the neutral [`crate::slot`] tasks.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::net::TcpStream;
use tokio::sync::{watch, Notify};

use super::connection::Connection;
use super::{reader, writer};
use crate::lanes::Counters;
use crate::retransmit::RetransmitPolicy;
use crate::slot::{stopped, End, Slot};

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

impl Slot for Connection {
    type Link = Socket;
    type OpenError = io::Error;
    const KIND: &'static str = "";

    fn remote(&self) -> SocketAddr {
        self.remote
    }

    fn index(&self) -> usize {
        self.index
    }

    fn policy(&self) -> RetransmitPolicy {
        self.shared.policy
    }

    fn counters(&self) -> &Counters {
        &self.counters
    }

    fn wake(&self) -> &Notify {
        &self.wake
    }

    fn has_waiting(&self) -> bool {
        self.has_queued()
    }

    async fn open(&self) -> io::Result<Socket> {
        open(self.remote, self.shared.policy.connect_timeout(), self.shared.link.as_ref()).await
    }

    async fn serve(self: &Arc<Self>, socket: Socket, shutdown: &mut watch::Receiver<bool>) -> End {
        serve(self, socket, shutdown).await
    }

    fn lost(&self) -> bool {
        self.disconnected()
    }

    fn check_timeouts(&self, now: Instant) {
        Connection::check_timeouts(self, now)
    }

    fn close(&self) {
        Connection::close(self)
    }
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
