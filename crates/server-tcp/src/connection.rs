//! One TCP connection: read records, execute calls, write replies, with backpressure.
//!
//! A single task owns the socket. Each wake-up reads what the socket has, cuts it into records
//! (RFC 5531 §11 record marking), admits calls while the connection is under its caps, and writes every
//! reply that is ready in one vectored write. Calls that never block run inline in the task (no task
//! spawn or channel hop per call); calls that may block go to the blocking pool and their replies are
//! written as they complete, in any order. While a cap is reached the socket is not read, so the
//! client's sends stall in TCP flow control instead of growing our buffers.
//!
//! What the connection holds is also charged to the server-wide budget (one atomic counter in
//! [`TransportStats`]), settled before every await (other connections judge the budget while this one
//! waits) and only when it changed: no atomic operation per call on the inline path, where replies
//! usually leave in the same wake-up. Connections take turns of [`CALLS_PER_TURN`] calls or
//! [`BYTES_PER_TURN`] of replies, and one whose calls the RPC layer keeps refusing is slowed down. A periodic tick checks the
//! timeouts ([`Watchdog`]) from counters kept anyway, and the connection publishes its state for
//! eviction ([`Slot`]) only when that state changes.
//!
//! Records are told apart by their RPC message type ([`Direction`]): a CALL is admitted as above, a
//! REPLY (the client answering a backward call) goes to the handler's `handle_reply` at once and holds
//! nothing. Backward calls the service hands over ([`Backward`]) join the write queue as whole records.

use std::io::{self, IoSlice};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use nfs_server::{BackwardReply, ConnectionInfo, Reply};
use onc_rpc::RecordDecoder;
use server_core::{
    reply_contained, run_contained, CallMode, ConnectionLimits, Direction, RecordHandler, RefusalThrottle,
    MAX_BACKWARD_QUEUED,
};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::{sleep_until, Instant, Interval, MissedTickBehavior};

use crate::backward::Backward;
use crate::registry::{Registration, Slot, State};
use crate::stats::{LocalTally, TransportStats};
use crate::watchdog::{check_period, Expired, Observation, Watchdog};
use crate::write_queue::{WriteQueue, MAX_IOV};

/// Reads per wake-up before replies are written and other tasks get a turn.
const READS_PER_WAKE: usize = 4;

/// Calls a connection starts before it lets the other connections of its thread have a turn: deeper
/// than a good client's pipeline (fio's usual iodepths), so only a flood ever waits for its next turn.
const CALLS_PER_TURN: usize = 64;
/// Reply bytes a connection produces before it lets the others have a turn: one large READ. Peers
/// pipelining 1 MiB READs on many connections would otherwise cost a new client's MOUNT a wait of
/// 64 calls × 1 MiB on every one of them (measured: 0.7 s with 64 such connections).
const BYTES_PER_TURN: usize = 1 << 20;

/// Replies of calls executed inline that are written at once, before the rest of a long turn runs: the
/// client then works on them while this thread serves the others, instead of both taking turns at one
/// batch. Measured with 4 KiB random reads at iodepth 32 over loopback (2-core VM, 2026-11-28): every 16
/// replies gave 1.3-1.5x the IOPS and 10-20% less CPU per I/O on both sides than one write per turn;
/// every 8 cost more writes than it saved.
const FLUSH_EVERY: usize = 16;

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
    /// Closed to make room for a new connection at `max_connections`.
    Evicted,
    /// A timeout ran out.
    Expired(Expired),
}

enum Event {
    Readable(io::Result<()>),
    Writable(io::Result<()>),
    Completed(Result<Done, tokio::task::JoinError>),
    /// The service handed over a backward call.
    Backward(Vec<u8>),
    Shutdown,
    GraceExpired,
    Evicted,
    Tick,
}

