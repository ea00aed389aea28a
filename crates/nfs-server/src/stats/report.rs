//! Reading the counters back: the shards summed per procedure, and the printable table.

use std::fmt::Write as _;
use std::sync::atomic::Ordering::Relaxed;

use super::{ProcStats, Program, Stats, BUCKETS, RPC_EVENTS};

/// One procedure's figures summed over the shards, for reporting.
#[derive(Debug, Clone)]
pub(super) struct Summary {
    pub(super) calls: u64,
    pub(super) errors: u64,
    pub(super) bytes_in: u64,
    pub(super) bytes_out: u64,
    pub(super) ns_total: u64,
    pub(super) ns_min: u64,
    pub(super) ns_max: u64,
    pub(super) histogram: [u64; BUCKETS],
    pub(super) by_status: Vec<u64>,
}

impl Default for Summary {
    fn default() -> Self {
        Summary {
            calls: 0,
            errors: 0,
            bytes_in: 0,
            bytes_out: 0,
            ns_total: 0,
            ns_min: u64::MAX,
            ns_max: 0,
            histogram: [0; BUCKETS],
            by_status: Vec::new(),
        }
    }
}

impl Summary {
    fn add(&mut self, p: &ProcStats) {
        self.calls += p.calls.load(Relaxed);
        self.errors += p.errors.load(Relaxed);
        self.bytes_in += p.bytes_in.load(Relaxed);
        self.bytes_out += p.bytes_out.load(Relaxed);
        self.ns_total += p.ns_total.load(Relaxed);
        self.ns_min = self.ns_min.min(p.ns_min.load(Relaxed));
        self.ns_max = self.ns_max.max(p.ns_max.load(Relaxed));
        for (sum, b) in self.histogram.iter_mut().zip(&p.histogram) {
            *sum += b.load(Relaxed);
        }
        self.by_status.resize(self.by_status.len().max(p.by_status.len()), 0);
        for (sum, b) in self.by_status.iter_mut().zip(p.by_status.iter()) {
            *sum += b.load(Relaxed);
        }
    }

    /// The latency below which `fraction` of the calls finished, as the upper edge of a bucket.
    pub(super) fn percentile_ns(&self, fraction: f64) -> u64 {
        let total: u64 = self.histogram.iter().sum();
        let target = (((total as f64) * fraction).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.histogram.iter().enumerate() {
            seen += c;
            if seen >= target {
                return 1u64.checked_shl(i as u32).unwrap_or(u64::MAX);
            }
        }
        0
    }
}

impl Stats {
    pub(super) fn summary(&self, program: Program, proc: usize) -> Summary {
        let mut sum = Summary::default();
        for tables in self.shards.iter() {
            if let Some(p) = tables.table(program).get(proc) {
                sum.add(p);
            }
        }
        sum
    }

    /// A printable table: one row per procedure that was called, its failures by status, then RPC events.
    pub(crate) fn report(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<8} {:<20} {:>10} {:>8} {:>10} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}",
            "program",
            "procedure",
            "calls",
            "errors",
            "mean_us",
            "min_us",
            "max_us",
            "p50_us<=",
            "p99_us<=",
            "bytes_in",
            "bytes_out"
        );
        for program in [Program::Nfs, Program::Nfs4, Program::Nfs4Op, Program::Mount, Program::Portmap] {
            let procs = self.shards.first().map_or(0, |t| t.table(program).len());
            for proc in 0..procs {
                let p = self.summary(program, proc);
                let calls = p.calls;
                if calls == 0 {
                    continue;
                }
                let us = |ns: u64| ns as f64 / 1000.0;
                let _ = writeln!(
                    out,
                    "{:<8} {:<20} {:>10} {:>8} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>12} {:>12}",
                    program.name(),
                    program.proc_name(proc),
                    calls,
                    p.errors,
                    us(p.ns_total / calls),
                    us(p.ns_min),
                    us(p.ns_max),
                    us(p.percentile_ns(0.5)),
                    us(p.percentile_ns(0.99)),
                    p.bytes_in,
                    p.bytes_out,
                );
                for (slot, &count) in p.by_status.iter().enumerate() {
                    if count > 0 {
                        let _ = writeln!(out, "{:<8} {:<20}   {} × {}", "", "", count, program.status_name(slot));
                    }
                }
            }
        }
        let payload = self.payload_bytes();
        if let Some(ratio) = payload.copied_per_served() {
            let _ = writeln!(
                out,
                "payload: {} bytes served, {} bytes copied, bytes copied per byte served: {ratio:.3}",
                payload.served, payload.copied
            );
        }
        for ((_, name), count) in RPC_EVENTS.iter().zip(&self.events) {
            let count = count.load(Relaxed);
            if count > 0 {
                let _ = writeln!(out, "rpc: {name}: {count}");
            }
        }
        out
    }
}
