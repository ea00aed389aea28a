//! The reader task of a TCP connection: reads into one growing [`BytesMut`], splits records off it
//! without copying ([`RecordSplitter`]), and completes the calls they answer, one lock per read.
//! Matching is by xid only; decoding is left to the caller's [`Pending`](crate::Pending), so a
//! malformed reply fails only its own call. A broken record stream ends the connection.

use std::fmt;
use std::io;
use std::sync::Arc;

use bytes::{BufMut, BytesMut};
use onc_rpc::RpcError;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::connection::Connection;
use super::framing::RecordSplitter;

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

fn next_read(buf: &BytesMut, wanted: usize, after_large: bool) -> NextRead {
    if buf.is_empty() && after_large {
        NextRead { limit: HEADER_PEEK, need: HEADER_PEEK, grow: HEADER_PEEK }
    } else if wanted > READ_CHUNK {
        // Inside a large fragment: exactly the rest of it, so the record ends its buffer.
        NextRead { limit: wanted, need: wanted, grow: wanted }
    } else {
        NextRead { limit: usize::MAX, need: MIN_SPARE, grow: READ_CHUNK }
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
pub(crate) async fn run<R: AsyncRead + Unpin>(conn: Arc<Connection>, mut socket: R) -> ReadEnd {
    let mut splitter = RecordSplitter::new(conn.shared.limits);
    let mut buf = BytesMut::with_capacity(READ_CHUNK);
    let mut records = Vec::new();
    let mut done = Vec::new();
    let mut after_large = false;
    loop {
        let next = next_read(&buf, splitter.wanted(&buf), after_large);
        if buf.capacity() - buf.len() < next.need {
            buf.reserve(next.grow);
        }
        match socket.read_buf(&mut (&mut buf).limit(next.limit)).await {
            Ok(0) if splitter.at_boundary(&buf) => return ReadEnd::Closed,
            Ok(0) => return ReadEnd::Broken(RpcError::TruncatedRecord { buffered: buf.len() }),
            Ok(_) => {}
            Err(e) => return ReadEnd::Io(e),
        }
        loop {
            match splitter.next(&mut buf) {
                Ok(Some(record)) => records.push(record),
                Ok(None) => break,
                Err(e) => {
                    conn.complete(&mut records, &mut done);
                    return ReadEnd::Broken(e);
                }
            }
        }
        if let Some(last) = records.last() {
            after_large = last.len() > READ_CHUNK;
            conn.complete(&mut records, &mut done);
        }
    }
}
