//! Many clients, one report: the results of every MPI rank (`mpirun -np N nfsbench run job.fio`), each
//! carried to rank 0 with [`crate::job_codec`], merged into fio's client-mode report (fio `client.c`:
//! `handle_ts`, `json_object_add_client_info`, `handle_text`).
//!
//! - [`all_clients`] — the "All clients" result: the k-th reporting unit (after group_reporting) of every
//!   client merged into the k-th unit, exactly as [`merge_job`] merges group members (latency histograms and
//!   integer moments added, counters summed, run time the longest, bandwidth samples summed as fio sums
//!   group members).
//! - [`to_fio_client_json`] — fio's `--client` JSON: "client_stats" in place of "jobs", holding every
//!   client's job objects with "hostname" and "port", then the "All clients" objects.
//! - [`to_client_text`] — every client's normal text, each line prefixed with the client, then the merged
//!   report.
//!
//! Differences from fio's client mode, all deliberate (beside those of [`crate::json`]):
//! - fio prints one "All clients" object summing every job of every client; nfsbench prints one per
//!   reporting unit (job, or group_reporting group), each the sum of that unit over all clients, so a job
//!   file with several jobs keeps them apart. Each has "jobname": "All clients", "hostname": "All clients",
//!   "port": 0, and the unit's own job name in "nfsbench_job".
//! - "port" is 0 (ranks are not reached through a port); each client's objects also carry `nfsbench_rank`.
//! - "global options" is one object (the first client's, every rank ran the same job file) where fio
//!   with several clients prints an array of per-client objects; there is no "disk_util".
//! - The top-level "nfsbench" object adds "clients" (how many) and "hosts" (distinct host names, in rank
//!   order).
//! - The text prefix is `<HOST rank K> ` where fio writes `<HOST> `, since several ranks share a host.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use crate::result::{group_results, merge_job, RunResult};
use crate::{to_fio_json, to_normal_text};

/// The name of the merged units, as fio names its sum of all clients.
pub const ALL_CLIENTS: &str = "All clients";

/// Why the clients' results cannot be merged ([`all_clients`]): none came, or they ran different jobs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    #[error("no client results to merge")]
    NoClients,
    /// `client` has another number of reporting units than the first client.
    #[error("{client} reports {units} job(s) but {first} reports {first_units}: the clients ran different jobs")]
    UnitCount { client: String, units: usize, first: String, first_units: usize },
    /// Unit `index` of `client` has another name or group than the first client's.
    #[error(
        "job {index} of {client} is {name:?} in group {groupid}, but {first_name:?} in group {first_groupid} on \
         {first}: the clients ran different jobs"
    )]
    UnitMismatch {
        index: usize,
        client: String,
        name: String,
        groupid: u32,
        first: String,
        first_name: String,
        first_groupid: u32,
    },
}

/// One client's (MPI rank's) run.
#[derive(Clone, Debug)]
pub struct ClientRun {
    /// Host name the rank ran on.
    pub host: String,
    /// MPI rank.
    pub rank: usize,
    /// What the rank measured: its jobs as the engine handed them over (not yet grouped).
    pub run: RunResult,
}

fn who(c: &ClientRun) -> String {
    format!("rank {} ({})", c.rank, c.host)
}

/// The "All clients" result: every client's grouped units ([`group_results`] of each run) merged position
/// by position with [`merge_job`] — the k-th unit of every client becomes the k-th merged unit, named
/// [`ALL_CLIENTS`]. `Err` when there are no clients or their units differ in count, job name or groupid
/// (they ran different jobs). The result takes `global_options`, `percentile_list` and `notes` from the
/// first client and the earliest `start_time`; its jobs are already grouped ([`group_results`] of it
/// returns them unchanged).
pub fn all_clients(clients: &[ClientRun]) -> Result<RunResult, MergeError> {
    let Some(first) = clients.first() else {
        return Err(MergeError::NoClients);
    };
    let reference = group_results(&first.run);
    let mut merged = reference.clone();
    let mut start_time = first.run.start_time;
    for c in &clients[1..] {
        let units = group_results(&c.run);
        if units.len() != reference.len() {
            return Err(MergeError::UnitCount {
                client: who(c),
                units: units.len(),
                first: who(first),
                first_units: reference.len(),
            });
        }
        for (index, (unit, want)) in units.iter().zip(&reference).enumerate() {
            if unit.name != want.name || unit.groupid != want.groupid {
                return Err(MergeError::UnitMismatch {
                    index,
                    client: who(c),
                    name: unit.name.clone(),
                    groupid: unit.groupid,
                    first: who(first),
                    first_name: want.name.clone(),
                    first_groupid: want.groupid,
                });
            }
            merge_job(&mut merged[index], unit);
        }
        start_time = start_time.min(c.run.start_time);
    }
    for unit in &mut merged {
        unit.name = ALL_CLIENTS.to_string();
    }
    Ok(RunResult {
        jobs: merged,
        global_options: first.run.global_options.clone(),
        start_time,
        percentile_list: first.run.percentile_list.clone(),
        notes: first.run.notes.clone(),
    })
}

