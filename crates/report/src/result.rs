//! Job and run results, fio's group_reporting merge, and the per-group "Run status" figures.

use std::time::{Duration, SystemTime};

use crate::cpu::CpuUsage;
use crate::recorder::JobRecorder;
use crate::Dir;

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] =
    [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

/// The outcome of one job (or of a group of them, see [`group_results`]).
#[derive(Clone, Debug)]
pub struct JobResult {
    /// Job name (fio's `jobname`).
    pub name: String,
    /// Stonewall group.
    pub groupid: u32,
    /// How many jobs (numjobs clones) were merged into this result.
    pub jobs: u32,
    /// errno-like error of the job, 0 if none (the recorder's first error is used when this is 0).
    pub error: i32,
    /// How long the job ran after ramp_time.
    pub runtime: Duration,
    /// What it measured.
    pub recorder: JobRecorder,
    /// CPU used while it ran.
    pub cpu: CpuUsage,
    /// Options as written in the job section, in order (fio's "job options").
    pub job_options: Vec<(String, String)>,
    /// `description=`.
    pub description: Option<String>,
    /// Blocks whose verify failed (JSON `nfsbench_verify_errors`).
    pub verify_errors: u64,
}

/// Everything a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Jobs in the order fio would list them (job-file order, clones after their parent).
    pub jobs: Vec<JobResult>,
    /// The `[global]` options (fio's "global options").
    pub global_options: Vec<(String, String)>,
    /// When the run started.
    pub start_time: SystemTime,
    /// `percentile_list`, or fio's default list when `None`.
    pub percentile_list: Option<Vec<f64>>,
    /// Extra facts for the "nfsbench" JSON object and the text trailer, e.g. ("target", "host:/export").
    pub notes: Vec<(String, String)>,
}

impl RunResult {
    /// The percentile list in effect.
    pub fn percentiles(&self) -> Vec<f64> {
        self.percentile_list.clone().unwrap_or_else(|| DEFAULT_PERCENTILES.to_vec())
    }

    /// A job option, falling back to `[global]` (last occurrence wins, like a fio job file).
    pub fn option<'a>(&'a self, job: &'a JobResult, key: &str) -> Option<&'a str> {
        let find = |opts: &'a [(String, String)]| opts.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
        find(&job.job_options).or_else(|| find(&self.global_options))
    }

