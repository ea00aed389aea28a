//! The line-by-line reading of Stats (cifs_debug.c `cifs_stats_proc_show`, smb2ops.c
//! `smb2_print_stats`).

use std::collections::HashMap;

use super::{CommandTimes, ShareStats, Stats, MAX_COMMANDS, MAX_OTHERS, MAX_SHARES};
use crate::error::{bad_field, expect_first_line, CifsStatsError};
use crate::num::counter;
use crate::unc::{unc_key, MAX_NAME_BYTES};
use crate::STATS_PATH as FILE;

/// The first line cifs_stats_proc_show prints.
const HEADER: &str = "Resources in use";
/// Longest counter name kept in [`ShareStats::others`].
const MAX_COUNTER_NAME: usize = 32;

/// Parses the whole of `/proc/fs/cifs/Stats` (or a saved copy).
pub fn parse_stats(text: &str) -> Result<Stats, CifsStatsError> {
    expect_first_line(text, FILE, HEADER)?;
    let mut parser = Parser { out: Stats::default(), in_table: false, block: None, index: HashMap::new() };
    for (index, line) in text.lines().enumerate() {
        parser.line(index + 1, line)?;
    }
    parser.finish_block();
    Ok(parser.out)
}

struct Parser {
    out: Stats,
    /// Between a table's heading and its first non-row line.
    in_table: bool,
    /// The share block being read.
    block: Option<ShareStats>,
    /// Where each share kept is in `out.shares`, by lowercased host and share.
    index: HashMap<(String, String), usize>,
}

impl Parser {
    fn line(&mut self, number: usize, line: &str) -> Result<(), CifsStatsError> {
        let trimmed = line.trim();
        if trimmed.starts_with("Max requests in flight:") {
            self.finish_block();
        } else if let Some(rest) = trimmed.strip_prefix("Total time spent processing by command.") {
            self.out.hz = Some(hz(number, rest, line)?);
        } else if trimmed.starts_with("SMB3 CMD") {
            self.in_table = true;
        } else if self.in_table && trimmed.starts_with("--------") {
            // The heading's underline.
        } else if let Some(tree) = share_header(line) {
            self.in_table = false;
            self.finish_block();
            if tree.len() > 2 * MAX_NAME_BYTES + 3 {
                self.out.truncated = true;
            } else {
                self.block = Some(ShareStats { unc: tree.to_string(), ..ShareStats::default() });
            }
        } else if self.in_table && is_row(trimmed) {
            self.row(number, trimmed)?;
        } else {
            self.in_table = false;
            if let Some(block) = self.block.as_mut() {
                share_line(block, number, trimmed, &mut self.out.truncated)?;
            }
        }
        Ok(())
    }

    /// `  %d\t\t%d\t%llu\t\t%u\t%u`: command, number, total time, fastest, slowest.
    fn row(&mut self, number: usize, trimmed: &str) -> Result<(), CifsStatsError> {
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        let bad = || bad_field(FILE, number, "command table row", trimmed);
        let [code, count, total, fastest, slowest] = fields.as_slice() else { return Err(bad()) };
        let code: u16 = code.parse().map_err(|_| bad())?;
        let row = CommandTimes {
            count: counter(count).ok_or_else(bad)?,
            total_jiffies: total.parse().map_err(|_| bad())?,
            fastest: fastest.parse().map_err(|_| bad())?,
            slowest: slowest.parse().map_err(|_| bad())?,
        };
        if let Some(entry) = self.out.commands.get_mut(&code) {
            entry.absorb(&row);
        } else if self.out.commands.len() < MAX_COMMANDS {
            self.out.commands.entry(code).or_default().absorb(&row);
        } else {
            self.out.truncated = true;
        }
        Ok(())
    }

    fn finish_block(&mut self) {
        let Some(block) = self.block.take() else { return };
        let key = unc_key(&block.unc).unwrap_or_else(|| (block.unc.clone(), String::new()));
        if let Some(existing) = self.index.get(&key).and_then(|&i| self.out.shares.get_mut(i)) {
            existing.absorb(&block, &mut self.out.truncated);
        } else if self.out.shares.len() < MAX_SHARES {
            self.index.insert(key, self.out.shares.len());
            self.out.shares.push(block);
        } else {
            self.out.truncated = true;
        }
    }
}