/// The clients in rank order (stable for equal ranks).
fn by_rank(clients: &[ClientRun]) -> Vec<&ClientRun> {
    let mut sorted: Vec<&ClientRun> = clients.iter().collect();
    sorted.sort_by_key(|c| c.rank);
    sorted
}

/// Appends `extra` to a job object, after fio's keys.
fn extend(job: &mut Value, extra: &[(&str, Value)]) {
    if let Some(o) = job.as_object_mut() {
        for (k, v) in extra {
            o.insert((*k).to_string(), v.clone());
        }
    }
}

/// Takes the "jobs" array out of a report (leaving null in its place).
fn take_jobs(report: &mut Value) -> Vec<Value> {
    match report.get_mut("jobs").map(Value::take) {
        Some(Value::Array(jobs)) => jobs,
        _ => Vec::new(),
    }
}

/// fio's client-mode JSON (`--output-format=json` / `json+` with `--client`): the top-level keys of
/// [`to_fio_json`] of the merged run `all`, with "client_stats" in place of "jobs": every client's job
/// objects (from [`to_fio_json`] of that client's run) in rank order, each with "hostname", "port" (0) and
/// "nfsbench_rank" added at the end, followed by the merged units' objects with "jobname" and "hostname"
/// "All clients", "port" 0 and "nfsbench_job" (the unit's job name). The "nfsbench" object gains "clients"
/// and "hosts". See the module docs for how this differs from fio.
pub fn to_fio_client_json(clients: &[ClientRun], all: &RunResult, plus: bool) -> Value {
    let sorted = by_rank(clients);
    let mut stats = Vec::new();
    for c in &sorted {
        for mut job in take_jobs(&mut to_fio_json(&c.run, plus)) {
            extend(&mut job, &[("hostname", json!(c.host)), ("port", json!(0)), ("nfsbench_rank", json!(c.rank))]);
            stats.push(job);
        }
    }
    // The units' own names: those of the clients (all_clients checked that they agree).
    let names: Vec<String> =
        sorted.first().map(|c| group_results(&c.run).into_iter().map(|u| u.name).collect()).unwrap_or_default();
    let mut merged = to_fio_json(all, plus);
    for (k, mut job) in take_jobs(&mut merged).into_iter().enumerate() {
        let name = names.get(k).map(|n| json!(n)).unwrap_or_else(|| job["jobname"].clone());
        job["jobname"] = json!(ALL_CLIENTS);
        extend(&mut job, &[("hostname", json!(ALL_CLIENTS)), ("port", json!(0)), ("nfsbench_job", name)]);
        stats.push(job);
    }
    let mut hosts: Vec<&str> = Vec::new();
    for c in &sorted {
        if !hosts.contains(&c.host.as_str()) {
            hosts.push(&c.host);
        }
    }
    if let Some(nb) = merged.get_mut("nfsbench").and_then(Value::as_object_mut) {
        nb.insert("clients".into(), json!(clients.len()));
        nb.insert("hosts".into(), json!(hosts));
    }
    let mut root = Map::new();
    if let Value::Object(o) = merged {
        for (k, v) in o {
            if k == "jobs" {
                root.insert("client_stats".into(), Value::Array(std::mem::take(&mut stats)));
            } else {
                root.insert(k, v);
            }
        }
    }
    Value::Object(root)
}

