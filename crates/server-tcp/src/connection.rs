//! One TCP connection: read records, execute calls, write replies, with backpressure.
//!
//! A single task owns the socket. Each wake-up reads what the socket has, cuts it into records
//! (RFC 5531 §11 record marking), admits calls while the connection is under its caps, and writes every
//! reply that is ready in one vectored write. Calls that never block run inline in the task (no task
//! spawn or channel hop per call); calls that may block go to the blocking pool and their replies are
//! written as they complete, in any order. While a cap is reached the socket is not read, so the
//! client's sends stall in TCP flow control instead of growing our buffers.

use std::io::{self, IoSlice};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use nfs_server::{ConnectionInfo, Reply};
use onc_rpc::RecordDecoder;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::{sleep_until, Instant};

use crate::limits::ConnectionLimits;
use crate::stats::{LocalTally, TransportStats};
use crate::write_queue::{WriteQueue, MAX_IOV};
use crate::{CallMode, RecordHandler};

/// Reads per wake-up before replies are written and other tasks get a turn.
const READS_PER_WAKE: usize = 4;

/// A call executing off the connection's task: its record (to recycle) and its reply.
type Done = (Vec<u8>, Option<Reply>);

/// Why a connection ended.
#[derive(Debug)]
enum End {
    /// The peer closed and everything owed to it was sent, or shutdown finished draining.
    Done,
    /// Shutdown's grace period ran out with work left.
    GraceExpired,
    /// A record-marking error: the stream can no longer be cut into records.
    Record(onc_rpc::RpcError),
    Io(io::Error),
}

enum Event {
    Readable(io::Result<()>),
    Writable(io::Result<()>),
    Completed(Result<Done, tokio::task::JoinError>),
    Shutdown,
    GraceExpired,
}

pub(crate) struct Connection<H: RecordHandler> {
    stream: TcpStream,
    info: ConnectionInfo,
    handler: Arc<H>,
    mode: CallMode,
    limits: ConnectionLimits,
    decoder: RecordDecoder,
    read_buf: Box<[u8]>,
    queue: WriteQueue,
    /// Calls executing off this task (Task and Blocking modes).
    pending: JoinSet<Done>,
    /// Record bytes of the calls in `pending`.
    pending_bytes: usize,
    /// Replies in the write queue.
    queued_replies: usize,
    eof: bool,
    stats: Arc<TransportStats>,
    tally: LocalTally,
}

impl<H: RecordHandler> Connection<H> {
    pub(crate) fn new(
        stream: TcpStream,
        info: ConnectionInfo,
        handler: Arc<H>,
        mode: CallMode,
        limits: ConnectionLimits,
        stats: Arc<TransportStats>,
    ) -> Self {
        Connection {
            stream,
            info,
            handler,
            mode,
            limits,
            decoder: RecordDecoder::new(limits.record_limits()),
            read_buf: vec![0; limits.read_buffer].into_boxed_slice(),
            queue: WriteQueue::default(),
            pending: JoinSet::new(),
            pending_bytes: 0,
            queued_replies: 0,
            eof: false,
            stats,
            tally: LocalTally::default(),
        }
    }

    /// Serves the connection until the peer leaves, an error, or shutdown; then closes it.
    pub(crate) async fn run(mut self, mut shutdown: watch::Receiver<bool>) {
        let peer = self.info.peer;
        let end = self.serve(&mut shutdown).await;
        self.tally.publish(&self.stats);
        let abandoned = self.pending.len() + self.queue.clear();
        match end {
            End::Done => tracing::debug!(%peer, "connection closed"),
            End::GraceExpired => tracing::info!(%peer, abandoned, "closing connection: shutdown grace period over"),
            End::Record(err) => {
                self.stats.record_errors.fetch_add(1, Relaxed);
                tracing::warn!(%peer, error = %err, "closing connection: bad RPC record marking");
            }
            End::Io(err) if peer_left(&err) => {
                tracing::debug!(%peer, error = %err, abandoned, "connection closed by the peer");
            }
            End::Io(err) => {
                self.stats.io_errors.fetch_add(1, Relaxed);
                tracing::info!(%peer, error = %err, abandoned, "closing connection: socket error");
            }
        }
    }

