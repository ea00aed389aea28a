//! fio 3.33's normal (human) output: `show_thread_status_normal`, `show_ddir_status`, `display_lat`,
//! `show_clat_percentiles`, `show_latencies`, `show_group_stats` — same lines, same widths, same units.
//! After the run-status groups, where fio prints "Disk stats", an "nfsbench notes:" block lists the notes.

use std::fmt::Write as _;
use std::time::SystemTime;

use crate::json::{
    bw_agg_pct, continue_on_error, latency_target, percentile_flags, percents, rw_ios, BATCH_KEYS, DEPTH_KEYS, LAT_KEYS,
};
use crate::latency::LatencyStat;
use crate::result::{dir_runtime_ms, group_stats, groupids, GroupDir, JobResult, RunResult};
use crate::units::{ctime, num2str, scale_lat, Unit};
use crate::Dir;

/// fio's default `percentile_precision` and `significant_figures`.
const PRECISION: usize = 2;
const SIG_FIGS: usize = 4;

/// strerror-like text for an errno-like code.
pub(crate) fn error_text(code: i32) -> String {
    let s = std::io::Error::from_raw_os_error(code).to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// fio's `display_lat`: "    clat (usec): min=26, max=743, avg=174.93, stdev=120.70".
fn display_lat(out: &mut String, name: &str, s: &LatencyStat) {
    let (min, max, mean, dev, unit) = scale_lat(s.min(), s.max(), s.mean(), s.stddev());
    let minp = num2str(min, 6, 1, false, Unit::None);
    let maxp = num2str(max, 6, 1, false, Unit::None);
    let _ = writeln!(out, "    {name} ({unit}): min={minp}, max={maxp}, avg={mean:5.2}, stdev={dev:5.2}");
}

/// fio's `show_clat_percentiles` for already computed (percentile, ns) pairs.
pub(crate) fn percentile_block(pre: &str, vals: &[(f64, u64)]) -> String {
    let mut out = String::new();
    let (Some(minv), Some(maxv)) = (vals.iter().map(|v| v.1).min(), vals.iter().map(|v| v.1).max()) else {
        return out;
    };
    let (scale, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    let _ = write!(out, "    {pre} percentiles ({unit}):\n     |");
    let tw = (maxv / divisor).to_string().len().max(5);
    let per_line = (80 - 7) / (PRECISION + 10 + tw);
    let pw = PRECISION + 3;
    for (j, &(p, v)) in vals.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let last = j + 1 == vals.len();
        let v = (0..scale).fold(v, |v, _| v.div_ceil(1000));
        let end = if last { '\n' } else { ',' };
        let _ = write!(out, " {p:pw$.PRECISION$}th=[{v:tw$}]{end}");
        if !last && j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
    out
}

fn ddir_block(out: &mut String, run: &RunResult, job: &JobResult, dir: Dir, group: &GroupDir) {
    let runt = dir_runtime_ms(job, dir);
    if runt == 0 {
        return;
    }
    let r = &job.recorder;
    let bytes = r.io_bytes(dir);
    let bw = bytes.saturating_mul(1000) / runt;
    let iops = r.total_ios(dir).saturating_mul(1000) / runt;
    let post = if dir == Dir::Write { "; 0 zone resets" } else { "" };
    let _ = writeln!(
        out,
        "  {}: IOPS={}, BW={} ({})({}/{runt}msec){post}",
        dir.name(),
        num2str(iops, SIG_FIGS, 1, false, Unit::None),
        num2str(bw, SIG_FIGS, 1, true, Unit::BytePerSec),
        num2str(bw, SIG_FIGS, 1, false, Unit::BytePerSec),
        num2str(bytes, SIG_FIGS, 1, true, Unit::Byte),
    );
    let lats = [("slat", r.slat(dir)), ("clat", r.clat(dir)), (" lat", r.lat(dir))];
    for (name, s) in lats {
        if s.count() > 0 {
            display_lat(out, name, s);
        }
    }
    let (slat_p, clat_p, lat_p) = percentile_flags(run, job);
    let plist = run.percentiles();
    for ((name, s), on) in lats.into_iter().zip([slat_p, clat_p, lat_p]) {
        if on && s.count() > 0 {
            out.push_str(&percentile_block(name.trim(), &s.percentiles(&plist)));
        }
    }
    let (bw, io) = r.rate_stats(dir, job.runtime);
    if bw.samples > 0 {
        let per = bw_agg_pct(&bw, group);
        let (mut min, mut max, mut mean, mut dev, mut unit) = (bw.min, bw.max, bw.mean, bw.stddev(), "KiB");
        if mean > 1024.0 * 1024.0 {
            (min, max) = ((min as f64 / 1024.0) as u64, (max as f64 / 1024.0) as u64);
            (mean, dev, unit) = (mean / 1024.0, dev / 1024.0, "MiB");
        }
        let _ = writeln!(
            out,
            "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={per:3.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            bw.samples
        );
    }
    if io.samples > 0 {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            io.min,
            io.max,
            io.mean,
            io.stddev(),
            io.samples
        );
    }
}

/// fio's `show_lat`: non-empty buckets, five to a line.
fn lat_lines(out: &mut String, unit: &str, keys: &[&str], pcts: &[f64]) {
    let shown: Vec<String> =
        keys.iter().zip(pcts).filter(|(_, p)| **p > 0.0).map(|(k, p)| format!("{k}={p:3.2}%")).collect();
    for chunk in shown.chunks(5) {
        let _ = writeln!(out, "  lat ({unit})   : {}", chunk.join(", "));
    }
}

fn dist_line(prefix: &str, keys: &[&str], pcts: &[f64]) -> String {
    let items: Vec<String> = keys.iter().zip(pcts).map(|(k, p)| format!("{k}={p:3.1}%")).collect();
    format!("{prefix}{}\n", items.join(", "))
}

fn job_block(out: &mut String, run: &RunResult, job: &JobResult, groups: &[JobResult], now: &str) {
    let r = &job.recorder;
    let total = rw_ios(r);
    if r.io_bytes(Dir::Read) + r.io_bytes(Dir::Write) == 0 && total == 0 {
        return;
    }
    let error = if job.error != 0 { job.error } else { r.first_error() };
    let pid = std::process::id();
    let (name, g, n) = (&job.name, job.groupid, job.jobs);
    if error == 0 {
        let _ = writeln!(out, "{name}: (groupid={g}, jobs={n}): err={error:2}: pid={pid}: {now}");
    } else {
        let verror = format!("error={}", error_text(error));
        let _ = writeln!(out, "{name}: (groupid={g}, jobs={n}): err={error:2} ({verror}): pid={pid}: {now}");
    }
    if let Some(desc) = run.description(job) {
        let _ = writeln!(out, "  Description  : [{desc}]");
    }
    let group = group_stats(groups, job.groupid);
    for dir in Dir::ALL {
        if r.io_bytes(dir) > 0 {
            ddir_block(out, run, job, dir, &group[dir.index()]);
        }
    }
    let b = &r.lat_buckets;
    lat_lines(out, "nsec", &LAT_KEYS[..10], &percents(&b.n, total, 0.01));
    lat_lines(out, "usec", &LAT_KEYS[..10], &percents(&b.u, total, 0.01));
    lat_lines(out, "msec", &LAT_KEYS, &percents(&b.m, total, 0.01));
    if r.sync.count() > 0 {
        out.push_str("  fsync/fdatasync/sync_file_range:\n");
        display_lat(out, "sync", &r.sync);
        out.push_str(&percentile_block("sync", &r.sync.percentiles(&run.percentiles())));
    }
    let c = &job.cpu;
    let _ = writeln!(
        out,
        "  cpu          : usr={:3.2}%, sys={:3.2}%, ctx={}, majf={}, minf={}",
        c.usr_pct, c.sys_pct, c.ctx, c.majf, c.minf
    );
    let _ = writeln!(
        out,
        "  host cpu     : usr={:3.2}%, sys={:3.2}%, idle={:3.2}%",
        c.host_usr_pct, c.host_sys_pct, c.host_idle_pct
    );
    let submits = r.submit_map.iter().sum();
    let completes = r.complete_map.iter().sum();
    out.push_str(&dist_line("  IO depths    : ", &DEPTH_KEYS, &percents(&r.depth_map, total, 0.1)));
    out.push_str(&dist_line("     submit    : ", &BATCH_KEYS, &percents(&r.submit_map, submits, 0.1)));
    out.push_str(&dist_line("     complete  : ", &BATCH_KEYS, &percents(&r.complete_map, completes, 0.1)));
    let (rd, wr) = (&r.dirs[0], &r.dirs[1]);
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},0,{} short={},{},0,0 dropped={},{},0,0",
        rd.ios,
        wr.ios,
        r.sync.count(),
        rd.short,
        wr.short,
        rd.dropped,
        wr.dropped
    );
    if continue_on_error(run, job) {
        let first = r.first_error();
        let _ =
            writeln!(out, "     errors    : total={}, first_error={first}/<{}>", r.total_errors(), error_text(first));
    }
    let lt = latency_target(run, job);
    let _ = writeln!(
        out,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        lt.target, lt.window, lt.percentile, lt.depth
    );
}

