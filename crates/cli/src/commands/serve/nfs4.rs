//! The `[nfs4]` table of `nfsbench serve --config`: NFSv4.1/4.2's lease, the grace period after a
//! restart of a `dir:` server, what sessions are granted, and the caps of the state machine
//! (`nfs_server::Nfs4Config`, whose `StateLimits` documents the worst-case memory of the defaults).
//!
//! ```toml
//! [nfs4]
//! lease_secs = 90                   # 10..=3600; clients renew within it, callbacks time out at a tenth
//! grace_secs = 90                   # after a restart with dir: exports; at least the lease
//! session_slots = 128               # ca_maxrequests: calls in flight per session
//! max_operations = 64               # ca_maxoperations: operations per COMPOUND
//! cached_reply_size = "4KiB"        # ca_maxresponsesize_cached: one slot's cached reply
//! reply_cache = "64MiB"             # every session's slot caches together
//! max_clients = 1024
//! max_clients_per_peer = 256        # of max_clients, per IPv4 address or IPv6 /64; 1..=max_clients
//! max_sessions_per_client = 4
//! max_connections_per_session = 32 # nconnect and trunking bind several
//! max_open_owners_per_client = 4096
//! max_lock_owners_per_client = 4096
//! max_stateids_per_client = 16384
//! max_locks_per_client = 16384
//! max_owners = 65536                # open- and lock-owners of all clients
//! max_stateids = 262144
//! max_locks = 262144
//! ```
//!
//! The fore channel's request and reply sizes follow `[limits] max_io_size` (a READ or WRITE of that
//! size and the rest of its COMPOUND). Unknown keys are errors naming the key.

use std::time::Duration;

use nfs_server::{ChannelLimits, Nfs4Config, StateLimits};
use serde::Deserialize;

use crate::serve_config::{ServeConfigError, Size};

/// Room in a COMPOUND beyond its READ or WRITE data (RPC header, SEQUENCE, PUTFH, GETATTR ...).
const COMPOUND_HEADROOM: u32 = 4096;
/// `lease_secs` bounds (as the server checks them).
const LEASE_SECS: std::ops::RangeInclusive<u64> = 10..=3600;

/// The `[nfs4]` table as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nfs4Entry {
    pub lease_secs: Option<u64>,
    pub grace_secs: Option<u64>,
    pub session_slots: Option<u64>,
    pub max_operations: Option<u64>,
    pub cached_reply_size: Option<Size>,
    pub reply_cache: Option<Size>,
    pub max_clients: Option<u64>,
    pub max_clients_per_peer: Option<u64>,
    pub max_sessions_per_client: Option<u64>,
    pub max_connections_per_session: Option<u64>,
    pub max_open_owners_per_client: Option<u64>,
    pub max_lock_owners_per_client: Option<u64>,
    pub max_stateids_per_client: Option<u64>,
    pub max_locks_per_client: Option<u64>,
    pub max_owners: Option<u64>,
    pub max_stateids: Option<u64>,
    pub max_locks: Option<u64>,
}

/// A count of at least `min`, at most u32::MAX (and what `usize` holds).
fn count(key: &'static str, value: Option<u64>, default: u64, min: u64) -> Result<u64, ServeConfigError> {
    match value {
        None => Ok(default),
        Some(0) if min > 0 => Err(ServeConfigError::LimitZero { key }),
        Some(v) if v < min || v > u64::from(u32::MAX) => {
            Err(ServeConfigError::OutOfRange { key, value: v, range: format!("{min}..={}", u32::MAX) })
        }
        Some(v) => Ok(v),
    }
}

