//! `/proc/fs/cifs/Stats` to [`Stats`]: per-share counters and per-command round-trip times.
//!
//! The layout is fs/smb/client/cifs_debug.c `cifs_stats_proc_show` (Linux 6.1, CONFIG_CIFS_STATS2):
//! global lines, then for every server connection — extra channels included, which is why a
//! multichannel mount shows one command table per channel — `Max requests in flight: N`, the table
//! `SMB3 CMD Number TotalTime Fastest Slowest` (times in jiffies, HZ printed in its heading),
//! `N slow responses ...`, and one block per share of that connection (`N) \\host\share`, `SMBs: N`
//! and smb2ops.c `smb2_print_stats`: `Bytes read: N  Bytes written: N`, `Reads: N total N failed`,
//! ...). Tables are summed per command over connections; a share listed twice (one tree connection
//! per user of a multiuser mount) has its counters summed. Unknown lines are skipped; a known line
//! whose numbers do not read is an error naming the line.
//!
//! Bounded: at most [`MAX_SHARES`] shares, [`MAX_OTHERS`] other counters each and [`MAX_COMMANDS`]
//! command numbers are kept; past them [`Stats::truncated`] is set.

mod parse;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::unc::unc_key;

pub use parse::parse_stats;

/// Most shares kept from one Stats.
pub const MAX_SHARES: usize = 1024;
/// Most entries of [`ShareStats::others`] kept per share.
pub const MAX_OTHERS: usize = 48;
/// Most command numbers kept (Linux 6.1 prints NUMBER_OF_SMB2_COMMANDS = 19).
pub const MAX_COMMANDS: usize = 64;

/// CONFIG_HZ of Debian's kernels: the jiffies per second of the command table.
pub const DEBIAN_HZ: u64 = 250;
/// The MS-SMB2 command code of READ.
pub const SMB2_READ: u16 = 8;
/// The MS-SMB2 command code of WRITE.
pub const SMB2_WRITE: u16 = 9;

/// Counters that are levels, not totals (`Open files: N total (local), M open on server`): a window
/// keeps the later reading of them.
const GAUGES: [&str; 2] = ["Open files", "Open files on server"];

/// A share's counters from Stats (an `N) \\host\share` block).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ShareStats {
    /// The tree name as printed (`\\10.99.0.1\bench`).
    pub unc: String,
    /// SMBs sent on this tree connection.
    pub smbs: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub reads: u64,
    pub reads_failed: u64,
    pub writes: u64,
    pub writes_failed: u64,
    /// Every other `Name: N total M failed` line as `Name` → N and `Name failed` → M (`Creates`,
    /// `Closes`, `Flushes`, `Locks`, `IOCTLs`, `QueryInfos`, `OplockBreaks` (N sent), ...), and the
    /// open-file levels `Open files` (local) and `Open files on server`.
    pub others: BTreeMap<String, u64>,
}

/// One command's line of the per-connection table, summed over tables (connections/channels).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CommandTimes {
    /// Responses received.
    pub count: u64,
    /// Sum of their round trips, jiffies.
    pub total_jiffies: u64,
    /// The fastest round trip, jiffies (over tables that counted any).
    pub fastest: u64,
    /// The slowest round trip, jiffies.
    pub slowest: u64,
}

/// What `/proc/fs/cifs/Stats` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub shares: Vec<ShareStats>,
    /// MS-SMB2 command code ([`SMB2_READ`], [`SMB2_WRITE`], ...) → its times over all connections.
    pub commands: BTreeMap<u16, CommandTimes>,
    /// The jiffies per second the table heading states (`Time units are jiffies (250 per second)`).
    pub hz: Option<u64>,
    /// Shares, counters or commands beyond the bounds were left out.
    pub truncated: bool,
}

impl Stats {
    /// The counters of share `unc` (`//10.99.0.1/bench` or `\\10.99.0.1\bench`), host and share
    /// compared case-insensitively.
    pub fn share(&self, unc: &str) -> Option<&ShareStats> {
        let key = unc_key(unc)?;
        self.shares.iter().find(|s| unc_key(&s.unc).as_ref() == Some(&key))
    }

