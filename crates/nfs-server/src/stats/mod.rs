//! Per-procedure counters and latency for the programs we serve — NFSv3, NFSv4 (COMPOUND, and each
//! operation inside one as its own row), MOUNT and the port mapper — lock-free: every figure is an atomic
//! updated with relaxed ordering, and the tables are sharded by thread ([`SHARDS`] copies, each thread
//! sticks to one), so two network threads recording READs do not bounce the same cache lines. Recording a
//! call is a handful of `fetch_add`s and never takes a lock; [`Stats::report`] sums the shards.
//!
//! Beside the procedures: the bytes of READ/READLINK payload served, and how many of them the server
//! copied into a buffer of its own on the way (a `dir:` backend's read, a slot cache's copy, a
//! transport's inline or Reply-chunk copy, [`Stats::payload_copied`]): "bytes copied per byte served", 0
//! when replies go out from the `mem:` backend's pages.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use nfs3_proto::mount::MountErr3;
use nfs3_proto::{mount_proc_name, nfs3_proc_name, NfsErr3};
use nfs4_proto::{op_name, NfsErr4, OpNum4};

mod report;

/// Histogram buckets: bucket `i` counts latencies in `[2^(i-1), 2^i)` nanoseconds (bucket 0: 0 ns).
const BUCKETS: usize = 40;
/// Copies of the per-procedure tables; a thread records into copy `thread index % SHARDS`.
const SHARDS: usize = 4;
/// NFSv4 operation numbers counted: every `nfs_opnum4` up to REMOVEXATTR (76); OP_ILLEGAL is counted in
/// row 0, which no operation uses.
const NFS4_OPS: usize = 77;

/// The programs whose procedures are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Program {
    Nfs,
    /// NFSv4's procedures: NULL and COMPOUND.
    Nfs4,
    /// The operations inside NFSv4 COMPOUNDs, by operation number.
    Nfs4Op,
    Mount,
    Portmap,
}

impl Program {
    fn name(self) -> &'static str {
        match self {
            Program::Nfs => "NFSv3",
            Program::Nfs4 => "NFSv4",
            Program::Nfs4Op => "NFSv4op",
            Program::Mount => "MOUNTv3",
            Program::Portmap => "PORTMAP",
        }
    }

    fn proc_name(self, proc: usize) -> &'static str {
        match self {
            Program::Nfs => nfs3_proc_name(proc as u32),
            Program::Nfs4 => ["NULL", "COMPOUND"].get(proc).copied().unwrap_or("UNKNOWN"),
            Program::Nfs4Op if proc == 0 => "ILLEGAL",
            Program::Nfs4Op => op_name(proc as u32),
            Program::Mount => mount_proc_name(proc as u32),
            Program::Portmap => PMAP_NAMES.get(proc).copied().unwrap_or("UNKNOWN"),
        }
    }

    /// The row of procedure `proc` (NFSv4's OP_ILLEGAL in the unused row 0).
    fn row(self, proc: u32) -> usize {
        match self {
            Program::Nfs4Op if proc == OpNum4::Illegal.as_u32() => 0,
            _ => proc as usize,
        }
    }

    /// Rows of the program's table.
    fn rows(self) -> usize {
        match self {
            Program::Nfs => 22,
            Program::Nfs4 => 2,
            Program::Nfs4Op => NFS4_OPS,
            Program::Mount => 6,
            Program::Portmap => PMAP_NAMES.len(),
        }
    }

    /// Failure statuses counted one by one.
    fn status_slots(self) -> usize {
        match self {
            Program::Nfs => NfsErr3::ALL.len(),
            Program::Nfs4 | Program::Nfs4Op => NfsErr4::ALL.len(),
            Program::Mount => MountErr3::ALL.len(),
            Program::Portmap => 0,
        }
    }

    /// The slot of a failure status in `by_status`, and back.
    fn status_slot(self, status: u32) -> Option<usize> {
        match self {
            Program::Nfs => NfsErr3::ALL.iter().position(|e| e.as_u32() == status),
            Program::Nfs4 | Program::Nfs4Op => NfsErr4::ALL.iter().position(|e| e.as_u32() == status),
            Program::Mount => MountErr3::ALL.iter().position(|e| e.as_u32() == status),
            Program::Portmap => None,
        }
    }

    fn status_name(self, slot: usize) -> &'static str {
        match self {
            Program::Nfs => NfsErr3::ALL.get(slot).map_or("?", |e| e.name()),
            Program::Nfs4 | Program::Nfs4Op => NfsErr4::ALL.get(slot).map_or("?", |e| e.name()),
            Program::Mount => MountErr3::ALL.get(slot).map_or("?", |e| e.name()),
            Program::Portmap => "?",
        }
    }
}