    async fn serve(&mut self, shutdown: &mut watch::Receiver<bool>) -> End {
        let mut closing = *shutdown.borrow();
        let mut deadline = Instant::now() + self.limits.shutdown_grace;
        let mut paused = false;
        loop {
            if !closing {
                self.admit();
            }
            if let Err(err) = self.flush() {
                return End::Io(err);
            }
            if !closing && self.decoder.ready_len() > 0 && self.has_room() {
                continue; // The flush made room for calls already read.
            }
            let idle = self.pending.is_empty() && self.queue.is_empty();
            if idle && (closing || (self.eof && self.decoder.ready_len() == 0)) {
                return End::Done;
            }
            let capped = self.decoder.ready_len() > 0 || !self.has_room();
            if capped && !paused {
                self.stats.read_pauses.fetch_add(1, Relaxed);
            }
            paused = capped;
            let can_read = !closing && !self.eof && !capped;
            let event = tokio::select! {
                done = self.pending.join_next(), if !self.pending.is_empty() => match done {
                    Some(done) => Event::Completed(done),
                    None => continue,
                },
                ready = self.stream.writable(), if !self.queue.is_empty() => Event::Writable(ready),
                ready = self.stream.readable(), if can_read => Event::Readable(ready),
                _ = shutdown.changed(), if !closing => Event::Shutdown,
                () = sleep_until(deadline), if closing => Event::GraceExpired,
            };
            match event {
                Event::Readable(ready) => {
                    if let Err(end) = ready.map_err(End::Io).and_then(|()| self.read_some()) {
                        return end;
                    }
                }
                Event::Writable(ready) => {
                    if let Err(err) = ready {
                        return End::Io(err);
                    }
                }
                Event::Completed(Ok(done)) => {
                    self.complete(done);
                    // Everything else finished by now goes out in the same vectored write.
                    while let Some(more) = self.pending.try_join_next() {
                        match more {
                            Ok(done) => self.complete(done),
                            Err(err) => self.lost(&err),
                        }
                    }
                }
                Event::Completed(Err(err)) => self.lost(&err),
                Event::Shutdown => {
                    closing = true;
                    deadline = Instant::now() + self.limits.shutdown_grace;
                }
                Event::GraceExpired => return End::GraceExpired,
            }
        }
    }

    fn in_flight_requests(&self) -> usize {
        self.pending.len() + self.queued_replies
    }

    fn in_flight_bytes(&self) -> usize {
        self.pending_bytes + self.queue.bytes()
    }

    /// Under both caps, or nothing in flight at all (so one oversized call still goes through).
    fn has_room(&self) -> bool {
        let requests = self.in_flight_requests();
        requests == 0
            || (requests < self.limits.max_in_flight_requests
                && self.in_flight_bytes() < self.limits.max_in_flight_bytes)
    }

