//! The results of a comparison as every output renders them (terminal, Markdown, CSV, HTML): plain data,
//! serialisable, so that a report can be re-rendered from `report.json` and tests can build one by hand.

use crate::plan::Case;
use mount_options::Proto;
use serde::{Deserialize, Serialize};

/// A whole comparison: what ran, where, and what came out.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Report {
    /// The plan's title, e.g. "TCP vs RDMA on the embedded RAM server".
    pub title: String,
    /// When the comparison started, UTC, "2026-11-22 11:40:03 UTC".
    pub started: String,
    /// Wall-clock seconds the whole plan took.
    pub duration_s: f64,
    /// The client host: "hostname: 2 CPUs (model), 24 GiB, Linux 6.1.0-...".
    pub machine: String,
    /// What was measured against: "embedded RAM server (nfsbench serve, mem:6GiB) on 127.0.0.1" or the target.
    pub target: String,
    /// Facts every reader must see, e.g. "RDMA over the soft provider: it stands in for an RDMA NIC ...".
    pub notes: Vec<String>,
    /// Repetitions per cell.
    pub reps: u32,
    /// The case every ratio is taken against.
    pub baseline_case: String,
    pub cases: Vec<CaseRow>,
    pub workloads: Vec<WorkloadRow>,
    /// One per (case, workload) that ran; unsupported cases have none.
    pub cells: Vec<Cell>,
    /// Every case but the baseline against the baseline, per workload.
    pub ratios: Vec<Ratio>,
    /// The same pairs for completion latency: its mean and its standard deviation (lower is better).
    #[serde(default)]
    pub latency_ratios: Vec<LatencyRatio>,
    /// Raw transport figures of the same paths, measured in the same run.
    pub wire: Vec<WireBaseline>,
    /// Scaling sweeps (iodepth, numjobs, block size, clients), when the plan asks for them.
    pub sweeps: Vec<Sweep>,
}

/// One test case as it ran: the plan's case (a named mount-option set, as in the published studies'
/// tables) and what became of it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CaseRow {
    #[serde(flatten)]
    pub case: Case,
    /// The `-o` string the client ran with (ports of the embedded server aside).
    pub mount_options: String,
    /// What carried the I/O, as the client reported it: "tcp", "rdma (soft (shared memory, one host))".
    pub transport: String,
    /// Why the case did not run ("not supported yet: ..."); such a case has no cells.
    pub unsupported: Option<String>,
    /// Why the case stopped (a refused mount, a failed run): its cells are left out, the rest of the
    /// plan was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Kernel engine: what the mount negotiated, beside what was asked (`mount_options`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negotiation: Option<Negotiation>,
}

/// What the kernel's NFS client negotiated for a case, read back from /proc/self/mountstats.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Negotiation {
    /// The options as the kernel holds them (the `opts:` line).
    pub negotiated: String,
    /// Transports of the mount (one per `xprt:` line): nconnect's connections or queue pairs.
    pub transports: u32,
    /// Every asked option the kernel did not grant as asked, "rsize: asked 4194304, negotiated 1048576";
    /// empty when it granted them all. A case with any is flagged in every output.
    pub differs: Vec<String>,
}

/// What the headline figure of a workload is.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// MB/s (10^6 bytes per second), for large sequential transfers.
    #[default]
    Bandwidth,
    /// I/Os per second, for small random transfers.
    Iops,
}

impl Metric {
    /// The unit as printed: "MB/s" or "IOPS".
    pub fn unit(self) -> &'static str {
        match self {
            Metric::Bandwidth => "MB/s",
            Metric::Iops => "IOPS",
        }
    }
}

/// One workload: a fio job.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct WorkloadRow {
    pub name: String,
    /// "1 MiB sequential read, iodepth 8, 2 jobs".
    pub description: String,
    /// fio's rw: read, write, randread, randwrite, ...
    pub rw: String,
    /// Block size in bytes.
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    /// Client processes under mpirun, merged as "All clients" (absent: one process, no MPI).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clients: Option<u32>,
    pub metric: Metric,
}

/// A mean with its 95% confidence interval (Student's t over the repetitions); `lo == hi == mean`
/// when there was one repetition (`n == 1`: no interval).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub lo: f64,
    pub hi: f64,
    pub n: u32,
}

/// The repetitions of one workload under one case, summarised.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Cell {
    pub case: String,
    pub workload: String,
    /// MB/s over all jobs.
    pub bandwidth_mbs: Estimate,
    pub iops: Estimate,
    /// Mean completion latency, µs.
    pub clat_mean_us: Estimate,
    /// Standard deviation of the completion latency within a repetition, µs (its mean over the
    /// repetitions, with their interval): the consistency the SMB Direct study headlined.
    #[serde(default)]
    pub clat_stdev_us: Estimate,
    /// Completion-latency percentiles from the repetitions' histograms merged: (percentile, µs),
    /// ascending, e.g. (50.0, 212.0), (99.0, 480.0), (99.99, 1210.0).
    pub clat_percentiles_us: Vec<(f64, f64)>,
    /// Host-wide CPU (every process, kernel threads, irq and softirq) in CPU-seconds per GB moved.
    pub host_cpu_per_gb: Estimate,
    /// Host-wide CPU-seconds per million I/Os.
    pub host_cpu_per_mio: Estimate,
    /// The client process's CPU-seconds per GB.
    pub client_cpu_per_gb: Estimate,
    /// The server process's CPU-seconds per GB, when the server runs on this host.
    pub server_cpu_per_gb: Option<Estimate>,
    /// Mean bandwidth as a fraction of the path's wire bandwidth (`WireBaseline::bandwidth_mbs`).
    pub efficiency: Option<f64>,
    /// The repetitions' fio JSON files, relative to the output directory ("cells/rdma--seq-read-1m--1.json").
    pub files: Vec<String>,
    /// Kernel engine: the NFS client's own RPC statistics over the measured windows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<KernelCounters>,
}