/// Timer period when no timeout is set (the tick is then never awaited).
const NO_TICK: std::time::Duration = std::time::Duration::from_secs(3600);

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
    /// Calls started, and reply bytes queued, since this connection last gave the other connections a
    /// turn.
    turn_calls: usize,
    turn_bytes: usize,
    /// Refused calls, and the pause they earn ([`RefusalThrottle`]).
    refusals: RefusalThrottle,
    stats: Arc<TransportStats>,
    tally: LocalTally,
    /// Bytes charged to the server-wide budget, and the highest server-wide total this connection saw.
    charged: usize,
    seen_server_peak: usize,
    /// The connection's entry in the server's table (released on drop), and whether its eviction
    /// signal is still to be awaited.
    registration: Registration,
    evictable_signal: bool,
    /// The state last published in the table's slot, and whether a call was ever completed.
    published: State,
    served: bool,
    /// Timeouts: the periodic check, and the counters it compares (all since the connection opened).
    tick: Interval,
    ticking: bool,
    watchdog: Watchdog,
    bytes_read: u64,
    bytes_written: u64,
    records_admitted: u64,
    /// Reading paused for a cap since the last tick.
    paused_since_tick: bool,
    /// Backward calls handed over by the service, when the connection is in a backchannel.
    backward: Option<Backward>,
}

