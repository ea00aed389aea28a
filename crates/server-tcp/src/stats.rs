//! Transport counters: connections, records, bytes, and how close connections came to their caps.
//! Connections add to these once per read or write batch, not per call.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

/// Counters shared by every connection of a [`TcpServer`](crate::TcpServer).
#[derive(Debug, Default)]
pub struct TransportStats {
    pub(crate) accepted: AtomicU64,
    pub(crate) refused: AtomicU64,
    pub(crate) evicted: AtomicU64,
    pub(crate) idle_timeouts: AtomicU64,
    pub(crate) partial_record_timeouts: AtomicU64,
    pub(crate) write_stall_timeouts: AtomicU64,
    pub(crate) open: AtomicUsize,
    pub(crate) record_errors: AtomicU64,
    pub(crate) io_errors: AtomicU64,
    pub(crate) calls: AtomicU64,
    pub(crate) replies: AtomicU64,
    pub(crate) bytes_in: AtomicU64,
    pub(crate) bytes_out: AtomicU64,
    pub(crate) read_pauses: AtomicU64,
    pub(crate) refusal_throttles: AtomicU64,
    pub(crate) backward_calls: AtomicU64,
    pub(crate) backward_replies: AtomicU64,
    pub(crate) unmatched_replies: AtomicU64,
    pub(crate) peak_in_flight_requests: AtomicUsize,
    pub(crate) peak_in_flight_bytes: AtomicUsize,
    /// The server-wide budget's counter: what every connection holds, settled per batch.
    pub(crate) server_in_flight_bytes: AtomicUsize,
    pub(crate) peak_server_in_flight_bytes: AtomicUsize,
}

/// A copy of [`TransportStats`] at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TransportSnapshot {
    /// Connections accepted and served.
    pub accepted: u64,
    /// Connections closed at once because `max_connections` were open and none of them was idle.
    pub refused: u64,
    /// Idle connections closed to make room for a new one at `max_connections`.
    pub evicted: u64,
    /// Connections closed by `idle_timeout`, `partial_record_timeout` and `write_stall_timeout`.
    pub idle_timeouts: u64,
    pub partial_record_timeouts: u64,
    pub write_stall_timeouts: u64,
    /// Connections open now.
    pub open: usize,
    /// Connections closed for a record-marking error (oversized or malformed record header).
    pub record_errors: u64,
    /// Connections closed for a socket error other than the peer resetting or leaving.
    pub io_errors: u64,
    /// Complete records handed to the handler.
    pub calls: u64,
    /// Replies fully written.
    pub replies: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Times a connection stopped reading because it reached a cap.
    pub read_pauses: u64,
    /// Pauses imposed on connections whose calls the RPC layer kept refusing (a flood of garbage).
    pub refusal_throttles: u64,
    /// Backward calls (server to client) fully written.
    pub backward_calls: u64,
    /// Replies clients sent (to backward calls), and those the handler matched to no call (dropped).
    pub backward_replies: u64,
    pub unmatched_replies: u64,
    /// Most calls / bytes any one connection had in flight at once.
    pub peak_in_flight_requests: usize,
    pub peak_in_flight_bytes: usize,
    /// Bytes held against the server-wide budget now, and the most ever (replies waiting, records being
    /// assembled, `max_record` per call executing off its connection's task).
    pub server_in_flight_bytes: usize,
    pub peak_server_in_flight_bytes: usize,
}

impl TransportStats {
    pub fn snapshot(&self) -> TransportSnapshot {
        TransportSnapshot {
            accepted: self.accepted.load(Relaxed),
            refused: self.refused.load(Relaxed),
            evicted: self.evicted.load(Relaxed),
            idle_timeouts: self.idle_timeouts.load(Relaxed),
            partial_record_timeouts: self.partial_record_timeouts.load(Relaxed),
            write_stall_timeouts: self.write_stall_timeouts.load(Relaxed),
            open: self.open.load(Relaxed),
            record_errors: self.record_errors.load(Relaxed),
            io_errors: self.io_errors.load(Relaxed),
            calls: self.calls.load(Relaxed),
            replies: self.replies.load(Relaxed),
            bytes_in: self.bytes_in.load(Relaxed),
            bytes_out: self.bytes_out.load(Relaxed),
            read_pauses: self.read_pauses.load(Relaxed),
            refusal_throttles: self.refusal_throttles.load(Relaxed),
            backward_calls: self.backward_calls.load(Relaxed),
            backward_replies: self.backward_replies.load(Relaxed),
            unmatched_replies: self.unmatched_replies.load(Relaxed),
            peak_in_flight_requests: self.peak_in_flight_requests.load(Relaxed),
            peak_in_flight_bytes: self.peak_in_flight_bytes.load(Relaxed),
            server_in_flight_bytes: self.server_in_flight_bytes.load(Relaxed),
            peak_server_in_flight_bytes: self.peak_server_in_flight_bytes.load(Relaxed),
        }
    }
}