/// `Time units are jiffies (%d per second)`.
fn hz(number: usize, rest: &str, line: &str) -> Result<u64, CifsStatsError> {
    let value = rest.split_once("jiffies (").and_then(|(_, v)| v.split_once(" per second")).map(|(v, _)| v);
    value.and_then(|v| v.parse().ok()).ok_or_else(|| bad_field(FILE, number, "jiffies per second", line))
}

/// A table row starts with the command number; `  %d slow responses from %s for command %d` does too
/// but is not one.
fn is_row(trimmed: &str) -> bool {
    trimmed.starts_with(|c: char| c.is_ascii_digit()) && !trimmed.contains(" slow responses from ")
}

/// The tree name of `\n%d) %s` (plus `\tDISCONNECTED ` when the tree connection is down), at column 0.
fn share_header(line: &str) -> Option<&str> {
    let (index, rest) = line.split_once(") ")?;
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) || !rest.starts_with("\\\\") {
        return None;
    }
    let tree = rest.split('\t').next().unwrap_or(rest).trim_end();
    (tree.len() > 2).then_some(tree)
}

/// One line of a share block (cifs_stats_proc_show, smb2ops.c `smb2_print_stats`).
fn share_line(
    block: &mut ShareStats,
    number: usize,
    trimmed: &str,
    truncated: &mut bool,
) -> Result<(), CifsStatsError> {
    let num = |text: Option<&str>, field: &'static str| {
        text.and_then(counter).ok_or_else(|| bad_field(FILE, number, field, trimmed))
    };
    if let Some(rest) = trimmed.strip_prefix("SMBs:") {
        block.smbs = num(Some(rest.trim()), "SMBs")?;
    } else if trimmed.starts_with("Bytes read:") {
        // `Bytes read: %llu  Bytes written: %llu`
        let t: Vec<&str> = trimmed.split_whitespace().collect();
        if t.len() != 6 || t[3] != "Bytes" || t[4] != "written:" {
            return Err(bad_field(FILE, number, "Bytes read/written", trimmed));
        }
        block.bytes_read = num(Some(t[2]), "Bytes read")?;
        block.bytes_written = num(Some(t[5]), "Bytes written")?;
    } else if let Some(rest) = trimmed.strip_prefix("Open files:") {
        // `Open files: %d total (local), %d open on server`
        let t: Vec<&str> = rest.split_whitespace().collect();
        if t.len() != 7 || t[1] != "total" || t[4] != "open" {
            return Err(bad_field(FILE, number, "Open files", trimmed));
        }
        put(block, "Open files", num(Some(t[0]), "Open files")?, truncated);
        put(block, "Open files on server", num(Some(t[3]), "Open files")?, truncated);
    } else if let Some((name, rest)) = trimmed.split_once(": ") {
        // `%s: %d total %d failed` (`sent` for OplockBreaks); other shapes (an SMB1 mount's
        // cifs_print_stats) are skipped.
        let t: Vec<&str> = rest.split_whitespace().collect();
        let counter_like =
            name.len() <= MAX_COUNTER_NAME && !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric());
        if !counter_like || t.len() != 4 || !matches!(t[1], "total" | "sent") || t[3] != "failed" {
            return Ok(());
        }
        let total = num(Some(t[0]), "share counter")?;
        let failed = num(Some(t[2]), "share counter")?;
        match name {
            "Reads" => (block.reads, block.reads_failed) = (total, failed),
            "Writes" => (block.writes, block.writes_failed) = (total, failed),
            _ => {
                put(block, name, total, truncated);
                put(block, &format!("{name} failed"), failed, truncated);
            }
        }
    }
    Ok(())
}

fn put(block: &mut ShareStats, name: &str, value: u64, truncated: &mut bool) {
    if block.others.contains_key(name) || block.others.len() < MAX_OTHERS {
        block.others.insert(name.to_string(), value);
    } else {
        *truncated = true;
    }
}
