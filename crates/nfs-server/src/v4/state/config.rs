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
//!
//! Client records (`admission.rs`). EXCHANGE_ID makes an unconfirmed record; past 128 the oldest goes
//! (its CREATE_SESSION then answers STALE_CLIENTID), so a storm of them costs at most 128 × 1.5 KiB and
//! delays a real client's confirmation by nothing: it confirms one round trip after its EXCHANGE_ID,
//! while pushing its record out takes 128 more EXCHANGE_IDs. Confirmed records are capped at 1024, and at
//! 256 per peer (an IPv4 address, an IPv6 /64; not the principal, which AUTH_SYS lets the caller choose).
//! A record that must make room for a new one is taken, in this order, from: a record whose lease ran
//! out; else a record holding no opens or locks — first one that never sent a SEQUENCE, then the least
//! recently renewed — whose client loses nothing (its next SEQUENCE gets BADSESSION, its CREATE_SESSION
//! STALE_CLIENTID, and a new EXCHANGE_ID gets it a new record). A record holding state is never taken
//! while its lease lives. Which records may give way:
//!
//! - A peer at its 256 makes room among its own records only. One hoarding peer thus holds at most a
//!   quarter of the table and never touches another peer's records; the clients sharing its address
//!   compete with it for its 256 (a used record of theirs goes only after every never-used one, then
//!   in order of renewal).
//! - A full table (1024: at least four peers at their caps, or many smaller) gives up a lapsed record
//!   anywhere, else one of the peer holding the most records, provided it holds at least two more than
//!   the newcomer's peer (so two peers never take a record from each other in turn). A newcomer from a
//!   peer holding k records is refused (RESOURCE) only when no lease has run out and every record of
//!   every peer holding k + 2 or more holds state. So hoarders that open nothing keep out no client of
//!   another peer unless they are so spread that none holds two records more than the newcomer's peer
//!   (1024 peers of one record each); hoarders that do open files are bounded by the caps above (four
//!   peers, each at 256 clients holding opens, fill the table until their leases lapse).
//!
//! Finding the record to give way scans one peer's records (256 at most) when a peer is at its cap, and
//! the records and the peers (about a thousand each) only when the table is full; otherwise admission is
//! O(1).

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
    /// Confirmed client records. Past it, a new client takes the place of a record without state (see
    /// the module documentation); RESOURCE only when none can go.
    pub max_clients: usize,
    /// Confirmed client records of one peer (an IPv4 address, an IPv6 /64). Past it, the peer's own
    /// record costing least to lose goes; RESOURCE to that peer only when each of its records holds state.
    pub max_clients_per_peer: usize,
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
            max_clients_per_peer: 256,
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
