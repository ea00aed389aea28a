//! fio 3.33's `--output-format=json` / `json+` layout (stat.c `show_thread_status_json`,
//! `add_ddir_status_json`, `add_ddir_lat_json`, `__show_run_stats`), key for key and type for type.
//!
//! Differences from fio, all deliberate:
//! - "fio version" says `nfsbench-<version>`; the fio release whose layout is followed is in
//!   `nfsbench.fio_compat`.
//! - json+ "bins" are keyed by HDR histogram bucket values (bucket middles, 3 significant digits) instead
//!   of fio's log-linear buckets (64 per power of two); the counts still sum to N, so fio's tools
//!   (`fio_jsonplus_clat2csv`) read them, but the keys differ from what fio would print for the same I/Os.
//! - No "disk_util" (nfsbench has no local block device) and no per-priority "prios".
//! - Extra: per job `nfsbench_verify_errors`; top level `nfsbench` {version, fio_compat, histogram,
//!   start_time_ms, notes}.
//! - Client mode (several MPI ranks, [`crate::clients`]): one "All clients" object per job unit instead of
//!   fio's single sum of everything, with the unit's job name in `nfsbench_job`; the other differences are
//!   listed there.

use std::time::SystemTime;

use serde_json::{json, Map, Value};

use crate::latency::LatencyStat;
use crate::rate::RunningStat;
use crate::recorder::{DirStats, JobRecorder};
use crate::result::{dir_runtime_ms, group_stats, job_runtime_ms, runtime_ms, GroupDir, JobResult, RunResult};
use crate::units::{ctime, epoch_ms};
use crate::Dir;

/// The fio release whose output layout this crate reproduces.
pub const FIO_COMPAT: &str = "fio-3.33";

/// What goes in "fio version".
pub fn version_string() -> String {
    format!("nfsbench-{}", env!("CARGO_PKG_VERSION"))
}

/// fio's "eta" for a finished job (INT_MAX).
const ETA_DONE: u64 = 2_147_483_647;

/// A float that serde_json can write (NaN/∞ would become null).
pub(crate) fn num(x: f64) -> Value {
    json!(if x.is_finite() { x } else { 0.0 })
}

fn lat_json(stat: &LatencyStat, percentiles: bool, plist: &[f64], plus: bool) -> Value {
    let mut o = Map::new();
    o.insert("min".into(), json!(stat.min()));
    o.insert("max".into(), json!(stat.max()));
    o.insert("mean".into(), num(stat.mean()));
    o.insert("stddev".into(), num(stat.stddev()));
    o.insert("N".into(), json!(stat.count()));
    if percentiles && stat.count() > 0 {
        let p: Map<String, Value> =
            stat.percentiles(plist).into_iter().map(|(p, v)| (format!("{p:.6}"), json!(v))).collect();
        o.insert("percentile".into(), Value::Object(p));
        if plus {
            let bins: Map<String, Value> = stat.bins().into_iter().map(|(v, n)| (v.to_string(), json!(n))).collect();
            o.insert("bins".into(), Value::Object(bins));
        }
    }
    Value::Object(o)
}

/// Which latencies carry percentiles: (slat, clat, lat), fio's defaults (0, 1, 0) unless options say.
pub(crate) fn percentile_flags(run: &RunResult, job: &JobResult) -> (bool, bool, bool) {
    (
        run.flag(job, "slat_percentiles").unwrap_or(false),
        run.flag(job, "clat_percentiles").unwrap_or(true),
        run.flag(job, "lat_percentiles").unwrap_or(false),
    )
}

/// fio's `bw_agg`: the job's mean bandwidth (truncated to an integer, as fio passes it) as a percentage of
/// the group's aggregate, capped at 100.
pub(crate) fn bw_agg_pct(bw: &RunningStat, group: &GroupDir) -> f64 {
    if bw.samples == 0 {
        return 0.0;
    }
    if group.agg <= 1024 {
        return 100.0;
    }
    ((bw.mean.trunc() * 100.0) / (group.agg as f64 / 1024.0)).min(100.0)
}