    /// Reads what the socket holds (a few buffers at most) and admits the calls it completes.
    fn read_some(&mut self) -> Result<(), End> {
        for _ in 0..READS_PER_WAKE {
            match self.stream.try_read(&mut self.read_buf) {
                Ok(0) => {
                    self.eof = true;
                    if let Err(err) = self.decoder.finish() {
                        tracing::debug!(peer = %self.info.peer, error = %err, "peer closed inside a record");
                    }
                    return Ok(());
                }
                Ok(n) => {
                    self.tally.bytes_in += n as u64;
                    let data = self.read_buf.get(..n).unwrap_or_default();
                    self.decoder.push(data).map_err(End::Record)?;
                    self.admit();
                    if n < self.read_buf.len() || self.decoder.ready_len() > 0 {
                        // A short read drained the socket; ready records mean a cap was reached.
                        return Ok(());
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(End::Io(err)),
            }
        }
        Ok(())
    }

    /// Starts every complete call the caps allow.
    fn admit(&mut self) {
        while self.has_room() {
            let Some(record) = self.decoder.pop() else {
                return;
            };
            self.tally.calls += 1;
            match self.mode {
                CallMode::Inline => {
                    let reply = execute(&*self.handler, &record, &self.info);
                    self.decoder.recycle(record);
                    self.enqueue(reply);
                }
                CallMode::Task => {
                    self.pending_bytes += record.len();
                    let (handler, info) = (Arc::clone(&self.handler), self.info);
                    self.pending.spawn(async move {
                        let reply = execute(&*handler, &record, &info);
                        (record, reply)
                    });
                }
                CallMode::Blocking => {
                    self.pending_bytes += record.len();
                    let (handler, info) = (Arc::clone(&self.handler), self.info);
                    self.pending.spawn_blocking(move || {
                        let reply = execute(&*handler, &record, &info);
                        (record, reply)
                    });
                }
            }
            self.tally.observe(&self.stats, self.in_flight_requests(), self.in_flight_bytes());
        }
    }

    /// A call executed off this task has finished.
    fn complete(&mut self, (record, reply): Done) {
        self.pending_bytes -= record.len();
        self.decoder.recycle(record);
        self.enqueue(reply);
    }

    /// A call task was lost (only cancellation: handler panics are caught in `execute`). Its record's
    /// size is unknown, so the byte count is settled once nothing is pending.
    fn lost(&mut self, err: &tokio::task::JoinError) {
        tracing::error!(peer = %self.info.peer, error = %err, "RPC call task lost");
        if self.pending.is_empty() {
            self.pending_bytes = 0;
        }
    }

    fn enqueue(&mut self, reply: Option<Reply>) {
        let Some(reply) = reply else {
            return; // Not an answerable call: nothing is owed.
        };
        match self.queue.push(reply) {
            Ok(_) => self.queued_replies += 1,
            Err(too_large) => {
                tracing::error!(peer = %self.info.peer, len = too_large.len, "reply larger than one record fragment dropped");
            }
        }
    }

    /// Writes queued replies until the queue is empty or the socket is full.
    fn flush(&mut self) -> io::Result<()> {
        let mut result = Ok(());
        while !self.queue.is_empty() {
            let mut iov = [IoSlice::new(&[]); MAX_IOV];
            let used = self.queue.gather(&mut iov);
            match self.stream.try_write_vectored(iov.get(..used).unwrap_or_default()) {
                Ok(0) => {
                    result = Err(io::ErrorKind::WriteZero.into());
                    break;
                }
                Ok(n) => {
                    self.tally.bytes_out += n as u64;
                    let done = self.queue.consume(n);
                    self.queued_replies -= done;
                    self.tally.replies += done as u64;
                }
                Err(err) if err.kind() == io::ErrorKind::WouldBlock => break,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => {
                    result = Err(err);
                    break;
                }
            }
        }
        self.tally.publish(&self.stats);
        result
    }
}

/// A reset or a write to a closed peer: how clients usually leave, not a fault.
fn peer_left(err: &io::Error) -> bool {
    matches!(err.kind(), io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionAborted)
}

/// Runs one call; a panicking handler costs that call (no reply, the client retransmits), not the
/// connection or the server.
fn execute<H: RecordHandler>(handler: &H, record: &[u8], info: &ConnectionInfo) -> Option<Reply> {
    match std::panic::catch_unwind(AssertUnwindSafe(|| handler.handle(record, info))) {
        Ok(reply) => reply,
        Err(_) => {
            tracing::error!(peer = %info.peer, len = record.len(), "RPC handler panicked; call dropped");
            None
        }
    }
}
