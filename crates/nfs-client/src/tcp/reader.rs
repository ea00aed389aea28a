//! The reader task of a TCP connection: reads into one growing [`BytesMut`], splits records off it
//! without copying ([`RecordSplitter`]), and completes the calls they answer, one lock per read.
//! Matching is by xid only; decoding is left to the caller's [`Pending`](crate::Pending), so a
//! malformed reply fails only its own call. A broken record stream ends the connection.
//!
//! While many calls are outstanding the socket's receive low-water mark is raised ([`Coalescer`]), so
//! one wake-up reads several replies, and inside a large reply to the rest of it, so one wake-up reads
//! that; a wait on a raised mark is bounded by [`coalesce::BOUND`].

use std::fmt;
use std::io;
use std::sync::Arc;

use bytes::{BufMut, BytesMut};
use onc_rpc::RpcError;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::coalesce::{self, Coalescer};
use super::connection::Connection;
use super::framing::RecordSplitter;
use super::lowat::LowWater;

/// Room made for each read when less is free: many small replies per system call.
const READ_CHUNK: usize = 64 << 10;
/// Free space below which the buffer is grown (or replaced) before reading.
const MIN_SPARE: usize = 4 << 10;
/// After a large record, the next read takes at most this much: enough for the headers of the next
/// reply, so a buffer for the whole of it is made before its data arrives and nothing is copied but
/// these few bytes (a 1 MiB READ would otherwise copy its first 64 KiB once more).
const HEADER_PEEK: usize = 1024;

/// The next read: at most `limit` bytes, into at least `need` free bytes (else `grow` are reserved).
struct NextRead {
    limit: usize,
    need: usize,
    grow: usize,
}

/// `mark`: the socket's receive low-water mark; a wake-up brings at least that much, read at once.
fn next_read(buf: &BytesMut, wanted: usize, after_large: bool, mark: usize) -> NextRead {
    if buf.is_empty() && after_large {
        NextRead { limit: HEADER_PEEK, need: HEADER_PEEK, grow: HEADER_PEEK }
    } else if wanted > READ_CHUNK {
        // Inside a large fragment: exactly the rest of it, so the record ends its buffer.
        NextRead { limit: wanted, need: wanted, grow: wanted }
    } else {
        // Room for a wake-up's worth of replies (a mark raised for the rest of one large reply is
        // met by the branch above).
        let room = mark.min(coalesce::MAX_MARK).saturating_mul(2);
        NextRead { limit: usize::MAX, need: MIN_SPARE.max(room), grow: READ_CHUNK.max(room) }
    }
}

/// Why a connection's reader stopped.
#[derive(Debug)]
pub(crate) enum ReadEnd {
    /// The server closed the connection between records.
    Closed,
    Io(io::Error),
    /// The record marking is broken (or the stream ended inside a record).
    Broken(RpcError),
}

impl fmt::Display for ReadEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadEnd::Closed => f.write_str("closed by the server"),
            ReadEnd::Io(e) => write!(f, "read failed: {e}"),
            ReadEnd::Broken(e) => write!(f, "broken record stream: {e}"),
        }
    }
}

/// Reads replies until the connection ends.
pub(crate) async fn run<R: AsyncRead + LowWater + Unpin>(conn: Arc<Connection>, socket: R) -> ReadEnd {
    run_with(conn, socket, Coalescer::new(coalesce::enabled())).await
}

/// [`run`] with the given low-water mark policy.
pub(crate) async fn run_with<R: AsyncRead + LowWater + Unpin>(
    conn: Arc<Connection>,
    mut socket: R,
    mut coalescer: Coalescer,
) -> ReadEnd {
    let mut splitter = RecordSplitter::new(conn.shared.limits);
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let mut records = Vec::new();
    let mut done = Vec::new();
    let mut after_large = false;
    // Calls awaiting replies as of the last completion.
    let mut outstanding = 0;
    loop {
        let next = next_read(&buf, splitter.wanted(&buf), after_large, coalescer.mark());
        if buf.capacity() - buf.len() < next.need {
            buf.reserve(next.grow);
        }
        let room_len = next.limit.min(buf.capacity() - buf.len());
        let mut room = (&mut buf).limit(next.limit);
        let read = socket.read_buf(&mut room);
        let got = if coalescer.raised() {
            match tokio::time::timeout(coalesce::BOUND, read).await {
                Ok(got) => got,
                Err(_) => {
                    // Fewer replies came than the mark waits for: take what is there now.
                    let mark = coalescer.expired();
                    set_mark(&socket, &mut coalescer, mark);
                    continue;
                }
            }
        } else {
            read.await
        };
        // A read that filled the room asked for may have left more behind: the mark is only
        // reconsidered once the socket is drained, before the reader waits again.
        let drained = match got {
            Ok(0) if splitter.at_boundary(&buf) => return ReadEnd::Closed,
            Ok(0) => return ReadEnd::Broken(RpcError::TruncatedRecord { buffered: buf.len() }),
            Ok(n) => n < room_len,
            Err(e) => return ReadEnd::Io(e),
        };
        loop {
            match splitter.next(&mut buf) {
                Ok(Some(record)) => {
                    coalescer.observe(record.len());
                    records.push(record);
                }
                Ok(None) => break,
                Err(e) => {
                    conn.complete(&mut records, &mut done);
                    return ReadEnd::Broken(e);
                }
            }
        }
        let completed = records.last().map(|last| last.len());
        if let Some(len) = completed {
            after_large = len > READ_CHUNK;
            outstanding = conn.complete(&mut records, &mut done);
        }
        if drained {
            // Inside a fragment, the bytes of it still to come (0 at a boundary).
            let rest = if splitter.at_boundary(&buf) { 0 } else { splitter.wanted(&buf) };
            // The mark is reconsidered when replies completed, or inside a large one.
            if completed.is_some() || coalesce::inside_large_reply(rest) {
                if let Some(mark) = coalescer.after_read(outstanding, rest, || socket.recv_buffer().unwrap_or(0)) {
                    set_mark(&socket, &mut coalescer, mark);
                }
            }
        }
    }
}

/// Sets the socket's low-water mark; where that fails the reader stays at the default, uncoalesced.
fn set_mark<R: LowWater>(socket: &R, coalescer: &mut Coalescer, mark: usize) {
    if let Err(e) = socket.set_low_water(mark) {
        tracing::debug!("SO_RCVLOWAT {mark}: {e}; replies are not coalesced on this connection");
        coalescer.unset();
        let _ = socket.set_low_water(1);
    }
}