    /// The window from `earlier` to `self`: every share and command of `self` less its earlier
    /// reading (one absent then counts from zero).
    pub fn delta(&self, earlier: &Stats) -> Stats {
        let shares = self
            .shares
            .iter()
            .map(|s| match earlier.share(&s.unc) {
                Some(e) => s.delta(e),
                None => s.clone(),
            })
            .collect();
        let commands = self
            .commands
            .iter()
            .map(|(code, t)| (*code, earlier.commands.get(code).map_or(*t, |e| t.delta(e))))
            .collect();
        Stats { shares, commands, hz: self.hz, truncated: self.truncated || earlier.truncated }
    }
}

impl ShareStats {
    /// Counter growth since `earlier` (saturating: a counter that went back, after a reset by
    /// writing to Stats or a remount, gives 0); the open-file levels keep this reading.
    pub fn delta(&self, earlier: &ShareStats) -> ShareStats {
        let others = self
            .others
            .iter()
            .map(|(name, value)| {
                let grown = if GAUGES.contains(&name.as_str()) {
                    *value
                } else {
                    value.saturating_sub(earlier.others.get(name).copied().unwrap_or(0))
                };
                (name.clone(), grown)
            })
            .collect();
        ShareStats {
            unc: self.unc.clone(),
            smbs: self.smbs.saturating_sub(earlier.smbs),
            bytes_read: self.bytes_read.saturating_sub(earlier.bytes_read),
            bytes_written: self.bytes_written.saturating_sub(earlier.bytes_written),
            reads: self.reads.saturating_sub(earlier.reads),
            reads_failed: self.reads_failed.saturating_sub(earlier.reads_failed),
            writes: self.writes.saturating_sub(earlier.writes),
            writes_failed: self.writes_failed.saturating_sub(earlier.writes_failed),
            others,
        }
    }

    /// Adds `other`'s counters (the same share on another tree connection).
    fn absorb(&mut self, other: &ShareStats, truncated: &mut bool) {
        self.smbs = self.smbs.saturating_add(other.smbs);
        self.bytes_read = self.bytes_read.saturating_add(other.bytes_read);
        self.bytes_written = self.bytes_written.saturating_add(other.bytes_written);
        self.reads = self.reads.saturating_add(other.reads);
        self.reads_failed = self.reads_failed.saturating_add(other.reads_failed);
        self.writes = self.writes.saturating_add(other.writes);
        self.writes_failed = self.writes_failed.saturating_add(other.writes_failed);
        for (name, value) in &other.others {
            if let Some(mine) = self.others.get_mut(name) {
                *mine = mine.saturating_add(*value);
            } else if self.others.len() < MAX_OTHERS {
                self.others.insert(name.clone(), *value);
            } else {
                *truncated = true;
            }
        }
    }
}

impl CommandTimes {
    /// Growth since `earlier`: count and total time saturating; fastest and slowest are this
    /// reading's (the kernel keeps no history to take them apart).
    pub fn delta(&self, earlier: &CommandTimes) -> CommandTimes {
        CommandTimes {
            count: self.count.saturating_sub(earlier.count),
            total_jiffies: self.total_jiffies.saturating_sub(earlier.total_jiffies),
            fastest: self.fastest,
            slowest: self.slowest,
        }
    }

    /// The mean round trip in milliseconds at `hz` jiffies per second ([`DEBIAN_HZ`], or
    /// [`Stats::hz`]); 0 without responses or with `hz` 0.
    pub fn mean_ms(&self, hz: u64) -> f64 {
        if self.count == 0 || hz == 0 {
            return 0.0;
        }
        self.total_jiffies as f64 * 1000.0 / hz as f64 / self.count as f64
    }

    /// Adds one table's line.
    fn absorb(&mut self, row: &CommandTimes) {
        if row.count > 0 {
            self.fastest = if self.count == 0 { row.fastest } else { self.fastest.min(row.fastest) };
            self.slowest = self.slowest.max(row.slowest);
        }
        self.count = self.count.saturating_add(row.count);
        self.total_jiffies = self.total_jiffies.saturating_add(row.total_jiffies);
    }
}