/// The NFSv4 settings of `entry`, with the fore channel sized for READs and WRITEs of `max_io` bytes.
pub fn nfs4_config(entry: &Nfs4Entry, max_io: u32) -> Result<Nfs4Config, ServeConfigError> {
    let defaults = Nfs4Config::default();
    let lease = entry.lease_secs.unwrap_or(defaults.lease.as_secs());
    if !LEASE_SECS.contains(&lease) {
        let range = format!("{}..={}", LEASE_SECS.start(), LEASE_SECS.end());
        return Err(ServeConfigError::OutOfRange { key: "lease_secs", value: lease, range });
    }
    let grace = entry.grace_secs.unwrap_or(defaults.grace.as_secs());
    if grace > *LEASE_SECS.end() {
        let range = format!("0..={}", LEASE_SECS.end());
        return Err(ServeConfigError::OutOfRange { key: "grace_secs", value: grace, range });
    }
    let fore = defaults.fore_channel;
    let size = max_io.saturating_add(COMPOUND_HEADROOM);
    let cached = match entry.cached_reply_size {
        Some(Size(v)) if v < 512 || v > u64::from(size) => {
            return Err(ServeConfigError::OutOfRange {
                key: "cached_reply_size",
                value: v,
                range: format!("512..={size}"),
            })
        }
        Some(Size(v)) => v as u32,
        None => fore.max_response_size_cached,
    };
    let fore_channel = ChannelLimits {
        max_request_size: size,
        max_response_size: size,
        max_response_size_cached: cached,
        // RFC 8881 §18.36.3: SEQUENCE and one operation at least.
        max_operations: count("max_operations", entry.max_operations, u64::from(fore.max_operations), 2)? as u32,
        max_requests: count("session_slots", entry.session_slots, u64::from(fore.max_requests), 1)? as u32,
    };
    let l = defaults.limits;
    let cap = |key, value: Option<u64>, default: usize| count(key, value, default as u64, 1).map(|v| v as usize);
    let reply_cache = match entry.reply_cache {
        Some(Size(0)) => return Err(ServeConfigError::LimitZero { key: "reply_cache" }),
        Some(Size(v)) => {
            usize::try_from(v).map_err(|_| ServeConfigError::LimitTooLarge { key: "reply_cache", value: v })?
        }
        None => l.reply_cache_bytes,
    };
    let max_clients = cap("max_clients", entry.max_clients, l.max_clients)?;
    // A peer's share of the table: the state machine takes the smaller of the two, so a written value
    // above max_clients would silently mean max_clients; the default is clamped to it.
    let max_clients_per_peer = match entry.max_clients_per_peer {
        Some(v) if v > max_clients as u64 => {
            let range = format!("1..={max_clients} (max_clients)");
            return Err(ServeConfigError::OutOfRange { key: "max_clients_per_peer", value: v, range });
        }
        Some(v) => cap("max_clients_per_peer", Some(v), l.max_clients_per_peer)?,
        None => l.max_clients_per_peer.min(max_clients),
    };
    let limits = StateLimits {
        max_clients,
        max_clients_per_peer,
        max_sessions_per_client: cap(
            "max_sessions_per_client",
            entry.max_sessions_per_client,
            l.max_sessions_per_client,
        )?,
        max_connections_per_session: cap(
            "max_connections_per_session",
            entry.max_connections_per_session,
            l.max_connections_per_session,
        )?,
        reply_cache_bytes: reply_cache,
        max_open_owners_per_client: cap(
            "max_open_owners_per_client",
            entry.max_open_owners_per_client,
            l.max_open_owners_per_client,
        )?,
        max_lock_owners_per_client: cap(
            "max_lock_owners_per_client",
            entry.max_lock_owners_per_client,
            l.max_lock_owners_per_client,
        )?,
        max_stateids_per_client: cap(
            "max_stateids_per_client",
            entry.max_stateids_per_client,
            l.max_stateids_per_client,
        )?,
        max_locks_per_client: cap("max_locks_per_client", entry.max_locks_per_client, l.max_locks_per_client)?,
        max_owners_total: cap("max_owners", entry.max_owners, l.max_owners_total)?,
        max_stateids_total: cap("max_stateids", entry.max_stateids, l.max_stateids_total)?,
        max_locks_total: cap("max_locks", entry.max_locks, l.max_locks_total)?,
        ..l
    };
    Ok(Nfs4Config { lease: Duration::from_secs(lease), grace: Duration::from_secs(grace), fore_channel, limits })
}

