//! What an RDMA front end grants and accepts: credits, inline size, chunk sizes, connections, and where
//! calls run. Out-of-range values are brought into range ([`RdmaServerConfig::sanitized`]) rather than
//! refused, so a server always starts with a workable configuration.

use std::time::Duration;

use rdma::QpConfig;
use rpcrdma_proto::{ChunkPolicy, ConnectPrivate, InlineThresholds, DEFAULT_MAX_CHUNK_BYTES, KNFSD_CREDIT_GRANT};
use server_core::{Execution, DEFAULT_MAX_CONNECTIONS, DEFAULT_SHUTDOWN_GRACE};

/// Smallest inline size: RFC 8166 §3.3.2's 1024 bytes, which every peer supports.
pub const MIN_INLINE_SIZE: u32 = 1024;
/// Largest inline size we post receives of.
pub const MAX_INLINE_SIZE: u32 = 64 * 1024;
/// Most credits granted (the CLI's `--rdma-credits` range).
pub const MAX_CREDITS: u32 = 1024;
/// RDMA Reads we issue at once at most (knfsd's `sc_ord` default), further bounded by the peer's
/// responder resources.
pub const MAX_INITIATOR_DEPTH: u8 = 16;
/// Most bytes of RDMA Read targets a connection keeps registered by default
/// ([`RdmaServerConfig::max_read_target_bytes`]).
pub const DEFAULT_MAX_READ_TARGET_BYTES: usize = 32 << 20;
/// Most backward calls outstanding per connection that may be configured.
pub const MAX_BACKWARD_CREDITS: u32 = 16;
/// Backward calls outstanding per connection by default: knfsd's (`sc_max_bc_requests`, 2). An
/// NFSv4.1 client offers one or a few backchannel slots.
pub const DEFAULT_BACKWARD_CREDITS: u32 = 2;
/// Most network threads that may be configured.
pub const MAX_THREADS: usize = 1024;

/// Settings of an [`RdmaServer`](crate::RdmaServer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RdmaServerConfig {
    /// Credits granted in every reply (RFC 8166 §3.3.1), and receives posted per connection. 1 to
    /// [`MAX_CREDITS`]; 0 is raised to 1 (a zero grant serialises or stops the client).
    pub credits: u32,
    /// Our inline send and receive size (RFC 8797 private data), 1024..=65536, rounded down to a multiple
    /// of 1024 (what the private data can express). The peer's advertised sizes lower it per connection.
    pub inline_size: u32,
    /// Largest Read chunk (and all of a call's Read chunks together), Write chunk and Reply chunk a call
    /// may name: what one call can make us allocate.
    pub max_chunk_bytes: u64,
    /// Connections open at once; more are rejected at connection set-up.
    pub max_connections: usize,
    /// Where calls are executed (as for the TCP front end).
    pub execution: Execution,
    /// Backward calls (server to client, RFC 8167: NFSv4.1 callbacks) outstanding per connection at
    /// most, asked for in each of them; as many receives are posted beyond `credits` for their replies.
    /// 0..=[`MAX_BACKWARD_CREDITS`]; 0: connections carry no backward calls.
    pub backward_credits: u32,
    /// How long a connection may take, after shutdown is asked for, to finish its calls.
    pub shutdown_grace: Duration,
    /// Most bytes of RDMA Read targets (the buffers calls' Read chunks are pulled into, registered
    /// once and kept for the next calls) a connection keeps: one largest call per credit up to this;
    /// all connections together keep four times this. A call no kept target fits gets a new one (a
    /// registration); 0: none kept, a registration per call with Read chunks.
    pub max_read_target_bytes: usize,
    /// Network threads the connections are spread over, each connection on one for its whole life (its
    /// queue pair's completions reaped by that thread). 1: every connection on the caller's runtime.
    /// 1..=[`MAX_THREADS`].
    pub threads: usize,
    /// Completion vectors the queue pairs' completion queues are spread over, in the order connections
    /// are dealt to the threads (verbs: modulo the device's vectors; the soft provider has none). 0:
    /// one per thread, so each thread's queue pairs are signalled on a vector of their own.
    pub comp_vectors: u32,
}

impl Default for RdmaServerConfig {
    fn default() -> Self {
        RdmaServerConfig {
            credits: KNFSD_CREDIT_GRANT,
            inline_size: 4096,
            max_chunk_bytes: DEFAULT_MAX_CHUNK_BYTES,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            execution: Execution::Auto,
            backward_credits: DEFAULT_BACKWARD_CREDITS,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            max_read_target_bytes: DEFAULT_MAX_READ_TARGET_BYTES,
            threads: 1,
            comp_vectors: 0,
        }
    }
}

impl RdmaServerConfig {
    /// The same settings brought into their valid ranges.
    pub fn sanitized(mut self) -> Self {
        self.credits = self.credits.clamp(1, MAX_CREDITS);
        let inline = self.inline_size.clamp(MIN_INLINE_SIZE, MAX_INLINE_SIZE);
        self.inline_size = inline - inline % 1024;
        self.max_chunk_bytes = self.max_chunk_bytes.max(u64::from(MIN_INLINE_SIZE));
        self.max_connections = self.max_connections.max(1);
        self.backward_credits = self.backward_credits.min(MAX_BACKWARD_CREDITS);
        self.threads = self.threads.clamp(1, MAX_THREADS);
        self
    }

    /// Completion vectors in use: [`comp_vectors`](Self::comp_vectors), or one per thread.
    pub fn comp_vectors(&self) -> u32 {
        match self.comp_vectors {
            0 => u32::try_from(self.threads.max(1)).unwrap_or(u32::MAX),
            n => n,
        }
    }

