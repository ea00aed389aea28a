//! [`StateConfig`]: lease and grace times, the fore-channel maxima sessions are clamped to, and the caps
//! that keep a hostile client (or many) from growing the server's memory without bound.
//!
//! Worst-case memory with the defaults, every cap reached at once (sizes are estimates of the records
//! with their hash-map slots, rounded up):
//!
//! | what              | count                                   | each       | total    |
//! |-------------------|-----------------------------------------|------------|----------|
//! | client records    | 1024 confirmed + 128 unconfirmed        | ≤ 1.5 KiB  | ≈ 2 MiB  |
//! | sessions          | 1024 clients × 4                        | ≈ 7 KiB (128 slots × 48 B + connections) | ≈ 28 MiB |
//! | cached replies    | the [`StateLimits::reply_cache_bytes`] budget (slots × cached size, reserved per session) | | ≤ 64 MiB |
//! | owners            | 65 536 in total (open- and lock-owners) | ≤ 1 KiB bytes + 128 B | ≈ 72 MiB |
//! | stateids          | 262 144 in total (open and lock)        | ≈ 320 B (entry, indexes, file record) | ≈ 80 MiB |
//! | lock ranges       | 262 144 in total                        | ≈ 220 B (owner's map, 3 index entries) | ≈ 55 MiB |
//!
//! About 300 MiB at the very worst, which takes at least 16 clients each at its own caps (4096 open-owners,
//! 4096 lock-owners, 16 384 stateids, 16 384 lock ranges each, about 15 MiB of owners and stateids per
//! client); a single client, however hostile, gets NFS4ERR_RESOURCE at its own caps while the others keep
//! working.

use std::time::Duration;

/// Server maxima for the fore channel; CREATE_SESSION clamps the client's requests to these
/// (RFC 8881 §18.36.3: the server may lower what the client asked for, never raise it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelLimits {
    /// ca_maxrequestsize: a COMPOUND request, RPC header included.
    pub max_request_size: u32,
    /// ca_maxresponsesize.
    pub max_response_size: u32,
    /// ca_maxresponsesize_cached: what one slot's reply cache may hold.
    pub max_response_size_cached: u32,
    /// ca_maxoperations.
    pub max_operations: u32,
    /// ca_maxrequests: slots per session.
    pub max_requests: u32,
}

impl Default for ChannelLimits {
    fn default() -> Self {
        ChannelLimits {
            // 1 MiB of READ/WRITE data plus room for the rest of the COMPOUND.
            max_request_size: (1 << 20) + 4096,
            max_response_size: (1 << 20) + 4096,
            max_response_size_cached: 4096,
            max_operations: 64,
            max_requests: 128,
        }
    }
}

/// The caps. Each is checked before anything is allocated for the request that would pass it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLimits {
    /// Confirmed client records (EXCHANGE_ID of a new owner and its first CREATE_SESSION answer RESOURCE).
    pub max_clients: usize,
    /// Unconfirmed client records; past this the oldest is dropped.
    pub max_unconfirmed_clients: usize,
    pub max_sessions_per_client: usize,
    /// Connections bound to one session (nconnect and trunking add connections).
    pub max_connections_per_session: usize,
    /// Bytes of cached replies all sessions together may hold: each session reserves slots × its cached
    /// reply size; a session that does not fit is given fewer slots (at least one).
    pub reply_cache_bytes: usize,
    pub max_open_owners_per_client: usize,
    pub max_lock_owners_per_client: usize,
    /// Open and lock stateids of one client.
    pub max_stateids_per_client: usize,
    /// Byte ranges locked by one client (a split by LOCKU counts one more).
    pub max_locks_per_client: usize,
    /// Open- and lock-owners of all clients.
    pub max_owners_total: usize,
    pub max_stateids_total: usize,
    pub max_locks_total: usize,
    /// Longest open-owner, lock-owner or co_ownerid accepted (NFS4_OPAQUE_LIMIT is 1024).
    pub max_owner_len: usize,
}

impl Default for StateLimits {
    fn default() -> Self {
        StateLimits {
            max_clients: 1024,
            max_unconfirmed_clients: 128,
            max_sessions_per_client: 4,
            max_connections_per_session: 32,
            reply_cache_bytes: 64 << 20,
            max_open_owners_per_client: 4096,
            max_lock_owners_per_client: 4096,
            max_stateids_per_client: 16_384,
            max_locks_per_client: 16_384,
            max_owners_total: 65_536,
            max_stateids_total: 262_144,
            max_locks_total: 262_144,
            max_owner_len: 1024,
        }
    }
}

/// Everything the state machine is configured with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateConfig {
    /// The lease (fattr4 lease_time); knfsd's default is 90 s.
    pub lease: Duration,
    /// How long the grace period after a restart lasts (RFC 8881 §8.4.2.1: at least one lease).
    pub grace: Duration,
    /// Whether state can be reclaimed after a restart: true when files outlive the process (`dir:`
    /// exports); then the clients that may reclaim are recorded and a restart begins a grace period. A
    /// server of `mem:` exports alone has nothing to reclaim: no record, no grace.
    pub reclaim: bool,
    pub fore_channel: ChannelLimits,
    /// Most back-channel slots the server will use (it only sends CB_NULL probes, outside any slot).
    pub back_channel_max_requests: u32,
    pub limits: StateLimits,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig {
            lease: Duration::from_secs(90),
            grace: Duration::from_secs(90),
            reclaim: false,
            fore_channel: ChannelLimits::default(),
            back_channel_max_requests: 16,
            limits: StateLimits::default(),
        }
    }
}