/// One line for stderr at start-up: the NFSv4 settings in force, each under its key.
pub fn describe(config: &Nfs4Config) -> String {
    format!(
        "lease_secs {} grace_secs {} session_slots {} max_operations {} cached_reply_size {} max_clients {} \
         max_clients_per_peer {}",
        config.lease.as_secs(),
        config.grace.max(config.lease).as_secs(),
        config.fore_channel.max_requests,
        config.fore_channel.max_operations,
        config.fore_channel.max_response_size_cached,
        config.limits.max_clients,
        config.limits.max_clients_per_peer,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Nfs4Entry {
        toml::from_str(text).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_empty_table_is_the_server_defaults_with_the_channel_sized_for_the_io_size() {
        let config = nfs4_config(&Nfs4Entry::default(), 1 << 20).expect("defaults");
        let defaults = Nfs4Config::default();
        assert_eq!((config.lease, config.grace, config.limits), (defaults.lease, defaults.grace, defaults.limits));
        assert_eq!(config.fore_channel.max_response_size, (1 << 20) + COMPOUND_HEADROOM);
        let bigger = nfs4_config(&Nfs4Entry::default(), 4 << 20).expect("4 MiB I/O");
        assert_eq!(bigger.fore_channel.max_request_size, (4 << 20) + COMPOUND_HEADROOM);
    }

    #[test]
    fn every_key_is_read() {
        let entry = parse(
            "lease_secs = 30\ngrace_secs = 45\nsession_slots = 16\nmax_operations = 8\ncached_reply_size = \"8KiB\"\n\
             reply_cache = \"1MiB\"\nmax_clients = 3\nmax_clients_per_peer = 2\nmax_sessions_per_client = 2\nmax_connections_per_session = 5\n\
             max_open_owners_per_client = 6\nmax_lock_owners_per_client = 7\nmax_stateids_per_client = 8\n\
             max_locks_per_client = 9\nmax_owners = 10\nmax_stateids = 11\nmax_locks = 12\n",
        );
        let c = nfs4_config(&entry, 1 << 20).expect("valid");
        assert_eq!((c.lease.as_secs(), c.grace.as_secs()), (30, 45));
        let f = c.fore_channel;
        assert_eq!((f.max_requests, f.max_operations, f.max_response_size_cached), (16, 8, 8192));
        let l = c.limits;
        assert_eq!((l.reply_cache_bytes, l.max_clients, l.max_sessions_per_client), (1 << 20, 3, 2));
        assert_eq!(
            (l.max_connections_per_session, l.max_open_owners_per_client, l.max_lock_owners_per_client),
            (5, 6, 7)
        );
        assert_eq!((l.max_stateids_per_client, l.max_locks_per_client, l.max_owners_total), (8, 9, 10));
        assert_eq!((l.max_stateids_total, l.max_locks_total), (11, 12));
        assert_eq!(l.max_clients_per_peer, 2);
    }

    #[test]
    fn a_peers_share_of_client_records_is_read_within_the_table_and_its_default_fits_a_smaller_table() {
        let config = |text: &str| nfs4_config(&parse(text), 1 << 20).map(|c| c.limits);
        assert_eq!(config("max_clients_per_peer = 64").expect("valid").max_clients_per_peer, 64);
        assert_eq!(config("max_clients = 100").expect("valid").max_clients_per_peer, 100, "default clamped");
        assert_eq!(config("").expect("valid").max_clients_per_peer, StateLimits::default().max_clients_per_peer);
        let refused = |text: &str| config(text).map(|_| ()).unwrap_err().to_string();
        assert_eq!(refused("max_clients_per_peer = 0"), "max_clients_per_peer: must be at least 1");
        assert_eq!(
            refused("max_clients = 100\nmax_clients_per_peer = 101"),
            "max_clients_per_peer: 101 is outside 1..=100 (max_clients)"
        );
        assert_eq!(
            refused("max_clients_per_peer = 2000"),
            "max_clients_per_peer: 2000 is outside 1..=1024 (max_clients)"
        );
    }

    #[test]
    fn values_out_of_range_are_refused_naming_the_key() {
        let refused = |text: &str| nfs4_config(&parse(text), 1 << 20).map(|_| ()).unwrap_err().to_string();
        assert_eq!(refused("lease_secs = 5"), "lease_secs: 5 is outside 10..=3600");
        assert_eq!(refused("max_clients = 0"), "max_clients: must be at least 1");
        assert_eq!(refused("max_operations = 1"), "max_operations: 1 is outside 2..=4294967295");
        assert!(refused("cached_reply_size = 100").starts_with("cached_reply_size: 100 is outside 512.."));
        assert!(toml::from_str::<Nfs4Entry>("lease = 3").is_err(), "unknown keys are errors");
    }
}
