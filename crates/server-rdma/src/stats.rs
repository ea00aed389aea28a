//! Transport counters of the RDMA front end: connections, calls, how replies travelled, bytes moved by
//! RDMA Read and Write, RDMA_ERROR replies by kind, the pauses of connections whose calls are refused,
//! and memory registrations (RDMA Read targets, kept across calls: only for calls no kept target fits,
//! a connection's first ones): registrations per I/O, 0 after warm-up.

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};

/// How a reply reached the client (RFC 8166 §3.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// RDMA_MSG with the whole reply in the Send.
    Inline,
    /// DDP-eligible results (READ data, READLINK path) RDMA-Written into the call's Write chunks.
    WriteChunk,
    /// The whole (or reduced) reply RDMA-Written into the call's Reply chunk, sent as RDMA_NOMSG.
    ReplyChunk,
}

/// Counters shared by every connection of an [`RdmaServer`](crate::RdmaServer).
#[derive(Debug, Default)]
pub struct RdmaTransportStats {
    pub(crate) accepted: AtomicU64,
    pub(crate) refused: AtomicU64,
    pub(crate) handshake_failures: AtomicU64,
    pub(crate) open: AtomicUsize,
    pub(crate) broken: AtomicU64,
    pub(crate) calls: AtomicU64,
    pub(crate) replies_inline: AtomicU64,
    pub(crate) replies_write_chunk: AtomicU64,
    pub(crate) replies_reply_chunk: AtomicU64,
    pub(crate) bytes_rdma_read: AtomicU64,
    pub(crate) bytes_rdma_written: AtomicU64,
    pub(crate) err_vers_sent: AtomicU64,
    pub(crate) err_chunk_sent: AtomicU64,
    pub(crate) backward_calls: AtomicU64,
    pub(crate) backward_replies: AtomicU64,
    pub(crate) unmatched_replies: AtomicU64,
    pub(crate) refusal_throttles: AtomicU64,
    pub(crate) registrations: AtomicU64,
    pub(crate) pool_misses: AtomicU64,
}

/// A copy of [`RdmaTransportStats`] at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RdmaTransportSnapshot {
    /// Connections accepted (in total).
    pub accepted: u64,
    /// Connection requests rejected because `max_connections` were open.
    pub refused: u64,
    /// Connection requests whose accept failed.
    pub handshake_failures: u64,
    /// Connections open now.
    pub open: usize,
    /// Connections ended by an error: a failed RDMA Read or Write, a peer past its credits, a header
    /// without an xid, a provider error.
    pub broken: u64,
    /// RPC calls handed to the handler.
    pub calls: u64,
    pub replies_inline: u64,
    pub replies_write_chunk: u64,
    pub replies_reply_chunk: u64,
    /// Bytes pulled from clients by RDMA Read (WRITE data, long calls), counted when posted.
    pub bytes_rdma_read: u64,
    /// Bytes pushed to clients by RDMA Write (READ data, reply chunks), counted when posted.
    pub bytes_rdma_written: u64,
    /// RDMA_ERROR replies sent, by kind (RFC 8166 §4.5).
    pub err_vers_sent: u64,
    pub err_chunk_sent: u64,
    /// Backward calls (server to client, RFC 8167) sent.
    pub backward_calls: u64,
    /// Replies clients sent to backward calls, and those the handler matched to no call (dropped).
    pub backward_replies: u64,
    pub unmatched_replies: u64,
    /// Pauses of connections whose calls kept being refused ([`server_core::RefusalThrottle`]).
    pub refusal_throttles: u64,
    /// Memory registrations the connections' queue pairs made ([`rdma::QueuePair::registrations`]): an
    /// RDMA Read target for each call no kept target fitted.
    pub registrations: u64,
    /// Calls with Read chunks that no kept target fitted (a registration each).
    pub pool_misses: u64,
}

impl RdmaTransportStats {
    pub fn snapshot(&self) -> RdmaTransportSnapshot {
        RdmaTransportSnapshot {
            accepted: self.accepted.load(Relaxed),
            refused: self.refused.load(Relaxed),
            handshake_failures: self.handshake_failures.load(Relaxed),
            open: self.open.load(Relaxed),
            broken: self.broken.load(Relaxed),
            calls: self.calls.load(Relaxed),
            replies_inline: self.replies_inline.load(Relaxed),
            replies_write_chunk: self.replies_write_chunk.load(Relaxed),
            replies_reply_chunk: self.replies_reply_chunk.load(Relaxed),
            bytes_rdma_read: self.bytes_rdma_read.load(Relaxed),
            bytes_rdma_written: self.bytes_rdma_written.load(Relaxed),
            err_vers_sent: self.err_vers_sent.load(Relaxed),
            err_chunk_sent: self.err_chunk_sent.load(Relaxed),
            backward_calls: self.backward_calls.load(Relaxed),
            backward_replies: self.backward_replies.load(Relaxed),
            unmatched_replies: self.unmatched_replies.load(Relaxed),
            refusal_throttles: self.refusal_throttles.load(Relaxed),
            registrations: self.registrations.load(Relaxed),
            pool_misses: self.pool_misses.load(Relaxed),
        }
    }