/// Normal text in client mode: each client's [`to_normal_text`] (rank order) with every line prefixed
/// `<HOST rank K> ` (fio prefixes `<HOST> `), then a header line `All clients (N):` and [`to_normal_text`]
/// of the merged run `all`.
pub fn to_client_text(clients: &[ClientRun], all: &RunResult) -> String {
    let mut out = String::new();
    for c in by_rank(clients) {
        let prefix = format!("<{} rank {}> ", c.host, c.rank);
        for line in to_normal_text(&c.run).lines() {
            let _ = writeln!(out, "{prefix}{line}");
        }
    }
    let _ = write!(out, "\n{ALL_CLIENTS} ({}):\n", clients.len());
    out.push_str(&to_normal_text(all));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Dir, JobRecorder, JobResult, LatencyStat};
    use std::collections::BTreeMap;
    use std::time::{Duration, Instant, SystemTime};

    fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// Deterministic samples of one job clone: (dir, bytes, slat, clat, offset µs).
    fn samples(client: u64, clone: u64, n: u64) -> Vec<(Dir, u64, u64, u64, u64)> {
        (0..n)
            .map(|i| {
                let x = (i * 2_654_435_761 + client * 1_000_003 + clone * 7_919) % 999_983;
                let dir = if x.is_multiple_of(4) { Dir::Write } else { Dir::Read };
                let clat = 1_000 + x * (3 + client) + if i.is_multiple_of(211) { 25_000_000 } else { 0 };
                (dir, 4096 << (x % 3), x % 700, clat, i * 2_000 + x % 1_000)
            })
            .collect()
    }

    fn recorder(start: Instant, s: &[(Dir, u64, u64, u64, u64)], end_ms: u64) -> JobRecorder {
        let mut r = JobRecorder::new(start);
        for &(dir, bytes, slat, clat, at) in s {
            r.record_depth(1 + (clat % 9) as u32);
            r.record_io(dir, bytes, slat, clat, start + Duration::from_micros(at));
            if clat.is_multiple_of(13) {
                r.record_sync(clat / 3);
            }
        }
        r.finish(start + Duration::from_millis(end_ms));
        r
    }

    fn job(name: &str, groupid: u32, recorder: JobRecorder, runtime_ms: u64, options: &[(&str, &str)]) -> JobResult {
        JobResult {
            name: name.to_string(),
            groupid,
            jobs: 1,
            error: 0,
            runtime: Duration::from_millis(runtime_ms),
            recorder,
            cpu: crate::CpuUsage { usr_pct: 2.0, sys_pct: 10.0, ctx: 100, majf: 0, minf: 7, ..Default::default() },
            job_options: opts(options),
            description: None,
            verify_errors: 0,
        }
    }

    /// Client `c`: job "a" as two numjobs clones with group_reporting (one unit), then job "b" alone,
    /// without group_reporting, in group 1. Run times differ per client so the longest one matters.
    fn client(c: u64, host: &str, start: Instant, t0: SystemTime) -> ClientRun {
        let run_ms = 1_000 + 150 * c;
        let mut jobs = Vec::new();
        for clone in 0..2 {
            let s = samples(c, clone, 400 + 50 * clone);
            let opts = [("rw", "randrw"), ("numjobs", "2"), ("group_reporting", "1")];
            jobs.push(job("a", 0, recorder(start, &s, run_ms), run_ms - 10 * clone, &opts));
        }
        let s = samples(c, 9, 300);
        jobs.push(job("b", 1, recorder(start, &s, run_ms), run_ms + 5, &[("rw", "randread"), ("stonewall", "")]));
        ClientRun {
            host: host.to_string(),
            rank: c as usize,
            run: RunResult {
                jobs,
                global_options: opts(&[("bs", "4k"), ("lat_percentiles", "1")]),
                start_time: t0 + Duration::from_millis(c * 7),
                percentile_list: None,
                notes: vec![("target".into(), format!("{host}:/export"))],
            },
        }
    }

    fn three_clients() -> Vec<ClientRun> {
        let (start, t0) = (Instant::now(), SystemTime::now() - Duration::from_secs(5));
        vec![client(0, "node-a", start, t0), client(1, "node-b", start, t0), client(2, "node-a", start, t0)]
    }

    fn rel_eq(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
    }

    #[test]
    fn merged_units_sum_the_clients_like_fio_aggregates() {
        let clients = three_clients();
        let all = all_clients(&clients).unwrap();
        assert_eq!(all.jobs.len(), 2);
        assert_eq!(all.jobs.iter().map(|j| j.jobs).collect::<Vec<_>>(), [6, 3]);
        let merged = to_fio_json(&all, true);
        let each: Vec<Value> = clients.iter().map(|c| to_fio_json(&c.run, true)).collect();
        for unit in 0..2 {
            for dir in ["read", "write"] {
                for lat in ["clat_ns", "lat_ns"] {
                    let m = &merged["jobs"][unit][dir][lat];
                    let parts: Vec<&Value> = each.iter().map(|e| &e["jobs"][unit][dir][lat]).collect();
                    // Bins: the sum by key.
                    let mut bins: BTreeMap<String, u64> = BTreeMap::new();
                    for p in &parts {
                        for (k, v) in p["bins"].as_object().unwrap() {
                            *bins.entry(k.clone()).or_default() += v.as_u64().unwrap();
                        }
                    }
                    let got: BTreeMap<String, u64> =
                        m["bins"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_u64().unwrap())).collect();
                    assert_eq!(got, bins, "unit {unit} {dir} {lat}");
                    // N, mean, min, max.
                    let n: u64 = parts.iter().map(|p| p["N"].as_u64().unwrap()).sum();
                    assert_eq!(m["N"].as_u64().unwrap(), n);
                    let mean =
                        parts.iter().map(|p| p["mean"].as_f64().unwrap() * p["N"].as_f64().unwrap()).sum::<f64>()
                            / n as f64;
                    assert!(rel_eq(m["mean"].as_f64().unwrap(), mean), "{} vs {mean}", m["mean"]);
                    let min = parts.iter().map(|p| p["min"].as_u64().unwrap()).min().unwrap();
                    let max = parts.iter().map(|p| p["max"].as_u64().unwrap()).max().unwrap();
                    assert_eq!((m["min"].as_u64().unwrap(), m["max"].as_u64().unwrap()), (min, max));
                }
                // io_bytes summed; bandwidth = all bytes over the longest run time (fio's aggregate).
                let bytes: u64 = each.iter().map(|e| e["jobs"][unit][dir]["io_bytes"].as_u64().unwrap()).sum();
                let m = &merged["jobs"][unit][dir];
                assert_eq!(m["io_bytes"].as_u64().unwrap(), bytes);
                let longest = each.iter().map(|e| e["jobs"][unit][dir]["runtime"].as_u64().unwrap()).max().unwrap();
                assert_eq!(m["runtime"].as_u64().unwrap(), longest);
                if bytes > 0 {
                    assert_eq!(m["bw_bytes"].as_u64().unwrap(), bytes * 1000 / longest);
                    assert_eq!(m["bw"].as_u64().unwrap(), bytes * 1000 / longest / 1024);
                }
                let total: u64 = each.iter().map(|e| e["jobs"][unit][dir]["total_ios"].as_u64().unwrap()).sum();
                assert_eq!(m["total_ios"].as_u64().unwrap(), total);
            }
            // job_runtime: the members' run times summed.
            let jr: u64 = each.iter().map(|e| e["jobs"][unit]["job_runtime"].as_u64().unwrap()).sum();
            assert_eq!(merged["jobs"][unit]["job_runtime"].as_u64().unwrap(), jr);
        }
        // The run status group of the merged report is fio's aggregate as well.
        let text = to_normal_text(&all);
        assert!(text.contains("All clients: (groupid=0, jobs=6)"), "{text}");
        assert!(text.contains("All clients: (groupid=1, jobs=3)"), "{text}");
    }

    #[test]
    fn merged_percentiles_equal_those_of_all_samples_recorded_in_one_stat() {
        let clients = three_clients();
        let all = all_clients(&clients).unwrap();
        // Every clat sample of unit "a" (clones 0 and 1 of every client), read direction, in one stat.
        let mut one = LatencyStat::new();
        let mut sync = LatencyStat::new();
        for c in 0..3 {
            for clone in 0..2 {
                for (dir, _, _, clat, _) in samples(c, clone, 400 + 50 * clone) {
                    if dir == Dir::Read {
                        one.record(clat);
                    }
                    if clat.is_multiple_of(13) {
                        sync.record(clat / 3);
                    }
                }
            }
        }
        let plist = all.percentiles();
        let merged = all.jobs[0].recorder.clat(Dir::Read);
        assert_eq!(merged.count(), one.count());
        assert_eq!(merged.percentiles(&plist), one.percentiles(&plist));
        assert_eq!(merged.bins(), one.bins());
        assert_eq!(
            (merged.min(), merged.max(), merged.mean(), merged.stddev()),
            (one.min(), one.max(), one.mean(), one.stddev())
        );
        let merged_sync = all.jobs[0].recorder.sync_lat();
        assert_eq!(merged_sync.percentiles(&plist), sync.percentiles(&plist));
        // And in the JSON, percentile by percentile.
        let v = to_fio_json(&all, false);
        let p = v["jobs"][0]["read"]["clat_ns"]["percentile"].as_object().unwrap();
        let want: Vec<u64> = one.percentiles(&plist).into_iter().map(|(_, v)| v).collect();
        assert_eq!(p.values().map(|v| v.as_u64().unwrap()).collect::<Vec<_>>(), want);
    }

    #[test]
    fn merged_run_is_already_grouped() {
        let clients = three_clients();
        let all = all_clients(&clients).unwrap();
        let again = group_results(&all);
        assert_eq!(again.len(), all.jobs.len());
        for (a, b) in all.jobs.iter().zip(&again) {
            assert_eq!((&a.name, a.groupid, a.jobs, a.runtime), (&b.name, b.groupid, b.jobs, b.runtime));
            assert_eq!(a.recorder.total_ios(Dir::Read), b.recorder.total_ios(Dir::Read));
            assert_eq!(a.recorder.series.len(), b.recorder.series.len());
        }
        assert_eq!(all.global_options, clients[0].run.global_options);
        assert_eq!(all.notes, clients[0].run.notes);
        assert_eq!(all.start_time, clients[0].run.start_time);
        assert!(all.jobs.iter().all(|j| j.name == ALL_CLIENTS));
    }

    #[test]
    fn clients_that_ran_different_jobs_are_refused() {
        let mut clients = three_clients();
        clients[2].run.jobs[2].name = "c".into();
        let e = all_clients(&clients).unwrap_err();
        assert!(matches!(e, MergeError::UnitMismatch { index: 1, .. }), "{e:?}");
        let e = e.to_string();
        assert!(
            e.contains("job 1 of rank 2 (node-a) is \"c\" in group 1, but \"b\" in group 1 on rank 0 (node-a)"),
            "{e}"
        );

        let mut clients = three_clients();
        clients[1].run.jobs[2].groupid = 2;
        let e = all_clients(&clients).unwrap_err().to_string();
        assert!(e.contains("\"b\" in group 2, but \"b\" in group 1"), "{e}");

        let mut clients = three_clients();
        clients[1].run.jobs.pop();
        let e = all_clients(&clients).unwrap_err();
        assert!(matches!(e, MergeError::UnitCount { units: 1, first_units: 2, .. }), "{e:?}");
        let e = e.to_string();
        assert!(e.contains("reports 1 job(s) but rank 0 (node-a) reports 2"), "{e}");

        assert_eq!(all_clients(&[]).unwrap_err(), MergeError::NoClients);
    }

    #[test]
    fn client_json_has_fios_client_shape() {
        let clients = three_clients();
        let all = all_clients(&clients).unwrap();
        let v = to_fio_client_json(&clients, &all, true);
        let root = v.as_object().unwrap();
        let keys: Vec<&str> = root.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["fio version", "timestamp", "timestamp_ms", "time", "global options", "client_stats", "nfsbench"]
        );
        let stats = v["client_stats"].as_array().unwrap();
        // Two units per client, then the two merged units.
        assert_eq!(stats.len(), 3 * 2 + 2);
        let hosts: Vec<&str> = stats.iter().map(|j| j["hostname"].as_str().unwrap()).collect();
        assert_eq!(hosts, ["node-a", "node-a", "node-b", "node-b", "node-a", "node-a", ALL_CLIENTS, ALL_CLIENTS]);
        let names: Vec<&str> = stats.iter().map(|j| j["jobname"].as_str().unwrap()).collect();
        assert_eq!(names, ["a", "b", "a", "b", "a", "b", ALL_CLIENTS, ALL_CLIENTS]);
        let ranks: Vec<Option<u64>> = stats.iter().map(|j| j["nfsbench_rank"].as_u64()).collect();
        assert_eq!(ranks, [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2), None, None]);
        assert_eq!(stats[6]["nfsbench_job"], "a");
        assert_eq!(stats[7]["nfsbench_job"], "b");
        assert!(stats.iter().all(|j| j["port"] == 0));
        // fio's keys first, in fio's order; ours appended.
        for j in stats {
            let keys: Vec<&str> = j.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys[..2], ["jobname", "groupid"]);
            let tail = &keys[keys.len() - 3..];
            assert!(
                tail == ["hostname", "port", "nfsbench_rank"] || tail == ["hostname", "port", "nfsbench_job"],
                "{tail:?}"
            );
            assert_eq!(keys[keys.len() - 4], "nfsbench_verify_errors");
        }
        assert_eq!(v["nfsbench"]["clients"], 3);
        assert_eq!(v["nfsbench"]["hosts"], json!(["node-a", "node-b"]));
        // Rank order even when the slice is not.
        let mut shuffled = clients.clone();
        shuffled.reverse();
        let w = to_fio_client_json(&shuffled, &all, false);
        let ranks: Vec<Option<u64>> =
            w["client_stats"].as_array().unwrap().iter().map(|j| j["nfsbench_rank"].as_u64()).collect();
        assert_eq!(ranks, [Some(0), Some(0), Some(1), Some(1), Some(2), Some(2), None, None]);
    }

    #[test]
    fn client_text_prefixes_every_client_line_then_prints_all_clients() {
        let clients = three_clients();
        let all = all_clients(&clients).unwrap();
        let text = to_client_text(&clients, &all);
        let (per_client, merged) = text.split_once("\nAll clients (3):\n").unwrap();
        for line in per_client.lines() {
            assert!(
                line.starts_with("<node-a rank 0> ")
                    || line.starts_with("<node-b rank 1> ")
                    || line.starts_with("<node-a rank 2> "),
                "{line:?}"
            );
        }
        assert!(per_client.contains("<node-b rank 1> a: (groupid=0, jobs=2)"), "{per_client}");
        assert!(per_client.contains("<node-a rank 2> Run status group 1 (all jobs):"));
        assert!(merged.starts_with("\nAll clients: (groupid=0, jobs=6)"), "{merged}");
        assert!(merged.contains("\nAll clients: (groupid=1, jobs=3)"), "{merged}");
        assert!(merged.contains("\nRun status group 1 (all jobs):\n"), "{merged}");
        assert!(!merged.contains("<node-"));
    }

    #[test]
    fn merging_results_carried_on_the_wire_gives_the_same_report() {
        let clients = three_clients();
        let carried: Vec<ClientRun> = clients
            .iter()
            .map(|c| {
                let jobs = crate::job_codec::decode_jobs(&crate::job_codec::encode_jobs(&c.run.jobs)).unwrap();
                ClientRun { run: RunResult { jobs, ..c.run.clone() }, ..c.clone() }
            })
            .collect();
        let strip = |mut v: Value| {
            for k in ["timestamp", "timestamp_ms", "time"] {
                v.as_object_mut().map(|o| o.shift_remove(k));
            }
            for j in v["client_stats"].as_array_mut().unwrap() {
                j.as_object_mut().map(|o| o.shift_remove("elapsed"));
            }
            serde_json::to_string(&v).unwrap()
        };
        let a = strip(to_fio_client_json(&clients, &all_clients(&clients).unwrap(), true));
        let b = strip(to_fio_client_json(&carried, &all_clients(&carried).unwrap(), true));
        assert_eq!(a, b);
    }
}
