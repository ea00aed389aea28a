//! What a Linux cifs (SMB2/3) mount negotiated and what it counted, read from `/proc/fs/cifs/DebugData`
//! and `/proc/fs/cifs/Stats` — the SMB sibling of `mountstats`, whose [`OptionCheck`]/[`Verdict`] it
//! reuses so reports treat NFS, SMB and block cases alike.
//!
//! - [`parse_debug_data`] reads DebugData into one [`Connection`] per server connection: host, dialect
//!   (`Dialect 0x311` → `3.1.1`), whether it is SMB Direct and its [`SmbDirect`] parameters, the
//!   channel count (1 + `Extra Channels`), credits and the shares it carries;
//!   [`DebugData::for_share`] finds the connection of a mount's share.
//! - [`parse_stats`] reads Stats into per-share [`ShareStats`] (SMBs, bytes, reads/writes and the
//!   other per-command totals) and per-command [`CommandTimes`] summed over connections (a
//!   multichannel mount prints one table per channel); [`Stats::share`] looks a share up.
//!   [`ShareStats::delta`], [`CommandTimes::delta`] and [`Stats::delta`] turn two readings into a
//!   window; [`CommandTimes::mean_ms`] converts jiffies with the kernel's HZ ([`DEBIAN_HZ`], or the
//!   [`Stats::hz`] the table heading states).
//! - [`check_options`] puts a mount.cifs option string beside the connection and the mount's
//!   /proc/self/mounts line: one [`OptionCheck`] per asked option. Passwords are never shown.
//! - [`unc_of_target`] turns a mount target `//HOST/SHARE/path` into the `\\HOST\SHARE` both files print.
//!
//! Formats follow Linux 6.1's fs/smb/client/cifs_debug.c (`cifs_debug_data_proc_show`,
//! `cifs_stats_proc_show`) and smb2ops.c (`smb2_print_stats`), named where each is read. Sans-I/O:
//! everything takes text. Hostile text gives a [`CifsStatsError`] naming the file and line, or its
//! unknown lines are skipped; nothing panics, and what is kept is bounded (connections, shares,
//! counters and commands are capped, see [`debugdata::MAX_CONNECTIONS`] and [`stats::MAX_SHARES`];
//! the `truncated` flags say when a cap was hit).

mod checks;
pub mod debugdata;
mod error;
mod num;
mod optstr;
pub mod stats;
mod unc;

pub use checks::check_options;
pub use debugdata::{dialect_name, parse_debug_data, Connection, DebugData, SmbDirect};
pub use error::CifsStatsError;
pub use mountstats::{differs, OptionCheck, Verdict};
pub use stats::{parse_stats, CommandTimes, ShareStats, Stats, DEBIAN_HZ, SMB2_READ, SMB2_WRITE};
pub use unc::unc_of_target;

/// Where the kernel shows its cifs connections.
pub const DEBUG_DATA_PATH: &str = "/proc/fs/cifs/DebugData";
/// Where the kernel shows its cifs counters.
pub const STATS_PATH: &str = "/proc/fs/cifs/Stats";