fn dir_json(run: &RunResult, job: &JobResult, dir: Option<Dir>, group: &GroupDir, plus: bool) -> Value {
    let empty = DirStats::default();
    let d = dir.map(|d| &job.recorder.dirs[d.index()]).unwrap_or(&empty);
    let runt = dir.map(|d| dir_runtime_ms(job, d)).unwrap_or(0);
    let bw_bytes = d.bytes.saturating_mul(1000).checked_div(runt).unwrap_or(0);
    let iops = if runt > 0 { 1000.0 * d.ios as f64 / runt as f64 } else { 0.0 };
    let (slat_p, clat_p, lat_p) = percentile_flags(run, job);
    let plist = run.percentiles();
    let (bw, io) = dir.map(|d| job.recorder.rate_stats(d, job.runtime)).unwrap_or_default();
    json!({
        "io_bytes": d.bytes,
        "io_kbytes": d.bytes >> 10,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes / 1024,
        "iops": num(iops),
        "runtime": runt,
        "total_ios": d.ios,
        "short_ios": d.short,
        "drop_ios": d.dropped,
        "slat_ns": lat_json(&d.slat, slat_p, &plist, plus),
        "clat_ns": lat_json(&d.clat, clat_p, &plist, plus),
        "lat_ns": lat_json(&d.lat, lat_p, &plist, plus),
        "bw_min": bw.min,
        "bw_max": bw.max,
        "bw_agg": num(bw_agg_pct(&bw, group)),
        "bw_mean": num(bw.mean),
        "bw_dev": num(bw.stddev()),
        "bw_samples": bw.samples,
        "iops_min": io.min,
        "iops_max": io.max,
        "iops_mean": num(io.mean),
        "iops_stddev": num(io.stddev()),
        "iops_samples": io.samples,
    })
}

/// fio's `stat_calc_dist` / `stat_calc_lat`: percentages of `total`, with non-empty slots shown as at
/// least `floor` percent.
pub(crate) fn percents(counts: &[u64], total: u64, floor: f64) -> Vec<f64> {
    counts
        .iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let p = c as f64 * 100.0 / total as f64;
            if c > 0 && p < floor {
                floor
            } else {
                p
            }
        })
        .collect()
}

fn keyed(keys: &[&str], values: &[f64]) -> Value {
    Value::Object(keys.iter().zip(values).map(|(k, v)| (k.to_string(), num(*v))).collect())
}

pub(crate) const DEPTH_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
pub(crate) const BATCH_KEYS: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];
pub(crate) const LAT_KEYS: [&str; 12] =
    ["2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"];

/// Total read + write I/Os, the denominator of fio's depth and latency-bucket percentages.
pub(crate) fn rw_ios(r: &JobRecorder) -> u64 {
    r.total_ios(Dir::Read) + r.total_ios(Dir::Write)
}

fn job_json(run: &RunResult, job: &JobResult, groups: &[JobResult], plus: bool, elapsed_s: u64) -> Value {
    let r = &job.recorder;
    let group = group_stats(groups, job.groupid);
    let mut o = Map::new();
    o.insert("jobname".into(), json!(job.name));
    o.insert("groupid".into(), json!(job.groupid));
    o.insert("error".into(), json!(if job.error != 0 { job.error } else { r.first_error() }));
    o.insert("eta".into(), json!(ETA_DONE));
    o.insert("elapsed".into(), json!(elapsed_s));
    if !job.job_options.is_empty() {
        let opts: Map<String, Value> = job.job_options.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        o.insert("job options".into(), Value::Object(opts));
    }
    for (key, dir) in [("read", Some(Dir::Read)), ("write", Some(Dir::Write)), ("trim", None)] {
        let g = dir.map(|d| group[d.index()]).unwrap_or_default();
        o.insert(key.into(), dir_json(run, job, dir, &g, plus));
    }
    let (_, clat_p, lat_p) = percentile_flags(run, job);
    let sync = json!({
        "total_ios": r.sync.count(),
        "lat_ns": lat_json(&r.sync, clat_p || lat_p, &run.percentiles(), plus),
    });
    o.insert("sync".into(), sync);
    let job_rt = job_runtime_ms(job);
    // CpuUsage percentages are already shares of wall time, as fio's usr_time / total_run_time.
    o.insert("job_runtime".into(), json!(job_rt));
    o.insert("usr_cpu".into(), num(job.cpu.usr_pct));
    o.insert("sys_cpu".into(), num(job.cpu.sys_pct));
    o.insert("ctx".into(), json!(job.cpu.ctx));
    o.insert("majf".into(), json!(job.cpu.majf));
    o.insert("minf".into(), json!(job.cpu.minf));
    // Not in fio: the whole host's split over the job's run (from /proc/stat), so a reader sees whether
    // the server on the same machine or other work competed for the CPUs.
    o.insert(
        "nfsbench_host_cpu".into(),
        json!({ "usr": num(job.cpu.host_usr_pct), "sys": num(job.cpu.host_sys_pct), "idle": num(job.cpu.host_idle_pct) }),
    );
    let total = rw_ios(r);
    let submits: u64 = r.submit_map.iter().sum();
    let completes: u64 = r.complete_map.iter().sum();
    o.insert("iodepth_level".into(), keyed(&DEPTH_KEYS, &percents(&r.depth_map, total, 0.1)));
    o.insert("iodepth_submit".into(), keyed(&BATCH_KEYS, &percents(&r.submit_map, submits, 0.1)));
    o.insert("iodepth_complete".into(), keyed(&BATCH_KEYS, &percents(&r.complete_map, completes, 0.1)));
    o.insert("latency_ns".into(), keyed(&LAT_KEYS[..10], &percents(&r.lat_buckets.n, total, 0.01)));
    o.insert("latency_us".into(), keyed(&LAT_KEYS[..10], &percents(&r.lat_buckets.u, total, 0.01)));
    o.insert("latency_ms".into(), keyed(&LAT_KEYS, &percents(&r.lat_buckets.m, total, 0.01)));
    if continue_on_error(run, job) {
        o.insert("total_err".into(), json!(r.total_errors()));
        o.insert("first_error".into(), json!(r.first_error()));
    }
    let lt = latency_target(run, job);
    o.insert("latency_depth".into(), json!(lt.depth));
    o.insert("latency_target".into(), json!(lt.target));
    o.insert("latency_percentile".into(), num(lt.percentile));
    o.insert("latency_window".into(), json!(lt.window));
    if let Some(desc) = run.description(job) {
        o.insert("desc".into(), json!(desc));
    }
    o.insert("nfsbench_verify_errors".into(), json!(job.verify_errors));
    Value::Object(o)
}