fn group_block(out: &mut String, gid: u32, stats: &[GroupDir; 2]) {
    let _ = write!(out, "\nRun status group {gid} (all jobs):\n");
    for (label, s) in ["   READ", "  WRITE"].iter().zip(stats) {
        if s.max_run == 0 {
            continue;
        }
        let f = |v: u64, pow2: bool, unit: Unit| num2str(v, SIG_FIGS, 1, pow2, unit);
        let bps = Unit::BytePerSec;
        let _ = writeln!(
            out,
            "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            f(s.agg, true, bps),
            f(s.agg, false, bps),
            f(s.min_bw, true, bps),
            f(s.max_bw, true, bps),
            f(s.min_bw, false, bps),
            f(s.max_bw, false, bps),
            f(s.io_bytes, true, Unit::Byte),
            f(s.io_bytes, false, Unit::Byte),
            s.min_run,
            s.max_run
        );
    }
}

/// The whole report in fio's normal format, starting with the blank line fio prints.
pub fn to_normal_text(run: &RunResult) -> String {
    let groups = crate::group_results(run);
    let now = ctime(SystemTime::now());
    let mut out = String::from("\n");
    for job in &groups {
        job_block(&mut out, run, job, &groups, &now);
    }
    for gid in groupids(&groups) {
        group_block(&mut out, gid, &group_stats(&groups, gid));
    }
    if !run.notes.is_empty() {
        out.push_str("\nnfsbench notes:\n");
        for (k, v) in &run.notes {
            let _ = writeln!(out, "  {k}: {v}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DEFAULT_PERCENTILES;

    #[test]
    fn percentile_block_reproduces_fios_nsec_lines() {
        // fio 3.33, null engine, write job "b" (see tests/fixtures for how such runs were made).
        let ns = [126, 127, 129, 129, 131, 131, 133, 133, 135, 135, 139, 153, 157, 161, 318, 386, 4832];
        let vals: Vec<(f64, u64)> = DEFAULT_PERCENTILES.iter().copied().zip(ns).collect();
        let want = "    clat percentiles (nsec):
     |  1.00th=[  126],  5.00th=[  127], 10.00th=[  129], 20.00th=[  129],
     | 30.00th=[  131], 40.00th=[  131], 50.00th=[  133], 60.00th=[  133],
     | 70.00th=[  135], 80.00th=[  135], 90.00th=[  139], 95.00th=[  153],
     | 99.00th=[  157], 99.50th=[  161], 99.90th=[  318], 99.95th=[  386],
     | 99.99th=[ 4832]
";
        assert_eq!(percentile_block("clat", &vals), want);
    }

    #[test]
    fn percentile_block_scales_to_usec_rounding_up_like_fio() {
        // From the fixture text: sync percentiles in usec; ns values chosen inside each µs.
        let us = [40, 50, 52, 62, 68, 88, 167, 217, 243, 289, 334, 400, 461, 490, 627, 742, 742];
        let vals: Vec<(f64, u64)> = DEFAULT_PERCENTILES.iter().copied().zip(us.map(|u| u * 1000 - 300)).collect();
        let want = "    sync percentiles (usec):
     |  1.00th=[   40],  5.00th=[   50], 10.00th=[   52], 20.00th=[   62],
     | 30.00th=[   68], 40.00th=[   88], 50.00th=[  167], 60.00th=[  217],
     | 70.00th=[  243], 80.00th=[  289], 90.00th=[  334], 95.00th=[  400],
     | 99.00th=[  461], 99.50th=[  490], 99.90th=[  627], 99.95th=[  742],
     | 99.99th=[  742]
";
        assert_eq!(percentile_block("sync", &vals), want);
    }

    #[test]
    fn error_text_is_strerror_without_rusts_suffix() {
        assert_eq!(error_text(5), "Input/output error");
    }
}
