//! The measurement side of nfsbench's load engine: what each worker records, how jobs are merged, and
//! the output in fio 3.33's formats so that tools written for fio (fio-plot, fio's
//! `fio_jsonplus_clat2csv`, fio2gnuplot, ad-hoc `jq` scripts) read nfsbench results unchanged.
//!
//! - [`JobRecorder`] — one per worker, no locks, on the hot path: per-direction bytes, I/O counts and
//!   slat/clat/lat distributions ([`LatencyStat`]: HDR histogram in ns, 3 significant digits, up to one
//!   hour, plus exact integer moments), sync (fsync/COMMIT) latency, fio's latency buckets, in-flight depth
//!   at submission, the first error, and bandwidth/IOPS samples every 500 ms ([`rate`]) taken from
//!   completion times. [`JobRecorder::reset`] drops everything at the end of ramp_time;
//!   [`JobRecorder::merge`] combines clones (exactly associative).
//! - [`CpuSnapshot`] / [`CpuUsage`] — procfs CPU time, context switches, page faults, host CPU split.
//!   [`cpu::ProcessStat`] reads any process's `/proc/PID/stat` (CPU ticks, page faults).
//! - [`JobResult`] / [`RunResult`] — what the engine hands over at the end; [`group_results`] applies
//!   fio's group_reporting, folding jobs together with [`merge_job`].
//! - [`to_fio_json`] (json / json+) and [`to_normal_text`] — fio's layouts; the module docs of [`json`]
//!   list every deliberate difference (HDR bins, version string, extra `nfsbench` keys).
//! - [`Progress`] — fio's live "Jobs: …" status line.
//! - [`job_codec`] — an exact, checked byte form of a run's [`JobResult`]s for carrying them between processes
//!   (MPI ranks); [`clients`] merges the ranks' results into fio's client-mode report ("All clients").
//!
//! Options that change the report are read from the job's and the global options, by fio's names:
//! `group_reporting`, `clat_percentiles`, `lat_percentiles`, `slat_percentiles`, `iodepth`,
//! `latency_target`, `latency_window`, `latency_percentile`, `continue_on_error`.

pub mod clients;
pub mod cpu;
pub mod job_codec;
pub mod json;
mod latency;
mod progress;
pub mod rate;
mod recorder;
mod result;
mod text;
pub mod units;

pub use cpu::{CpuSnapshot, CpuUsage};
pub use json::{to_fio_json, version_string, FIO_COMPAT};
pub use latency::{InconsistentDistribution, LatencyStat, HIST_MAX_NS, HIST_SIGFIG};
pub use progress::{eta_string, run_string, JobPhase, Progress, ProgressSnapshot};
pub use rate::{RunningStat, SAMPLE_INTERVAL};
pub use recorder::JobRecorder;
pub use result::{group_results, merge_job, JobResult, RunResult, DEFAULT_PERCENTILES};
pub use text::to_normal_text;

/// Direction of a data I/O. fio's third direction, trim, is always empty but still printed in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dir {
    /// READ.
    Read,
    /// WRITE.
    Write,
}

impl Dir {
    /// Both directions, in fio's order.
    pub const ALL: [Dir; 2] = [Dir::Read, Dir::Write];

    /// 0 for read, 1 for write (fio's `DDIR_READ`, `DDIR_WRITE`).
    pub fn index(self) -> usize {
        match self {
            Dir::Read => 0,
            Dir::Write => 1,
        }
    }

    /// "read" / "write", as fio names the JSON objects and text lines.
    pub fn name(self) -> &'static str {
        match self {
            Dir::Read => "read",
            Dir::Write => "write",
        }
    }
}
