//! What one connection, and the listener as a whole, may hold at once.

use std::time::Duration;

use onc_rpc::{RecordLimits, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD};

/// Where [`RecordHandler::handle`](crate::RecordHandler::handle) runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Execution {
    /// Inline on the connection's task when the handler never blocks, on the blocking pool otherwise.
    #[default]
    Auto,
    /// Always inline on the connection's task: calls of one connection run one after another, replies
    /// leave in call order. Only for handlers that never wait on a disk.
    Inline,
    /// One Tokio task per call (kept for measurement: costs more than `Inline` for the same result).
    TaskPerCall,
    /// One blocking-pool job per call: calls of one connection run in parallel and finish out of order.
    BlockingPool,
}

/// How a connection runs its calls: [`Execution`] resolved against the handler (`Auto` becomes `Inline`
/// or `Blocking`). Shared by the TCP and RPC-over-RDMA front ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMode {
    Inline,
    Task,
    Blocking,
}

impl CallMode {
    pub fn resolve(execution: Execution, handler_may_block: bool) -> CallMode {
        match execution {
            Execution::Auto if handler_may_block => CallMode::Blocking,
            Execution::Auto | Execution::Inline => CallMode::Inline,
            Execution::TaskPerCall => CallMode::Task,
            Execution::BlockingPool => CallMode::Blocking,
        }
    }
}

/// Per-connection caps and listener-wide limits.
///
/// A connection stops reading its socket while it has `max_in_flight_requests` calls in flight (read
/// and not yet answered on the wire) or `max_in_flight_bytes` bytes in flight (call records being
/// executed plus encoded replies waiting to be written), and reads again once under both. A call is
/// always admitted when nothing else of its connection is in flight, so one record larger than the byte
/// cap still makes progress. Memory per connection is bounded by about `read_buffer + max_record +
/// max_in_flight_bytes +` one reply per admitted call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Largest RPC record accepted (sum of its fragments); a larger fragment header closes the connection.
    pub max_record: usize,
    /// Most fragments in one record.
    pub max_fragments: usize,
    /// Calls in flight per connection before reading pauses.
    pub max_in_flight_requests: usize,
    /// Bytes in flight per connection before reading pauses.
    pub max_in_flight_bytes: usize,
    /// Connections open at once over all listeners; more are accepted and closed at once.
    pub max_connections: usize,
    /// Size of each connection's socket read buffer.
    pub read_buffer: usize,
    /// How long a connection may take, after shutdown is asked for, to finish its calls and send their
    /// replies before it is closed regardless.
    pub shutdown_grace: Duration,
    /// Where calls are executed.
    pub execution: Execution,
}

/// 256 calls in flight: deeper than fio's usual iodepths and the Linux client's default slot table.
pub const DEFAULT_MAX_IN_FLIGHT_REQUESTS: usize = 256;
/// 16 MiB: sixteen 1 MiB READ replies queued per connection.
pub const DEFAULT_MAX_IN_FLIGHT_BYTES: usize = 16 << 20;
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// 64 KiB: a batch of small calls in one read, and a 1 MiB WRITE in 16.
pub const DEFAULT_READ_BUFFER: usize = 64 << 10;
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_record: DEFAULT_MAX_RECORD,
            max_fragments: DEFAULT_MAX_FRAGMENTS,
            max_in_flight_requests: DEFAULT_MAX_IN_FLIGHT_REQUESTS,
            max_in_flight_bytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            read_buffer: DEFAULT_READ_BUFFER,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            execution: Execution::Auto,
        }
    }
}

impl ConnectionLimits {
    /// The record-marking limits for a connection's decoder.
    pub fn record_limits(&self) -> RecordLimits {
        RecordLimits { max_record: self.max_record, max_fragments: self.max_fragments }
    }

    /// The same limits with zeros raised to the smallest workable values (a cap of 0 would never admit).
    pub(crate) fn sanitized(mut self) -> Self {
        self.max_in_flight_requests = self.max_in_flight_requests.max(1);
        self.max_in_flight_bytes = self.max_in_flight_bytes.max(1);
        self.max_connections = self.max_connections.max(1);
        self.max_fragments = self.max_fragments.max(1);
        self.read_buffer = self.read_buffer.max(512);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_runs_inline_unless_the_handler_may_block() {
        assert_eq!(CallMode::resolve(Execution::Auto, false), CallMode::Inline);
        assert_eq!(CallMode::resolve(Execution::Auto, true), CallMode::Blocking);
        assert_eq!(CallMode::resolve(Execution::TaskPerCall, true), CallMode::Task);
        assert_eq!(CallMode::resolve(Execution::BlockingPool, false), CallMode::Blocking);
    }

    #[test]
    fn defaults_accept_a_one_mebibyte_write_record() {
        let limits = ConnectionLimits::default();
        assert!(limits.record_limits().max_record > 1 << 20);
        assert!(limits.max_in_flight_bytes > limits.max_record);
    }

    #[test]
    fn zero_caps_are_raised_so_a_connection_can_progress() {
        let limits = ConnectionLimits {
            max_in_flight_requests: 0,
            max_in_flight_bytes: 0,
            max_connections: 0,
            read_buffer: 0,
            ..ConnectionLimits::default()
        }
        .sanitized();
        assert_eq!(limits.max_in_flight_requests, 1);
        assert_eq!(limits.max_in_flight_bytes, 1);
        assert_eq!(limits.max_connections, 1);
        assert_eq!(limits.read_buffer, 512);
    }
}