impl fmt::Display for TransportSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "tcp: connections accepted {} refused {} evicted {} open {} closed-on-record-error {} \
             closed-on-io-error {} closed-idle {} closed-partial-record {} closed-write-stall {}",
            self.accepted,
            self.refused,
            self.evicted,
            self.open,
            self.record_errors,
            self.io_errors,
            self.idle_timeouts,
            self.partial_record_timeouts,
            self.write_stall_timeouts
        )?;
        writeln!(
            f,
            "tcp: backward calls {} replies {} (unmatched {})",
            self.backward_calls, self.backward_replies, self.unmatched_replies
        )?;
        write!(
            f,
            "tcp: calls {} replies {} bytes-in {} bytes-out {} read-pauses {} refusal-throttles {} peak-in-flight \
             {} calls / {} bytes server-in-flight {} bytes (peak {})",
            self.calls,
            self.replies,
            self.bytes_in,
            self.bytes_out,
            self.read_pauses,
            self.refusal_throttles,
            self.peak_in_flight_requests,
            self.peak_in_flight_bytes,
            self.server_in_flight_bytes,
            self.peak_server_in_flight_bytes
        )
    }
}

/// Per-connection tallies, added to the shared counters in batches.
#[derive(Debug, Default)]
pub(crate) struct LocalTally {
    pub calls: u64,
    pub replies: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub peak_requests: usize,
    pub peak_bytes: usize,
}

impl LocalTally {
    /// Notes the current load; publishes a new per-connection peak at once (rare after warm-up).
    pub(crate) fn observe(&mut self, shared: &TransportStats, requests: usize, bytes: usize) {
        if requests > self.peak_requests {
            self.peak_requests = requests;
            shared.peak_in_flight_requests.fetch_max(requests, Relaxed);
        }
        if bytes > self.peak_bytes {
            self.peak_bytes = bytes;
            shared.peak_in_flight_bytes.fetch_max(bytes, Relaxed);
        }
    }

    /// Adds the counts gathered since the last publish to the shared counters.
    pub(crate) fn publish(&mut self, shared: &TransportStats) {
        for (count, into) in [
            (&mut self.calls, &shared.calls),
            (&mut self.replies, &shared.replies),
            (&mut self.bytes_in, &shared.bytes_in),
            (&mut self.bytes_out, &shared.bytes_out),
        ] {
            if *count != 0 {
                into.fetch_add(std::mem::take(count), Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publishing_moves_local_counts_into_the_shared_ones_once() {
        let shared = TransportStats::default();
        let mut local = LocalTally { calls: 3, bytes_out: 10, ..LocalTally::default() };
        local.publish(&shared);
        local.publish(&shared);
        let snap = shared.snapshot();
        assert_eq!((snap.calls, snap.bytes_out), (3, 10));
    }

    #[test]
    fn peaks_keep_the_largest_value_seen_by_any_connection() {
        let shared = TransportStats::default();
        let (mut a, mut b) = (LocalTally::default(), LocalTally::default());
        a.observe(&shared, 5, 100);
        b.observe(&shared, 2, 900);
        a.observe(&shared, 1, 1);
        let snap = shared.snapshot();
        assert_eq!((snap.peak_in_flight_requests, snap.peak_in_flight_bytes), (5, 900));
    }

    #[test]
    fn the_report_names_every_counter() {
        let text = TransportSnapshot::default().to_string();
        for word in [
            "accepted",
            "refused",
            "evicted",
            "record-error",
            "closed-idle",
            "closed-partial-record",
            "closed-write-stall",
            "bytes-in",
            "read-pauses",
            "refusal-throttles",
            "peak-in-flight",
            "server-in-flight",
            "backward calls",
            "unmatched",
        ] {
            assert!(text.contains(word), "{word} missing from {text}");
        }
    }
}