/// Port mapper v2 and rpcbind v3/v4 procedure names by number (RFC 1833).
const PMAP_NAMES: [&str; 13] = [
    "NULL",
    "SET",
    "UNSET",
    "GETPORT/GETADDR",
    "DUMP",
    "CALLIT",
    "GETTIME",
    "UADDR2TADDR",
    "TADDR2UADDR",
    "GETVERSADDR",
    "INDIRECT",
    "GETADDRLIST",
    "GETSTAT",
];

/// RPC-level events that are not a procedure's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RpcEvent {
    /// A record that is no answerable call (a reply, or too short for an xid): dropped.
    Dropped,
    GarbageArgs,
    RpcMismatch,
    AuthError,
    ProgUnavail,
    ProgMismatch,
    ProcUnavail,
    /// A retransmission answered from the duplicate request cache.
    DrcReplay,
    /// A retransmission of a call still executing: dropped.
    DrcInProgress,
    /// An NFSv4 retry answered from its session slot's reply cache.
    SlotReplay,
}

const RPC_EVENTS: [(RpcEvent, &str); 10] = [
    (RpcEvent::Dropped, "dropped records"),
    (RpcEvent::GarbageArgs, "GARBAGE_ARGS"),
    (RpcEvent::RpcMismatch, "RPC_MISMATCH"),
    (RpcEvent::AuthError, "AUTH_ERROR"),
    (RpcEvent::ProgUnavail, "PROG_UNAVAIL"),
    (RpcEvent::ProgMismatch, "PROG_MISMATCH"),
    (RpcEvent::ProcUnavail, "PROC_UNAVAIL"),
    (RpcEvent::DrcReplay, "DRC replays"),
    (RpcEvent::DrcInProgress, "DRC drops (in progress)"),
    (RpcEvent::SlotReplay, "NFSv4 slot replays"),
];

#[derive(Debug)]
struct ProcStats {
    calls: AtomicU64,
    errors: AtomicU64,
    bytes_in: AtomicU64,
    bytes_out: AtomicU64,
    ns_total: AtomicU64,
    ns_min: AtomicU64,
    ns_max: AtomicU64,
    histogram: [AtomicU64; BUCKETS],
    by_status: Box<[AtomicU64]>,
}