    /// Receives posted per connection: one per credit for the client's calls, and one per backward
    /// credit for the client's replies to our calls (RFC 8167 §4: a server posts receives for the
    /// replies to its backward calls, so they never take a forward credit's receive).
    pub fn receives(&self) -> u32 {
        self.credits.saturating_add(self.backward_credits)
    }

    /// Our own inline thresholds, before the peer's private data lowers them.
    pub fn thresholds(&self) -> InlineThresholds {
        InlineThresholds { send: self.inline_size, recv: self.inline_size }
    }

    /// RFC 8797 §4: the private data we accept with; the remote-invalidation flag stays clear (we do not
    /// take Send With Invalidate: our registrations are invalidated by us on their completions).
    pub fn private_data(&self) -> ConnectPrivate {
        self.thresholds().to_private(false)
    }

    /// The largest call buffer one call can need: its Read chunks plus our inline receive size.
    pub(crate) fn max_call_bytes(&self) -> usize {
        usize::try_from(self.max_chunk_bytes).unwrap_or(usize::MAX).saturating_add(self.inline_size as usize + 64)
    }

    /// What `validate_call` enforces (RFC 8166 §4.5.3: chunks the responder cannot use are ERR_CHUNK).
    pub fn chunk_policy(&self) -> ChunkPolicy {
        let max = self.max_chunk_bytes;
        ChunkPolicy { max_read_chunk: max, max_read_total: max, max_write_chunk: max, max_reply_chunk: max }
    }

    /// Bytes of RDMA Read targets each connection keeps registered across calls: one largest call per
    /// credit (the most calls a client may have in flight, RFC 8166 §3.3.1), at most
    /// [`max_read_target_bytes`](Self::max_read_target_bytes).
    pub fn read_target_bytes(&self) -> usize {
        (self.credits as usize).saturating_mul(self.max_call_bytes()).min(self.max_read_target_bytes)
    }

    /// The queue pair of one connection whose peer offers `peer_responder_resources`: receives of our
    /// inline size, one per credit and per backward credit ([`receives`](Self::receives)); room for a
    /// reply's Writes and Send per credit plus Reads; every RDMA Read and Write is ours, so we ask for no
    /// responder resources; no provider pool (the server keeps registered targets of its own instead,
    /// used in place: a pool is reached by copies only).
    pub fn qp_config(&self, peer_responder_resources: u8) -> QpConfig {
        QpConfig {
            recv_size: self.inline_size,
            max_recv: self.receives(),
            max_send: self.credits.saturating_mul(4).clamp(64, 4096),
            initiator_depth: MAX_INITIATOR_DEPTH.min(peer_responder_resources),
            responder_resources: 0,
            pool_bytes: 0,
            comp_vector: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_grant_knfsd_credits_with_four_kibibyte_inline_messages() {
        let config = RdmaServerConfig::default().sanitized();
        assert_eq!((config.credits, config.inline_size), (64, 4096));
        assert!(config.max_chunk_bytes > 1 << 20);
        let private = config.private_data();
        assert_eq!((private.send_size(), private.recv_size(), private.remote_invalidation()), (4096, 4096, false));
    }

    #[test]
    fn zero_credits_and_odd_inline_sizes_are_brought_into_range() {
        let config = RdmaServerConfig { credits: 0, inline_size: 5000, ..Default::default() }.sanitized();
        assert_eq!((config.credits, config.inline_size), (1, 4096));
        let config = RdmaServerConfig { credits: 1 << 20, inline_size: 10, ..Default::default() }.sanitized();
        assert_eq!((config.credits, config.inline_size), (MAX_CREDITS, 1024));
        let config = RdmaServerConfig { inline_size: u32::MAX, ..Default::default() }.sanitized();
        assert_eq!(config.inline_size, MAX_INLINE_SIZE);
    }

    #[test]
    fn initiator_depth_follows_the_peers_responder_resources_up_to_sixteen() {
        let config = RdmaServerConfig::default();
        assert_eq!(config.qp_config(0).initiator_depth, 0);
        assert_eq!(config.qp_config(4).initiator_depth, 4);
        assert_eq!(config.qp_config(200).initiator_depth, 16);
        let qp = config.qp_config(16);
        assert_eq!((qp.recv_size, qp.max_recv, qp.responder_resources), (4096, 64 + 2, 0));
    }

    #[test]
    fn kept_read_targets_hold_one_largest_call_per_credit_up_to_their_cap() {
        let small = RdmaServerConfig { credits: 4, max_chunk_bytes: 1 << 20, ..Default::default() }.sanitized();
        assert_eq!(small.read_target_bytes(), 4 * ((1 << 20) + 4096 + 64));
        assert_eq!(RdmaServerConfig::default().sanitized().read_target_bytes(), DEFAULT_MAX_READ_TARGET_BYTES);
        assert_eq!(RdmaServerConfig { max_read_target_bytes: 0, ..Default::default() }.read_target_bytes(), 0);
    }

    #[test]
    fn receives_cover_the_forward_credits_and_the_replies_to_backward_calls() {
        let config = RdmaServerConfig { credits: 8, backward_credits: 3, ..Default::default() }.sanitized();
        assert_eq!(config.receives(), 11);
        let none = RdmaServerConfig { backward_credits: 0, ..Default::default() }.sanitized();
        assert_eq!(none.receives(), none.credits);
        let many = RdmaServerConfig { backward_credits: 1000, ..Default::default() }.sanitized();
        assert_eq!(many.backward_credits, MAX_BACKWARD_CREDITS);
    }
}
