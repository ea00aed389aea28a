//! What one connection, and the server as a whole, may hold at once, and how long connections may
//! stay quiet: the `[limits]` of `nfsbench serve`.

use std::fmt;
use std::time::Duration;

use onc_rpc::{RecordLimits, DEFAULT_MAX_FRAGMENTS, DEFAULT_MAX_RECORD};

use crate::Execution;

/// Per-connection caps, server-wide limits and timeouts. The TCP front end (`server-tcp`) enforces
/// every one as described here; the RDMA front end's defaults for its connection cap and shutdown grace
/// are [`DEFAULT_MAX_CONNECTIONS`] and [`DEFAULT_SHUTDOWN_GRACE`].
///
/// **Per connection.** A connection stops reading its socket while it has `max_in_flight_requests`
/// calls in flight (read and not yet answered on the wire) or `max_in_flight_bytes` bytes in flight
/// (call records being executed plus encoded replies waiting to be written), and reads again once under
/// both. A call is always admitted when nothing else of its connection is in flight, so one record
/// larger than the byte cap still makes progress.
///
/// **Server-wide.** All connections share one budget of `max_server_in_flight_bytes`: what each holds
/// (encoded replies waiting, the record being assembled by its decoder, and for calls executing off the
/// connection's task `max_record` each, since their reply's size is not known until they finish) is
/// added to one atomic counter, settled once per read or write batch, not per call. A connection
/// admits no new call while the counter is at the budget, except that a connection with nothing in
/// flight may always have one call, so every well-behaved client progresses however many hostile ones
/// hold the budget (they are reclaimed by `write_stall_timeout`).
///
/// **Worst-case memory** held by the transport (the allocator's own retention aside) is about
///
/// ```text
/// max_server_in_flight_bytes
///   + max_connections × (2 × read_buffer + 3 × max_record)
/// ```
///
/// where the per-connection term is its read buffer, complete records read in one buffer but not yet
/// admitted (at most a buffer's worth), and the one call always allowed: its record (assembled by
/// the decoder, at most `max_record`), its reply (a READ's is at most `max_io_size` + headers, under
/// `max_record`), and the decoder's recycled record buffer (at most `max_record`, dropped once the
/// connection is idle for a while). With the defaults: 512 MiB + 1024 × 3.3 MiB ≈ 3.8 GiB in the worst
/// case, which needs 1024 connections each pinning a 1 MiB record, a 1 MiB reply and a 1 MiB spare;
/// the per-connection caps alone allowed about 19 MiB per connection (19 GiB for 1024). Idle connections
/// hold only their read buffer (64 MiB for 1024).
///
/// **Connections.** At `max_connections`, a new connection is accepted by closing an idle one (nothing
/// in flight): first one that never completed a call, then the one quiet (idle, or inside one record)
/// the longest, then the oldest, as knfsd closes its oldest connection past its limit
/// (`svc_check_conn_limits`). The new connection is refused only when every connection has calls in
/// flight, so a new client can mount however many sockets an attack holds.
///
/// **Timeouts** (`Duration::ZERO` turns one off), checked a few times per shortest timeout by one timer
/// per connection, so a connection closes between the timeout and a quarter more:
/// - `idle_timeout`: nothing in flight and no byte received for that long. knfsd closes a TCP
///   connection unused for a whole `svc_conn_age_period` (6 minutes, `svc_age_temp_xprts`; "clients close
///   idle connections after 5 minutes, servers after 6").
/// - `partial_record_timeout`: a record (RFC 5531 §11 record marking: fragment headers and their bytes,
///   up to the last fragment) begun and not completed within that time, however many bytes keep
///   arriving, while this side keeps reading. This is what ends a peer trickling a byte a second: with
///   idle-style timers every byte would reset it.
/// - `write_stall_timeout`: replies owed and not one byte of them accepted by the peer for that long;
///   closing frees them.
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
    /// Bytes in flight over all connections before they admit only one call each.
    pub max_server_in_flight_bytes: usize,
    /// Connections open at once over all listeners; one more evicts an idle connection, or is closed at
    /// once when none is idle.
    pub max_connections: usize,
    /// Size of each connection's socket read buffer.
    pub read_buffer: usize,
    /// Closes a connection with nothing in flight that received nothing for this long (zero: never).
    pub idle_timeout: Duration,
    /// Closes a connection whose record is begun and not complete after this long (zero: never).
    pub partial_record_timeout: Duration,
    /// Closes a connection that owes replies and whose peer accepted none of their bytes for this long
    /// (zero: never).
    pub write_stall_timeout: Duration,
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
/// 512 MiB: 32 connections each with its full 16 MiB in flight. A benchmark's clients read their
/// replies as they come, so what is in flight is the socket backlog of a few connections (fio with
/// `nconnect`-style 16 connections at 1 MiB and iodepth 16 stays under 256 MiB); a hostile peer that
/// reads nothing gets at most this, not 17 MiB per connection (1 GiB for 64 connections, as measured).
/// A 1 GiB budget would also do on the 24 GiB machine; half of it leaves room for the RAM disk.
pub const DEFAULT_MAX_SERVER_IN_FLIGHT_BYTES: usize = 512 << 20;
/// knfsd's cap is (threads + 3) × 20 connections (`svc_check_conn_limits`, 220 with 8 threads); a
/// benchmark opens a few, so 1024 leaves room for many clients at 3.3 MiB each at worst.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// 64 KiB: a batch of small calls in one read, and a 1 MiB WRITE in 16.
pub const DEFAULT_READ_BUFFER: usize = 64 << 10;
/// 6 minutes: knfsd's `svc_conn_age_period` ("clients close idle connections after 5 minutes, servers
/// after 6"), so a Linux client closes first, as it expects to.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(6 * 60);
/// 30 s: a 1 MiB WRITE record then needs 35 KB/s, far below any link a benchmark runs on (a 10 Mbit/s
/// emulated link sends it in under a second).
pub const DEFAULT_PARTIAL_RECORD_TIMEOUT: Duration = Duration::from_secs(30);
/// 60 s without the peer taking one byte of what it is owed: a live client reads within milliseconds;
/// the Linux client's own RPC timeout for a major retransmit is 60 s (timeo=600).
pub const DEFAULT_WRITE_STALL_TIMEOUT: Duration = Duration::from_secs(60);
/// 5 s for a connection to finish its calls once shutdown is asked for, on either transport.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            max_record: DEFAULT_MAX_RECORD,
            max_fragments: DEFAULT_MAX_FRAGMENTS,
            max_in_flight_requests: DEFAULT_MAX_IN_FLIGHT_REQUESTS,
            max_in_flight_bytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
            max_server_in_flight_bytes: DEFAULT_MAX_SERVER_IN_FLIGHT_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            read_buffer: DEFAULT_READ_BUFFER,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            partial_record_timeout: DEFAULT_PARTIAL_RECORD_TIMEOUT,
            write_stall_timeout: DEFAULT_WRITE_STALL_TIMEOUT,
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

    /// The transport's worst-case memory by the formula above, in bytes.
    pub fn worst_case_memory(&self) -> u64 {
        let per_connection = 2 * self.read_buffer as u64 + 3 * self.max_record as u64;
        self.max_server_in_flight_bytes as u64 + self.max_connections as u64 * per_connection
    }

    /// The same limits with zeros raised to the smallest workable values (a cap of 0 would never admit).
    pub fn sanitized(mut self) -> Self {
        self.max_in_flight_requests = self.max_in_flight_requests.max(1);
        self.max_in_flight_bytes = self.max_in_flight_bytes.max(1);
        self.max_server_in_flight_bytes = self.max_server_in_flight_bytes.max(1);
        self.max_connections = self.max_connections.max(1);
        self.max_fragments = self.max_fragments.max(1);
        self.read_buffer = self.read_buffer.max(512);
        self
    }
}