impl ProcStats {
    fn new(status_slots: usize) -> Self {
        ProcStats {
            calls: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            bytes_in: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            ns_total: AtomicU64::new(0),
            ns_min: AtomicU64::new(u64::MAX),
            ns_max: AtomicU64::new(0),
            histogram: std::array::from_fn(|_| AtomicU64::new(0)),
            by_status: (0..status_slots).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// Bytes of READ/READLINK payload the server sent, and how many of them it copied into a buffer of its
/// own on the way (each copy counts: a byte copied twice counts twice).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PayloadBytes {
    pub served: u64,
    pub copied: u64,
}

impl PayloadBytes {
    /// Bytes copied per byte served; `None` before any byte was served.
    pub fn copied_per_served(&self) -> Option<f64> {
        (self.served != 0).then(|| self.copied as f64 / self.served as f64)
    }
}

/// One completed call, as recorded.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallRecord {
    pub program: Program,
    pub proc: u32,
    /// The procedure's status word (0: success); ignored for programs without one.
    pub status: u32,
    pub bytes_in: usize,
    pub bytes_out: usize,
    pub elapsed_ns: u64,
}

/// One copy of the per-procedure tables.
#[derive(Debug)]
struct Tables {
    nfs: Box<[ProcStats]>,
    nfs4: Box<[ProcStats]>,
    nfs4_ops: Box<[ProcStats]>,
    mount: Box<[ProcStats]>,
    portmap: Box<[ProcStats]>,
    payload_served: AtomicU64,
    payload_copied: AtomicU64,
}

impl Default for Tables {
    fn default() -> Self {
        let table = |p: Program| (0..p.rows()).map(|_| ProcStats::new(p.status_slots())).collect::<Box<[_]>>();
        Tables {
            nfs: table(Program::Nfs),
            nfs4: table(Program::Nfs4),
            nfs4_ops: table(Program::Nfs4Op),
            mount: table(Program::Mount),
            portmap: table(Program::Portmap),
            payload_served: AtomicU64::new(0),
            payload_copied: AtomicU64::new(0),
        }
    }
}

impl Tables {
    fn table(&self, program: Program) -> &[ProcStats] {
        match program {
            Program::Nfs => &self.nfs,
            Program::Nfs4 => &self.nfs4,
            Program::Nfs4Op => &self.nfs4_ops,
            Program::Mount => &self.mount,
            Program::Portmap => &self.portmap,
        }
    }
}

/// The shard of the calling thread: threads are numbered as they first record.
fn thread_shard() -> usize {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    thread_local! {
        static SHARD: usize = (NEXT.fetch_add(1, Relaxed) % SHARDS as u64) as usize;
    }
    SHARD.with(|s| *s)
}

/// Counters for the whole server.
#[derive(Debug)]
pub(crate) struct Stats {
    shards: Box<[Tables]>,
    events: [AtomicU64; RPC_EVENTS.len()],
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            shards: (0..SHARDS).map(|_| Tables::default()).collect(),
            events: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl Stats {
    pub(crate) fn record(&self, call: CallRecord) {
        let Some(tables) = self.shards.get(thread_shard()) else { return };
        let Some(p) = tables.table(call.program).get(call.program.row(call.proc)) else { return };
        p.calls.fetch_add(1, Relaxed);
        // NFSv4 operations inside a COMPOUND carry no byte counts (the COMPOUND does): no locked add for 0.
        if call.bytes_in != 0 {
            p.bytes_in.fetch_add(call.bytes_in as u64, Relaxed);
        }
        if call.bytes_out != 0 {
            p.bytes_out.fetch_add(call.bytes_out as u64, Relaxed);
        }
        p.ns_total.fetch_add(call.elapsed_ns, Relaxed);
        // Plain loads first: after warm-up the extremes rarely move, and a load does not own the line.
        if call.elapsed_ns < p.ns_min.load(Relaxed) {
            p.ns_min.fetch_min(call.elapsed_ns, Relaxed);
        }
        if call.elapsed_ns > p.ns_max.load(Relaxed) {
            p.ns_max.fetch_max(call.elapsed_ns, Relaxed);
        }
        let bucket = (64 - call.elapsed_ns.leading_zeros() as usize).min(BUCKETS - 1);
        if let Some(b) = p.histogram.get(bucket) {
            b.fetch_add(1, Relaxed);
        }
        if call.status != 0 && call.program != Program::Portmap {
            p.errors.fetch_add(1, Relaxed);
            if let Some(slot) = call.program.status_slot(call.status).and_then(|s| p.by_status.get(s)) {
                slot.fetch_add(1, Relaxed);
            }
        }
    }

    /// Payload bytes sent in replies, and the bytes of them copied to make those replies.
    pub(crate) fn payload(&self, served: u64, copied: u64) {
        let Some(tables) = self.shards.get(thread_shard()) else { return };
        if served != 0 {
            tables.payload_served.fetch_add(served, Relaxed);
        }
        self.payload_copied(copied);
    }

    /// Payload bytes copied after the reply was made (a transport's copy into its own buffer).
    pub(crate) fn payload_copied(&self, copied: u64) {
        if let Some(tables) = self.shards.get(thread_shard()).filter(|_| copied != 0) {
            tables.payload_copied.fetch_add(copied, Relaxed);
        }
    }

    /// (payload bytes served, payload bytes copied) over the shards.
    pub(crate) fn payload_bytes(&self) -> PayloadBytes {
        let sum = |f: fn(&Tables) -> &AtomicU64| self.shards.iter().map(|t| f(t).load(Relaxed)).sum();
        PayloadBytes { served: sum(|t| &t.payload_served), copied: sum(|t| &t.payload_copied) }
    }

    pub(crate) fn event(&self, event: RpcEvent) {
        if let Some(i) = RPC_EVENTS.iter().position(|(e, _)| *e == event) {
            if let Some(counter) = self.events.get(i) {
                counter.fetch_add(1, Relaxed);
            }
        }
    }

    /// Calls recorded for one procedure (tests, monitoring).
    pub(crate) fn calls(&self, program: Program, proc: u32) -> u64 {
        self.summary(program, program.row(proc)).calls
    }

    pub(crate) fn events(&self, event: RpcEvent) -> u64 {
        RPC_EVENTS.iter().position(|(e, _)| *e == event).and_then(|i| self.events.get(i)).map_or(0, |c| c.load(Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(proc: u32, status: u32, elapsed_ns: u64) -> CallRecord {
        CallRecord { program: Program::Nfs, proc, status, bytes_in: 100, bytes_out: 200, elapsed_ns }
    }

    #[test]
    fn report_lists_called_procedures_with_their_failures_by_status() {
        let stats = Stats::default();
        stats.record(call(6, 0, 10_000));
        stats.record(call(6, 0, 30_000));
        stats.record(call(3, NfsErr3::NoEnt.as_u32(), 5_000));
        stats.event(RpcEvent::GarbageArgs);
        let report = stats.report();
        assert!(report.contains("READ"), "{report}");
        assert!(report.contains("LOOKUP"), "{report}");
        assert!(report.contains("1 × NFS3ERR_NOENT"), "{report}");
        assert!(report.contains("GARBAGE_ARGS: 1"), "{report}");
        assert!(!report.contains("WRITE"), "uncalled procedures are left out: {report}");
        assert_eq!(stats.calls(Program::Nfs, 6), 2);
    }

    #[test]
    fn percentiles_are_bucket_upper_edges() {
        let stats = Stats::default();
        for _ in 0..99 {
            stats.record(call(1, 0, 1_000));
        }
        stats.record(call(1, 0, 1_000_000));
        let p = stats.summary(Program::Nfs, 1);
        assert_eq!(p.percentile_ns(0.5), 1024);
        assert_eq!(p.percentile_ns(1.0), 1 << 20);
    }

    #[test]
    fn calls_from_many_threads_add_up_across_shards() {
        let stats = Stats::default();
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        stats.record(call(6, 0, 500));
                    }
                });
            }
        });
        assert_eq!(stats.calls(Program::Nfs, 6), 8000);
        assert_eq!(stats.summary(Program::Nfs, 6).bytes_out, 8000 * 200);
    }

    #[test]
    fn copies_per_byte_served_sum_the_shards_and_show_in_the_report() {
        let stats = Stats::default();
        assert_eq!(stats.payload_bytes().copied_per_served(), None);
        assert!(!stats.report().contains("bytes copied per byte served"), "nothing served yet");
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| stats.payload(4096, 1024));
            }
        });
        stats.payload_copied(4096);
        let bytes = stats.payload_bytes();
        assert_eq!((bytes.served, bytes.copied), (4 * 4096, 2 * 4096));
        assert_eq!(bytes.copied_per_served(), Some(0.5));
        assert!(stats.report().contains("bytes copied per byte served: 0.500"), "{}", stats.report());
    }

    #[test]
    fn out_of_range_procedures_are_ignored() {
        let stats = Stats::default();
        stats.record(call(99, 0, 1));
        assert_eq!(stats.calls(Program::Nfs, 99), 0);
    }
}