    /// A boolean fio option: present without value or with a value other than 0/false/no/off.
    pub fn flag(&self, job: &JobResult, key: &str) -> Option<bool> {
        self.option(job, key).map(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"))
    }

    /// The job's description: [`JobResult::description`], else a `description` option (fio lets `[global]`
    /// give every job the same one).
    pub fn description<'a>(&'a self, job: &'a JobResult) -> Option<&'a str> {
        job.description.as_deref().or_else(|| self.option(job, "description")).filter(|d| !d.is_empty())
    }

    /// An integer option (plain decimal), if present and parseable.
    pub fn int_option(&self, job: &JobResult, key: &str) -> Option<u64> {
        self.option(job, key).and_then(|v| v.trim().parse().ok())
    }
}

/// Run time in whole milliseconds, rounded up as fio's `update_runtime` does.
pub(crate) fn runtime_ms(d: Duration) -> u64 {
    (d.as_micros() as u64).div_ceil(1000)
}

/// fio's per-direction `runtime`: the job's run time if it moved bytes in that direction, else 0.
pub(crate) fn dir_runtime_ms(job: &JobResult, dir: Dir) -> u64 {
    if job.recorder.io_bytes(dir) > 0 {
        runtime_ms(job.runtime)
    } else {
        0
    }
}

/// fio's `job_runtime` (`total_run_time`): the sum of the members' run times in ms.
pub(crate) fn job_runtime_ms(job: &JobResult) -> u64 {
    job.recorder.member_runtime_ms.unwrap_or_else(|| runtime_ms(job.runtime).saturating_mul(u64::from(job.jobs.max(1))))
}

fn merge_cpu(a: &CpuUsage, a_ms: u64, b: &CpuUsage, b_ms: u64) -> CpuUsage {
    let total = a_ms.saturating_add(b_ms) as f64;
    let weighted =
        |x: f64, y: f64| if total > 0.0 { (x * a_ms as f64 + y * b_ms as f64) / total } else { (x + y) / 2.0 };
    CpuUsage {
        usr_pct: weighted(a.usr_pct, b.usr_pct),
        sys_pct: weighted(a.sys_pct, b.sys_pct),
        ctx: a.ctx + b.ctx,
        majf: a.majf + b.majf,
        minf: a.minf + b.minf,
        host_usr_pct: weighted(a.host_usr_pct, b.host_usr_pct),
        host_sys_pct: weighted(a.host_sys_pct, b.host_sys_pct),
        host_idle_pct: weighted(a.host_idle_pct, b.host_idle_pct),
        cpu_seconds: a.cpu_seconds + b.cpu_seconds,
    }
}

/// Folds `other` into `into`, as fio's `sum_thread_stats` adds one job to a reporting unit: recorders
/// merged, `job_runtime` (the members' run times in ms) summed, CPU counters summed with usr/sys
/// percentages weighted by run time, `jobs` summed, run time the longest, verify errors summed, the first
/// non-zero error kept. Name, groupid and options stay those of `into`.
pub fn merge_job(into: &mut JobResult, other: &JobResult) {
    let (a_ms, b_ms) = (job_runtime_ms(into), job_runtime_ms(other));
    into.cpu = merge_cpu(&into.cpu, a_ms, &other.cpu, b_ms);
    into.recorder.merge(&other.recorder);
    into.recorder.member_runtime_ms = Some(a_ms.saturating_add(b_ms));
    into.jobs = into.jobs.saturating_add(other.jobs.max(1));
    into.runtime = into.runtime.max(other.runtime);
    into.verify_errors = into.verify_errors.saturating_add(other.verify_errors);
    if into.error == 0 {
        into.error = other.error;
    }
}

/// fio's reporting units (`__show_run_stats`): consecutive jobs that have `group_reporting` and share a
/// groupid become one result — named after the first, `jobs` summed, latencies and counters merged,
/// per-direction run time the longest, `job_runtime` and CPU times summed (usr/sys percentages weighted by
/// run time), first non-zero error kept ([`merge_job`]). Other jobs come back unchanged.
pub fn group_results(run: &RunResult) -> Vec<JobResult> {
    let mut out: Vec<(JobResult, bool)> = Vec::new();
    for job in &run.jobs {
        let grouped = run.flag(job, "group_reporting").unwrap_or(false);
        if let Some((last, last_grouped)) = out.last_mut() {
            if grouped && *last_grouped && last.groupid == job.groupid {
                merge_job(last, job);
                continue;
            }
        }
        let mut first = job.clone();
        first.jobs = first.jobs.max(1);
        out.push((first, grouped));
    }
    out.into_iter().map(|(j, _)| j).collect()
}

/// fio's `struct group_run_stats` for one direction of one group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct GroupDir {
    pub(crate) min_run: u64,
    pub(crate) max_run: u64,
    pub(crate) min_bw: u64,
    pub(crate) max_bw: u64,
    pub(crate) io_bytes: u64,
    /// Aggregate bandwidth, bytes/s: all bytes over the longest run time.
    pub(crate) agg: u64,
}

/// Run-status figures of group `groupid` over already-grouped results.
pub(crate) fn group_stats(jobs: &[JobResult], groupid: u32) -> [GroupDir; 2] {
    let mut g = [GroupDir::default(); 2];
    for dir in Dir::ALL {
        let s = &mut g[dir.index()];
        let mut first = true;
        for job in jobs.iter().filter(|j| j.groupid == groupid) {
            let run = dir_runtime_ms(job, dir);
            if run == 0 {
                continue;
            }
            let bytes = job.recorder.io_bytes(dir);
            let bw = bytes.saturating_mul(1000) / run;
            if first {
                (s.min_run, s.min_bw) = (run, bw);
                first = false;
            }
            s.min_run = s.min_run.min(run);
            s.max_run = s.max_run.max(run);
            s.min_bw = s.min_bw.min(bw);
            s.max_bw = s.max_bw.max(bw);
            s.io_bytes += bytes;
        }
        s.agg = s.io_bytes.saturating_mul(1000).checked_div(s.max_run).unwrap_or(0);
    }
    g
}

/// Distinct groupids, ascending (fio prints its run-status groups in groupid order).
pub(crate) fn groupids(jobs: &[JobResult]) -> Vec<u32> {
    let mut ids: Vec<u32> = jobs.iter().map(|j| j.groupid).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}
