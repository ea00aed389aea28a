//! The NFSv4.1 server state machine (RFC 8881), sans I/O: client records, sessions and slots, leases,
//! opens and share reservations, byte-range locks, grace and reclaim. One [`V4State`] per server; the
//! COMPOUND dispatch calls one method per operation with plain arguments and the time, and maps each
//! [`StateError`] to the `nfsstat4` of the same name.
//!
//! | file                | what                                                                 | RFC 8881        |
//! |---------------------|----------------------------------------------------------------------|-----------------|
//! | `machine.rs`        | [`V4State`], its tables, ids, totals                                 |                 |
//! | `client.rs`         | client records, EXCHANGE_ID's case table                             | §2.4, §18.35    |
//! | `admission.rs`      | room for confirmed records: per-peer cap, which record goes          |                 |
//! | `create_session.rs` | CREATE_SESSION: csa_sequence, confirmation, the new session          | §18.36          |
//! | `channel.rs`        | channel attribute negotiation, callback security                     | §18.36.3        |
//! | `session.rs`        | slot tables, SEQUENCE, the reply cache, DESTROY_SESSION, status flags| §2.10, §18.46   |
//! | `connection.rs`     | connections bound to sessions, BIND_CONN_TO_SESSION, the back channel| §2.10.3.1, §18.34 |
//! | `lease.rs`          | lease expiry, `tick`, DESTROY_CLIENTID                               | §8.3, §18.50    |
//! | `owners.rs`         | open- and lock-owners                                                | §2.4.2          |
//! | `stateid.rs`        | stateid tables and checks, TEST_STATEID, FREE_STATEID                | §8.2, §18.38, §18.48 |
//! | `share.rs`          | per-file share reservations                                          | §9.7            |
//! | `open.rs`           | OPEN, OPEN_DOWNGRADE, CLOSE                                          | §18.16, §18.18, §18.2 |
//! | `io.rs`             | the stateid check of READ, WRITE, SETATTR(size)                      | §8.2.4          |
//! | `ranges.rs`         | one file's byte-range locks: split, merge, conflicts                 | §9              |
//! | `range_index.rs`    | every owner's ranges of a file by position: conflicts in O(log n)    | §9              |
//! | `lock.rs`           | LOCK, LOCKT, LOCKU                                                   | §18.10–§18.12   |
//! | `grace.rs`          | grace period, reclaim rules, RECLAIM_COMPLETE, the reclaim record    | §8.4.2, §18.51  |
//! | `reclaim_file.rs`   | the reclaim record on disk (atomic writes)                           |                 |
//!
//! The hot path — SEQUENCE and the READ/WRITE stateid check — is O(1) hash lookups. Memory is bounded by
//! the caps of [`StateLimits`] (the arithmetic is in `config.rs`). Not covered: delegations and pNFS (never
//! granted), state protection other than SP4_NONE, courtesy clients, NFSv4.0's SETCLIENTID and open
//! confirmation.

// Until the COMPOUND dispatch calls in, nothing outside the tests uses this module.
#![cfg_attr(not(test), allow(dead_code, unused_imports))]

mod admission;
mod channel;
mod client;
mod config;
mod connection;
mod create_session;
mod error;
mod grace;
mod io;
mod lease;
mod lock;
mod machine;
mod open;
mod owners;
mod range_index;
mod ranges;
mod reclaim_file;
mod session;
mod share;
mod stateid;
#[cfg(test)]
mod tests;
mod types;

pub use channel::{CallbackSecurity, ChannelAttrs};
pub use client::{ExchangeIdArgs, ExchangeIdOk};
pub use config::{ChannelLimits, StateConfig, StateLimits};
pub use connection::{
    BackchannelInfo, BackchannelState, BindOk, BoundDir, ChannelDir, SEQ4_STATUS_CB_PATH_DOWN,
    SEQ4_STATUS_CB_PATH_DOWN_SESSION,
};
pub use create_session::{
    CreateSessionArgs, SessionGrant, CREATE_SESSION4_FLAG_CONN_BACK_CHAN, CREATE_SESSION4_FLAG_CONN_RDMA,
    CREATE_SESSION4_FLAG_PERSIST,
};
pub use error::StateError;
pub use grace::ReclaimRecord;
pub use lease::TickReport;
pub use lock::{LockArgs, Locker};
pub use machine::{Totals, V4State};
pub use open::{OpenArgs, OpenClaim, OpenOk};
pub use reclaim_file::{ReclaimFile, ReclaimFileError, RECLAIM_FILE};
pub use session::{ForeLimit, SequenceArgs, SequenceOk, Sequenced};
pub use types::*;