/// The kernel NFS client's counters over a cell's windows (mountstats), summed over the repetitions;
/// times are means per RPC of the data operations (READ, WRITE, COMMIT).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct KernelCounters {
    /// RPCs of every operation.
    pub rpcs: u64,
    /// Retransmissions (transmissions beyond the first) and major timeouts.
    pub retransmissions: u64,
    pub timeouts: u64,
    /// RPC bytes on the wire, calls and replies (headers included), of every operation.
    #[serde(default)]
    pub bytes_sent: u64,
    #[serde(default)]
    pub bytes_received: u64,
    /// Mean round trip, mean execution (queue + round trip + reply handling) and mean backlog (queue)
    /// time per data RPC, ms.
    pub rtt_ms: f64,
    pub exec_ms: f64,
    pub backlog_ms: f64,
    /// RPC-over-RDMA (xprtrdma) counters, for RDMA mounts: chunks, registrations, failures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rdma: Option<RdmaCounters>,
    /// A block or SMB case's I/O counters (/sys/block/DEV/stat, /proc/fs/cifs/Stats); the RPC figures
    /// are then 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io: Option<IoCounters>,
}

/// A block device's (Documentation/block/stat.rst) or an SMB client's (/proc/fs/cifs/Stats) I/O over a
/// window, summed over the repetitions.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct IoCounters {
    /// What counted them: "block device", "SMB client".
    pub source: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Mean time per completed I/O as its counter measures it (the block layer's ticks; SMB READ and
    /// WRITE round trips), ms.
    pub mean_ms: f64,
}

/// xprtrdma's per-transport counters over a window, summed over the transports.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct RdmaCounters {
    pub read_chunks: u64,
    pub write_chunks: u64,
    pub reply_chunks: u64,
    /// Memory registrations the transport had to make outside its pool ("hardway").
    pub hardway_registrations: u64,
    pub failed_marshals: u64,
    pub bad_replies: u64,
}

/// A median with an interval (order statistics; see `stats::median_interval`) and how surely the interval
/// holds the median: 0.95 or more from 6 samples on; below that the whole range, whose coverage is less.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Spread {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    pub n: u32,
    pub coverage: f64,
}

/// How a ratio's interval lies against 1.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The whole interval is above 1.
    Higher,
    /// The whole interval is below 1.
    Lower,
    /// The interval straddles 1 (or there is no interval): no difference shown.
    #[default]
    NoDifference,
}

/// `case` against `baseline` for one workload's headline metric.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Ratio {
    pub case: String,
    pub baseline: String,
    pub workload: String,
    pub metric: Metric,
    /// The ratio and its 95% interval (paired repetitions, see `stats`).
    pub ratio: Estimate,
    pub verdict: Verdict,
}

/// `case` against `baseline` for one workload's completion latency: the mean and the standard deviation,
/// each a paired ratio with its 95% interval ("rdma vs tcp: rand-read-4k clat mean 0.82×, stdev 0.60×").
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatencyRatio {
    pub case: String,
    pub baseline: String,
    pub workload: String,
    pub mean: Estimate,
    pub mean_verdict: Verdict,
    pub stdev: Estimate,
    pub stdev_verdict: Verdict,
}

/// A transport's own figures on the path the storage traffic took (what iperf, ib_write_bw and qperf
/// report), for showing storage results as a fraction of their wire.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct WireBaseline {
    #[serde(with = "crate::proto_serde")]
    pub proto: Proto,
    /// Connections (TCP) or queue pairs (RDMA) used at once: the cases with this `nconnect` are
    /// compared with it.
    pub connections: u32,
    /// "TCP stream, 127.0.0.1, 1 connection" or "RDMA Write, soft provider, 1 MiB messages, 16 in flight".
    pub description: String,
    /// Streaming bandwidth, MB/s: the median over the repetitions.
    pub bandwidth_mbs: f64,
    /// Ping-pong round trip of a small message, µs: the median over the repetitions of each one's median.
    pub round_trip_us: f64,
    /// Both over the repetitions, with their intervals (absent in reports written before they were
    /// repeated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Spread>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_trip: Option<Spread>,
}

/// A scaling curve: one workload's headline metric as one parameter varies, per case.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Sweep {
    /// "iodepth", "numjobs", "bs" or "clients".
    pub parameter: String,
    pub workload: String,
    pub metric: Metric,
    pub points: Vec<SweepPoint>,
}

/// One measured point of a sweep.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SweepPoint {
    pub case: String,
    /// The parameter's value (block size in bytes for "bs").
    pub x: f64,
    /// The value as printed: "32", "4 KiB".
    pub label: String,
    pub value: Estimate,
    /// `nfsbench model`'s prediction for this point (round-trip sweeps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Prediction>,
}

/// What the closed-form model predicts for a sweep point, and how far the measurement is from it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Prediction {
    /// In the sweep's metric (MB/s or IOPS).
    pub value: f64,
    /// The binding limit ("outstanding I/O", "link rate", "TCP window", ...).
    pub limit: String,
    /// Why, in a sentence.
    pub explanation: String,
    /// Larger over smaller of measured and modelled (≥ 1).
    pub disagreement: f64,
    /// Beyond the model's threshold (25%).
    pub flagged: bool,
}