impl<H: RecordHandler> Connection<H> {
    pub(crate) fn new(
        stream: TcpStream,
        info: ConnectionInfo,
        handler: Arc<H>,
        mode: CallMode,
        limits: ConnectionLimits,
        stats: Arc<TransportStats>,
        registration: Registration,
    ) -> Self {
        let period = check_period(&limits);
        let mut tick = tokio::time::interval_at(Instant::now() + period.unwrap_or(NO_TICK), period.unwrap_or(NO_TICK));
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let watchdog = Watchdog::new(
            limits.idle_timeout,
            limits.partial_record_timeout,
            limits.write_stall_timeout,
            period.unwrap_or(NO_TICK),
        );
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
            turn_calls: 0,
            turn_bytes: 0,
            refusals: RefusalThrottle::new(std::time::Instant::now()),
            stats,
            tally: LocalTally::default(),
            charged: 0,
            seen_server_peak: 0,
            registration,
            evictable_signal: true,
            published: State::Idle,
            served: false,
            tick,
            ticking: period.is_some(),
            watchdog,
            bytes_read: 0,
            bytes_written: 0,
            records_admitted: 0,
            paused_since_tick: false,
            backward: None,
        }
    }

    /// The connection carries the backward calls handed over through `backward`, if any.
    pub(crate) fn carrying(mut self, backward: Option<Backward>) -> Self {
        self.backward = backward;
        self
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
            End::Evicted => {
                self.stats.evicted.fetch_add(1, Relaxed);
                tracing::info!(%peer, abandoned, "closing connection: evicted to make room for a new one");
            }
            End::Expired(Expired::Idle) => {
                self.stats.idle_timeouts.fetch_add(1, Relaxed);
                let after = self.limits.idle_timeout;
                tracing::debug!(%peer, ?after, "closing connection: idle");
            }
            End::Expired(Expired::PartialRecord) => {
                self.stats.partial_record_timeouts.fetch_add(1, Relaxed);
                let (after, buffered) = (self.limits.partial_record_timeout, self.decoder.partial_len());
                tracing::info!(%peer, ?after, buffered, "closing connection: a record was begun and not completed in time");
            }
            End::Expired(Expired::WriteStall) => {
                self.stats.write_stall_timeouts.fetch_add(1, Relaxed);
                let after = self.limits.write_stall_timeout;
                tracing::info!(%peer, ?after, abandoned, "closing connection: the peer takes none of its replies");
            }
        }
    }

    async fn serve(&mut self, shutdown: &mut watch::Receiver<bool>) -> End {
        let mut closing = *shutdown.borrow();
        let mut deadline = Instant::now() + self.limits.shutdown_grace;
        // One wait for shutdown across turns, not a waiter registered anew for every turn.
        let shutdown = shutdown.changed();
        tokio::pin!(shutdown);
        let mut paused = false;
        loop {
            // Connections share a network thread: one that ran its turn of calls lets the others run
            // theirs (a peer pipelining thousands of cheap calls would otherwise answer all of them
            // before a good client's one). And a socket that is always readable never makes
            // `readable()` wait, while Tokio's readiness futures take nothing from the task's budget:
            // without the budget a flooding peer keeps a one-thread runtime from accepting anyone.
            // Every await below lets other connections run and judge the server-wide budget: what this
            // one holds must be counted there first.
            self.settle();
            self.throttle_refusals().await;
            if self.turn_is_over() {
                self.turn_calls = 0;
                self.turn_bytes = 0;
                tokio::task::yield_now().await;
            } else {
                tokio::task::coop::consume_budget().await;
            }
            if !closing {
                self.admit();
            }
            if let Err(err) = self.flush() {
                return End::Io(err);
            }
            if !closing && self.decoder.ready_len() > 0 && self.may_admit_next() {
                continue; // The flush made room for calls already read.
            }
            let idle = self.pending.is_empty() && self.queue.is_empty();
            if idle && (closing || (self.eof && self.decoder.ready_len() == 0)) {
                return End::Done;
            }
            let capped = self.decoder.ready_len() > 0 || !self.may_read();
            if capped && !paused {
                self.stats.read_pauses.fetch_add(1, Relaxed);
            }
            paused = capped;
            self.paused_since_tick |= capped || self.eof;
            self.settle();
            self.publish_state(idle);
            let can_read = !closing && !self.eof && !capped;
            // Backward calls wait in their bounded channel while the write queue holds its share.
            let takes_calls = !closing && self.backward.is_some() && self.queue.calls() < MAX_BACKWARD_QUEUED;
            let event = tokio::select! {
                done = self.pending.join_next(), if !self.pending.is_empty() => match done {
                    Some(done) => Event::Completed(done),
                    None => continue,
                },
                ready = self.stream.writable(), if !self.queue.is_empty() => Event::Writable(ready),
                ready = self.stream.readable(), if can_read => Event::Readable(ready),
                record = Backward::next(&mut self.backward), if takes_calls => Event::Backward(record),
                _ = &mut shutdown, if !closing => Event::Shutdown,
                () = sleep_until(deadline), if closing => Event::GraceExpired,
                signal = &mut self.registration.evicted, if self.evictable_signal && !closing => match signal {
                    Ok(()) => Event::Evicted,
                    Err(_) => {
                        self.evictable_signal = false;
                        continue;
                    }
                },
                _ = self.tick.tick(), if self.ticking && !closing => Event::Tick,
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
                Event::Backward(record) => self.queue_backward(record),
                Event::Shutdown => {
                    closing = true;
                    deadline = Instant::now() + self.limits.shutdown_grace;
                }
                Event::GraceExpired => return End::GraceExpired,
                Event::Evicted => return End::Evicted,
                Event::Tick => {
                    if let Some(expired) = self.on_tick(capped) {
                        return End::Expired(expired);
                    }
                }
            }
        }
    }

    /// This connection has had its share of the thread for now ([`CALLS_PER_TURN`], [`BYTES_PER_TURN`]).
    fn turn_is_over(&self) -> bool {
        self.turn_calls >= CALLS_PER_TURN || self.turn_bytes >= BYTES_PER_TURN
    }

    fn in_flight_requests(&self) -> usize {
        self.pending.len() + self.queued_replies
    }

    fn in_flight_bytes(&self) -> usize {
        self.pending_bytes + self.queue.bytes()
    }

    /// Under both caps and the server-wide budget, or nothing in flight at all (so one oversized call
    /// still goes through, and every connection progresses while the budget is spent).
    fn has_room(&self) -> bool {
        let requests = self.in_flight_requests();
        requests == 0 || (self.under_caps(requests) && self.server_has_room())
    }

    fn under_caps(&self, requests: usize) -> bool {
        requests < self.limits.max_in_flight_requests && self.in_flight_bytes() < self.limits.max_in_flight_bytes
    }

    /// The next call may start: [`has_room`](Self::has_room), or, with the server-wide budget spent, its
    /// reply is known to fit what the connection may hold anyway: one record, the allowance every
    /// connection has when nothing of it is in flight. A client of small calls keeps its pipeline beside
    /// peers that hold the budget, and the bound stays the budget plus one record per connection.
    fn may_admit_next(&self) -> bool {
        if self.has_room() {
            return true;
        }
        let Some(record) = self.decoder.peek() else { return false };
        self.under_caps(self.in_flight_requests())
            && self.handler.reply_bound(record).is_some_and(|bound| self.charge() + bound <= self.limits.max_record)
    }

    /// Reading more may let calls start: under the caps, within the budget or holding less than the one
    /// record a connection may always hold (the calls read may then be small enough, see
    /// [`may_admit_next`](Self::may_admit_next)).
    fn may_read(&self) -> bool {
        self.has_room() || (self.under_caps(self.in_flight_requests()) && self.charge() < self.limits.max_record)
    }

    /// What this connection holds against the server-wide budget: replies waiting, the record being
    /// assembled, and `max_record` per call executing off this task (its reply's size is unknown until
    /// it finishes, and may be as large as a record: a READ's).
    fn charge(&self) -> usize {
        self.pending.len() * self.limits.max_record + self.queue.bytes() + self.decoder.partial_len()
    }

    /// The server-wide total, this connection's changes since it last settled included, is under budget.
    fn server_has_room(&self) -> bool {
        let total = self.stats.server_in_flight_bytes.load(Relaxed);
        let unsettled = self.charge().saturating_sub(self.charged);
        total.saturating_add(unsettled) < self.limits.max_server_in_flight_bytes
    }

    /// Brings this connection's share of the server-wide counter up to date: one atomic add or
    /// subtract when it changed, none otherwise (the usual case once replies have left).
    fn settle(&mut self) {
        let now = self.charge();
        let counter = &self.stats.server_in_flight_bytes;
        if now > self.charged {
            let total = counter.fetch_add(now - self.charged, Relaxed) + (now - self.charged);
            if total > self.seen_server_peak {
                self.seen_server_peak = self.stats.peak_server_in_flight_bytes.fetch_max(total, Relaxed).max(total);
            }
        } else if now < self.charged {
            counter.fetch_sub(self.charged - now, Relaxed);
        }
        self.charged = now;
    }

    /// Publishes the connection's state in its slot when it changed (for eviction at the cap).
    fn publish_state(&mut self, nothing_in_flight: bool) {
        let state = if !nothing_in_flight || self.decoder.ready_len() > 0 {
            State::Busy
        } else if self.decoder.is_at_record_boundary() {
            State::Idle
        } else {
            State::Partial
        };
        if state != self.published {
            self.published = state;
            self.slot().set_state(state);
        }
    }

    fn slot(&self) -> &Slot {
        &self.registration.slot
    }

    /// The periodic check: closes the connection when a timeout ran out, publishes how long it has
    /// been quiet, and drops the decoder's buffers once it is idle (a recycled record buffer can be
    /// `max_record` large).
    fn on_tick(&mut self, capped: bool) -> Option<Expired> {
        let nothing_in_flight = self.pending.is_empty() && self.queue.is_empty() && self.decoder.ready_len() == 0;
        let between_records = self.decoder.is_at_record_boundary();
        let observation = Observation {
            idle: nothing_in_flight && between_records,
            partial: !between_records,
            paused: std::mem::take(&mut self.paused_since_tick) || capped || self.eof,
            owed: !self.queue.is_empty(),
            bytes_in: self.bytes_read,
            bytes_out: self.bytes_written,
            records: self.records_admitted + self.decoder.ready_len() as u64,
        };
        let expired = self.watchdog.tick(observation);
        self.slot().set_quiet_ticks(self.watchdog.quiet_ticks());
        if self.watchdog.idle_ticks() == 1 {
            self.decoder = RecordDecoder::new(self.limits.record_limits());
        }
        expired
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
                    self.bytes_read += n as u64;
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
        while self.may_admit_next() && !self.turn_is_over() {
            let Some(record) = self.decoder.pop() else {
                return;
            };
            self.turn_calls += 1;
            self.records_admitted += 1;
            if !self.served {
                self.served = true;
                self.slot().set_served();
            }
            if Direction::of(&record) == Direction::Reply {
                self.take_reply(record);
                continue;
            }
            self.tally.calls += 1;
            match self.mode {
                CallMode::Inline => {
                    let reply = run_contained(&*self.handler, &record, &self.info);
                    self.decoder.recycle(record);
                    self.enqueue(reply);
                }
                CallMode::Task => {
                    self.pending_bytes += record.len();
                    let (handler, info) = (Arc::clone(&self.handler), self.info);
                    self.pending.spawn(async move {
                        let reply = run_contained(&*handler, &record, &info);
                        (record, reply)
                    });
                }
                CallMode::Blocking => {
                    self.pending_bytes += record.len();
                    let (handler, info) = (Arc::clone(&self.handler), self.info);
                    self.pending.spawn_blocking(move || {
                        let reply = run_contained(&*handler, &record, &info);
                        (record, reply)
                    });
                }
            }
            self.tally.observe(&self.stats, self.in_flight_requests(), self.in_flight_bytes());
            if self.queued_replies >= FLUSH_EVERY {
                // An error is the connection's end; the flush after the turn reports it.
                let _ = self.flush();
            }
        }
    }

    /// The client's reply to a backward call: handed to the handler here and now, nothing owed back. A
    /// peer that keeps sending replies nobody waits for is throttled like one whose calls are refused.
    fn take_reply(&mut self, record: Vec<u8>) {
        self.stats.backward_replies.fetch_add(1, Relaxed);
        if reply_contained(&*self.handler, &record, &self.info) == BackwardReply::Unknown {
            self.stats.unmatched_replies.fetch_add(1, Relaxed);
            self.refusals.refused();
            tracing::debug!(peer = %self.info.peer, len = record.len(), "reply matching no backward call dropped");
        }
        self.decoder.recycle(record);
    }

    /// Queues a backward call the service handed over, and the others already waiting, while the write
    /// queue holds fewer than its share.
    fn queue_backward(&mut self, record: Vec<u8>) {
        let mut next = Some(record);
        while let Some(record) = next.take() {
            if let Err(too_large) = self.queue.push_call(record) {
                tracing::error!(peer = %self.info.peer, len = too_large.len, "backward call larger than one record fragment dropped");
            }
            if self.queue.calls() < MAX_BACKWARD_QUEUED {
                next = self.backward.as_mut().and_then(Backward::try_next);
            }
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

    /// A peer whose calls keep being refused waits before its next turn, its sends stalled in TCP flow
    /// control meanwhile ([`RefusalThrottle`]: past 250 in a second, one turn per 50 ms).
    async fn throttle_refusals(&mut self) {
        let Some(pause) = self.refusals.pause(std::time::Instant::now) else { return };
        self.stats.refusal_throttles.fetch_add(1, Relaxed);
        tracing::info!(peer = %self.info.peer, "throttling a connection whose calls are refused");
        tokio::time::sleep(pause).await;
    }

    fn enqueue(&mut self, reply: Option<Reply>) {
        let Some(reply) = reply else {
            return; // Not an answerable call: nothing is owed.
        };
        self.refusals.observe(&reply);
        self.turn_bytes += reply.len();
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
                    self.bytes_written += n as u64;
                    let done = self.queue.consume(n);
                    self.queued_replies -= done.replies;
                    self.tally.replies += done.replies as u64;
                    if done.calls > 0 {
                        self.stats.backward_calls.fetch_add(done.calls as u64, Relaxed);
                    }
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

impl<H: RecordHandler> Drop for Connection<H> {
    /// Gives back the connection's share of the server-wide budget, however it ended.
    fn drop(&mut self) {
        if self.charged > 0 {
            self.stats.server_in_flight_bytes.fetch_sub(self.charged, Relaxed);
        }
    }
}

/// A reset or a write to a closed peer: how clients usually leave, not a fault.
fn peer_left(err: &io::Error) -> bool {
    matches!(err.kind(), io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe | io::ErrorKind::ConnectionAborted)
}
