//! The tab-indented lines of one NFS section, in the order `nfs_show_stats` (fs/nfs/super.c) and
//! `rpc_clnt_show_stats` (net/sunrpc/stats.c) print them. Each line is recognised by its label; the
//! per-op lines are those after `per-op statistics`.

use std::collections::HashSet;

use crate::counters::{Counters, BYTE_NAMES, EVENT_NAMES, FSCACHE_NAMES};
use crate::mount::{MountOption, NfsStats, OpStats, RpcInfo};
use crate::transport::Transport;

/// Accumulates one section's lines into [`NfsStats`].
pub(super) struct SectionParser {
    stats: NfsStats,
    in_ops: bool,
    /// Op names read so far: the kernel prints each once, so a repeat is garbage and skipped.
    op_names: HashSet<String>,
}

impl SectionParser {
    pub(super) fn new() -> SectionParser {
        SectionParser { stats: NfsStats::default(), in_ops: false, op_names: HashSet::new() }
    }

    pub(super) fn finish(self) -> NfsStats {
        self.stats
    }

    /// Reads one indented line; a line it cannot understand is recorded in `skipped_lines`.
    pub(super) fn line(&mut self, number: usize, line: &str) {
        if self.read(line.trim()).is_none() {
            self.stats.skipped_lines.push(number);
        }
    }

    fn read(&mut self, line: &str) -> Option<()> {
        let s = &mut self.stats;
        if line == "per-op statistics" {
            self.in_ops = true;
        } else if let Some(v) = label(line, "opts:") {
            s.opts = option_list(v);
        } else if let Some(v) = label(line, "age:") {
            s.age = Some(v.parse().ok()?);
        } else if let Some(v) = label(line, "impl_id:") {
            s.impl_id = Some(v.to_string());
        } else if let Some(v) = label(line, "caps:") {
            s.caps = option_list(v);
        } else if let Some(v) = label(line, "nfsv4:") {
            s.nfsv4 = option_list(v);
        } else if let Some(v) = label(line, "sec:") {
            s.sec = option_list(v);
        } else if let Some(v) = label(line, "events:") {
            s.events = Counters::named(&EVENT_NAMES, numbers(v)?);
        } else if let Some(v) = label(line, "bytes:") {
            s.bytes = Counters::named(&BYTE_NAMES, numbers(v)?);
        } else if let Some(v) = label(line, "fsc:") {
            s.fscache = Some(Counters::named(&FSCACHE_NAMES, numbers(v)?));
        } else if let Some(v) = label(line, "RPC iostats version:") {
            s.rpc = Some(rpc_info(v)?);
        } else if let Some(v) = label(line, "xprt:") {
            let mut words = v.split_whitespace();
            let proto = words.next()?;
            let fields: Vec<&str> = words.collect();
            s.transports.push(Transport::from_fields(proto, &fields)?);
        } else if self.in_ops {
            let op = op_line(line)?;
            if !self.op_names.insert(op.name.clone()) {
                return None;
            }
            s.ops.push(op);
        } else {
            return None;
        }
        Some(())
    }
}

/// The text after `name` when `line` starts with it.
fn label<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.strip_prefix(name).map(str::trim)
}

/// `a,b=c,...` into options (empty entries dropped). Values are kept as printed: `pnfs=not
/// configured` has a blank.
fn option_list(text: &str) -> Vec<MountOption> {
    text.split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| match e.split_once('=') {
            Some((k, v)) => MountOption { key: k.to_string(), value: Some(v.to_string()) },
            None => MountOption { key: e.to_string(), value: None },
        })
        .collect()
}

/// Whitespace-separated numbers (each row ends in a blank, `seq_printf("%lu ")`); `None` if any is
/// not one.
fn numbers(text: &str) -> Option<Vec<u64>> {
    text.split_whitespace().map(|w| w.parse().ok()).collect()
}

/// `1.1  p/v: 100003/3 (nfs)` (`rpc_clnt_show_stats`).
fn rpc_info(text: &str) -> Option<RpcInfo> {
    let mut words = text.split_whitespace();
    let version = words.next()?.to_string();
    let mut info = RpcInfo { version, program: None, program_version: None, program_name: None };
    if words.next() == Some("p/v:") {
        if let Some((p, v)) = words.next().and_then(|pv| pv.split_once('/')) {
            info.program = p.parse().ok();
            info.program_version = v.parse().ok();
        }
        info.program_name = words.next().map(|n| n.trim_start_matches('(').trim_end_matches(')').to_string());
    }
    Some(info)
}

/// `NAME: ops ntrans timeouts bytes_sent bytes_recv queue rtt execute [errors]`
/// (`_print_rpc_iostats`; the name is `%12s`, longer names push the colon right). Fields past the
/// ninth (a newer kernel) are ignored.
fn op_line(line: &str) -> Option<OpStats> {
    let (name, rest) = line.split_once(':')?;
    let name = name.trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let mut n = rest.split_whitespace().map(|w| w.parse::<u64>());
    let mut next = || n.next()?.ok();
    let op = OpStats {
        name: name.to_string(),
        ops: next()?,
        ntrans: next()?,
        timeouts: next()?,
        bytes_sent: next()?,
        bytes_recv: next()?,
        queue_ms: next()?,
        rtt_ms: next()?,
        execute_ms: next()?,
        errors: next(),
    };
    Some(op)
}