    pub(crate) fn reply(&self, kind: ReplyKind) {
        let counter = match kind {
            ReplyKind::Inline => &self.replies_inline,
            ReplyKind::WriteChunk => &self.replies_write_chunk,
            ReplyKind::ReplyChunk => &self.replies_reply_chunk,
        };
        counter.fetch_add(1, Relaxed);
    }
}

impl RdmaTransportSnapshot {
    /// Replies sent, all kinds together (RDMA_ERROR not included).
    pub fn replies(&self) -> u64 {
        self.replies_inline + self.replies_write_chunk + self.replies_reply_chunk
    }

    /// Memory registrations per call handled; `None` before any call.
    pub fn registrations_per_call(&self) -> Option<f64> {
        (self.calls != 0).then(|| self.registrations as f64 / self.calls as f64)
    }

    /// What happened between `earlier` and this snapshot, for the counters that only grow (`open` is
    /// this snapshot's).
    pub fn since(&self, earlier: &RdmaTransportSnapshot) -> RdmaTransportSnapshot {
        let d = |now: u64, then: u64| now.saturating_sub(then);
        RdmaTransportSnapshot {
            accepted: d(self.accepted, earlier.accepted),
            refused: d(self.refused, earlier.refused),
            handshake_failures: d(self.handshake_failures, earlier.handshake_failures),
            open: self.open,
            broken: d(self.broken, earlier.broken),
            calls: d(self.calls, earlier.calls),
            replies_inline: d(self.replies_inline, earlier.replies_inline),
            replies_write_chunk: d(self.replies_write_chunk, earlier.replies_write_chunk),
            replies_reply_chunk: d(self.replies_reply_chunk, earlier.replies_reply_chunk),
            bytes_rdma_read: d(self.bytes_rdma_read, earlier.bytes_rdma_read),
            bytes_rdma_written: d(self.bytes_rdma_written, earlier.bytes_rdma_written),
            err_vers_sent: d(self.err_vers_sent, earlier.err_vers_sent),
            err_chunk_sent: d(self.err_chunk_sent, earlier.err_chunk_sent),
            backward_calls: d(self.backward_calls, earlier.backward_calls),
            backward_replies: d(self.backward_replies, earlier.backward_replies),
            unmatched_replies: d(self.unmatched_replies, earlier.unmatched_replies),
            refusal_throttles: d(self.refusal_throttles, earlier.refusal_throttles),
            registrations: d(self.registrations, earlier.registrations),
            pool_misses: d(self.pool_misses, earlier.pool_misses),
        }
    }
}

impl fmt::Display for RdmaTransportSnapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "rdma: connections accepted {} refused {} handshake-failed {} open {} broken {}",
            self.accepted, self.refused, self.handshake_failures, self.open, self.broken
        )?;
        writeln!(
            f,
            "rdma: calls {} replies inline {} write-chunk {} reply-chunk {}",
            self.calls, self.replies_inline, self.replies_write_chunk, self.replies_reply_chunk
        )?;
        writeln!(
            f,
            "rdma: bytes rdma-read {} rdma-written {}; rdma_error sent err_vers {} err_chunk {}",
            self.bytes_rdma_read, self.bytes_rdma_written, self.err_vers_sent, self.err_chunk_sent
        )?;
        writeln!(
            f,
            "rdma: backward calls {} replies {} (unmatched {}); refusal-throttles {}",
            self.backward_calls, self.backward_replies, self.unmatched_replies, self.refusal_throttles
        )?;
        let per_call = self.registrations_per_call().map_or_else(|| "-".to_string(), |r| format!("{r:.4}"));
        write!(f, "rdma: registrations {} ({per_call} per I/O), pool misses {}", self.registrations, self.pool_misses)
    }
}

/// Counts a connection as open for as long as it lives, however its task ends.
#[derive(Debug)]
pub(crate) struct OpenGuard(pub(crate) std::sync::Arc<RdmaTransportStats>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_counted_by_how_they_travelled() {
        let stats = RdmaTransportStats::default();
        stats.reply(ReplyKind::Inline);
        stats.reply(ReplyKind::WriteChunk);
        stats.reply(ReplyKind::WriteChunk);
        stats.reply(ReplyKind::ReplyChunk);
        let snap = stats.snapshot();
        assert_eq!((snap.replies_inline, snap.replies_write_chunk, snap.replies_reply_chunk), (1, 2, 1));
        assert_eq!(snap.replies(), 4);
    }

    #[test]
    fn the_report_names_every_counter() {
        let text = RdmaTransportSnapshot::default().to_string();
        for word in [
            "accepted",
            "refused",
            "open",
            "broken",
            "write-chunk",
            "reply-chunk",
            "rdma-read",
            "err_vers",
            "backward calls",
            "unmatched",
            "refusal-throttles",
            "registrations",
            "per I/O",
            "pool misses",
        ] {
            assert!(text.contains(word), "{word} missing from {text}");
        }
    }
}