/// One line for start-up logs, each limit under its `[limits]` key name in `nfsbench serve --config`.
impl fmt::Display for ConnectionLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "max_connections {} max_record {} max_in_flight_requests {} max_in_flight_bytes {} \
             max_server_in_flight_bytes {} idle_timeout_secs {} partial_record_timeout_secs {} write_stall_timeout_secs {} \
             (read buffer {} per connection; worst case {})",
            self.max_connections,
            Bytes(self.max_record as u64),
            self.max_in_flight_requests,
            Bytes(self.max_in_flight_bytes as u64),
            Bytes(self.max_server_in_flight_bytes as u64),
            Secs(self.idle_timeout),
            Secs(self.partial_record_timeout),
            Secs(self.write_stall_timeout),
            Bytes(self.read_buffer as u64),
            Bytes(self.worst_case_memory()),
        )
    }
}

/// A byte count in the largest binary unit that divides it ("16MiB", "1088KiB", "1000").
struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (shift, unit) in [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] {
            if self.0 >= 1 << shift && self.0.is_multiple_of(1 << shift) {
                return write!(f, "{}{unit}", self.0 >> shift);
            }
        }
        if self.0 >= 1 << 20 {
            return write!(f, "{:.1}MiB", self.0 as f64 / f64::from(1 << 20));
        }
        write!(f, "{}", self.0)
    }
}

/// A timeout in seconds, "0 (off)" for zero.
struct Secs(Duration);

impl fmt::Display for Secs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            d if d.is_zero() => f.write_str("0 (off)"),
            d if d.subsec_nanos() == 0 => write!(f, "{}", d.as_secs()),
            d => write!(f, "{}", d.as_secs_f64()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn the_start_up_line_names_every_limit_by_its_key() {
        let line = ConnectionLimits::default().to_string();
        for key in [
            "max_connections 1024",
            "max_record 1088KiB",
            "max_in_flight_requests 256",
            "max_in_flight_bytes 16MiB",
            "max_server_in_flight_bytes 512MiB",
            "idle_timeout_secs 360",
            "partial_record_timeout_secs 30",
            "write_stall_timeout_secs 60",
        ] {
            assert!(line.contains(key), "{key} missing from {line}");
        }
        assert!(!line.contains('\n'));
        let off = ConnectionLimits { idle_timeout: Duration::ZERO, ..ConnectionLimits::default() };
        assert!(off.to_string().contains("idle_timeout_secs 0 (off)"), "{off}");
    }

    #[test]
    fn the_worst_case_follows_the_documented_formula() {
        let limits = ConnectionLimits::default();
        let per_connection = 2 * (64u64 << 10) + 3 * limits.max_record as u64;
        assert_eq!(limits.worst_case_memory(), (512u64 << 20) + 1024 * per_connection);
        assert!(limits.worst_case_memory() < 4 << 30);
    }
}