/// Whether `continue_on_error` is set to anything but none/0 (fio then prints error totals).
pub(crate) fn continue_on_error(run: &RunResult, job: &JobResult) -> bool {
    run.flag(job, "continue_on_error").unwrap_or(false) && run.option(job, "continue_on_error") != Some("none")
}

/// fio's latency-target fields, always printed (their depth is the job's iodepth).
pub(crate) struct LatencyTarget {
    pub(crate) depth: u64,
    pub(crate) target: u64,
    pub(crate) window: u64,
    pub(crate) percentile: f64,
}

pub(crate) fn latency_target(run: &RunResult, job: &JobResult) -> LatencyTarget {
    LatencyTarget {
        depth: run.int_option(job, "iodepth").unwrap_or(1).max(1),
        target: run.int_option(job, "latency_target").unwrap_or(0),
        window: run.int_option(job, "latency_window").unwrap_or(0),
        percentile: run
            .option(job, "latency_percentile")
            .and_then(|v| v.trim().trim_end_matches('%').parse().ok())
            .unwrap_or(100.0),
    }
}

/// The whole report as fio prints it with `--output-format=json` (`plus = false`) or `json+`.
pub fn to_fio_json(run: &RunResult, plus: bool) -> Value {
    let now = SystemTime::now();
    let ms = epoch_ms(now);
    let elapsed_s = now.duration_since(run.start_time).map(|d| d.as_millis() as u64).unwrap_or(0).div_ceil(1000);
    let groups = crate::group_results(run);
    let mut root = Map::new();
    root.insert("fio version".into(), json!(version_string()));
    root.insert("timestamp".into(), json!(ms / 1000));
    root.insert("timestamp_ms".into(), json!(ms));
    root.insert("time".into(), json!(ctime(now)));
    if !run.global_options.is_empty() {
        let g: Map<String, Value> = run.global_options.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
        root.insert("global options".into(), Value::Object(g));
    }
    let jobs: Vec<Value> = groups.iter().map(|j| job_json(run, j, &groups, plus, elapsed_s)).collect();
    root.insert("jobs".into(), Value::Array(jobs));
    let notes: Map<String, Value> = run.notes.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
    root.insert(
        "nfsbench".into(),
        json!({
            "version": env!("CARGO_PKG_VERSION"),
            "fio_compat": FIO_COMPAT,
            "histogram": "hdr, nanoseconds, 3 significant digits; json+ bins keyed by HDR bucket middle values",
            "start_time_ms": epoch_ms(run.start_time),
            "runtime_ms": groups.iter().map(|j| runtime_ms(j.runtime)).max().unwrap_or(0),
            "notes": notes,
        }),
    );
    Value::Object(root)
}
