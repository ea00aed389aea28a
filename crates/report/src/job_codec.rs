//! An exact, self-describing byte form of a run's job results, for carrying them between processes
//! (each MPI rank sends its `Vec<JobResult>` to rank 0, which merges them; see [`crate::clients`]).
//!
//! The bytes are JSON text (one object, no whitespace):
//!
//! ```text
//! {"format":"nfsbench-job-results","version":1,"jobs":[JOB, …]}
//! ```
//!
//! Every field of [`JobResult`] and of its recorder is carried, so that `decode_jobs(encode_jobs(x))`
//! reports exactly what `x` does (same percentiles, bins, moments, bandwidth samples, text and JSON):
//! latency moments as exact integers (Σx and Σx² as u128 decimal numbers), histograms as their non-empty
//! buckets `[value, count]` (the bucket's highest equivalent value, capped at [`HIST_MAX_NS`];
//! re-recorded into a histogram of the same bounds), floating-point CPU figures as their IEEE-754 bit
//! patterns (u64), durations as nanoseconds. The recorder's interval start is not carried: a decoded
//! recorder counts from the moment it was decoded, which only matters for samples recorded afterwards.
//!
//! The bytes come from other processes, so [`decode_jobs`] checks everything it builds and answers a
//! [`DecodeError`] rather than panicking: another format or version, malformed JSON, unknown or missing
//! fields, trailing bytes, more than [`MAX_JOBS`] jobs, maps and bucket arrays of the wrong length,
//! inconsistent latency distributions (histogram counts not summing to the sample count, values above
//! [`HIST_MAX_NS`], min > max, Σx outside count × [min, max]), bandwidth series longer than 10,000,000
//! intervals or with bytes/ios lengths that differ, recorders without a series, durations beyond u64
//! nanoseconds.
//!
//! Memory stays proportional to the input: everything is parsed from elements actually present (no
//! length field is trusted). The one large allocation is the fixed-size histogram (about 270 KiB) of each
//! non-empty latency distribution: at most one per [`HIST_INPUT_BYTES`] bytes of input is accepted, so a
//! decoded message takes at most ~2,200 times its size. Real messages stay well inside that limit (every
//! field being required, the smallest job with seven distributions is ~1.2 KB of text); it matters
//! because serde also reads each object from an array of its fields, without the keys.
//!
//! [`HIST_MAX_NS`]: crate::HIST_MAX_NS

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::cpu::CpuUsage;
use crate::latency::{InconsistentDistribution, LatencyStat};
use crate::rate::{RateSeries, MAX_INTERVALS};
use crate::recorder::{DirStats, JobRecorder, LatBuckets};
use crate::result::JobResult;

/// The `format` string of the byte form.
pub const FORMAT: &str = "nfsbench-job-results";
/// The version this build writes and reads.
pub const VERSION: u64 = 1;
/// Most jobs one message may carry.
pub const MAX_JOBS: usize = 100_000;
/// Input bytes that each non-empty latency histogram must be paid with (see the module docs).
pub const HIST_INPUT_BYTES: usize = 128;

/// Why bytes are not job results.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON, not the expected shape, truncated, or followed by other bytes.
    #[error("malformed job results: {0}")]
    Malformed(String),
    /// A JSON object of some other kind.
    #[error("not nfsbench job results (format {0:?}, expected {FORMAT:?})")]
    Format(String),
    /// Another version of the byte form.
    #[error("job results in format version {0}; this nfsbench reads version {VERSION}")]
    Version(u64),
    /// More jobs than [`MAX_JOBS`].
    #[error("{0} jobs in one message, more than the {MAX_JOBS} allowed")]
    TooManyJobs(usize),
    /// More latency histograms than the input size pays for.
    #[error("{histograms} non-empty latency distributions in {bytes} bytes: at most one per {HIST_INPUT_BYTES} bytes")]
    TooManyHistograms {
        /// Non-empty distributions in the input.
        histograms: usize,
        /// Input size.
        bytes: usize,
    },
    /// A job whose fields are inconsistent.
    #[error("job {index}: {what}")]
    Invalid {
        /// Position of the job in the message.
        index: usize,
        /// What is wrong, naming the field.
        what: InvalidJob,
    },
}

/// What is wrong with one job of a message; each names the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidJob {
    /// A duration beyond u64 nanoseconds.
    #[error("{field} of {ns} ns exceeds u64 nanoseconds")]
    DurationTooLong { field: String, ns: u128 },
    /// A fixed-size map (latency buckets, depths) with another number of entries.
    #[error("{field} has {len} entries, not {expected}")]
    WrongLength { field: &'static str, len: usize, expected: usize },
    /// A latency distribution whose moments and buckets disagree.
    #[error("{field}: {source}")]
    Distribution { field: String, source: InconsistentDistribution },
    /// Bandwidth series `series` of direction `dir` has as many byte counts as I/O counts.
    #[error("series {series}: {dir} has {bytes} byte counts but {ios} I/O counts")]
    SeriesLengths { series: usize, dir: &'static str, bytes: usize, ios: usize },
    #[error("series {series}: {dir} has {len} intervals, more than {MAX_INTERVALS}")]
    SeriesTooLong { series: usize, dir: &'static str, len: usize },
    #[error("recorder without a rate series")]
    NoSeries,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedJobs {
    format: String,
    version: u64,
    jobs: Vec<EncodedJob>,
}

/// Only `format` and `version`, read first so that another version is named as such rather than as a
/// shape mismatch; everything else is skipped without being stored.
#[derive(Deserialize)]
struct EncodedHeader {
    format: String,
    version: u64,
}

/// Only the number of jobs, read second so that too many are refused before any is built.
#[derive(Deserialize)]
struct EncodedJobCount {
    jobs: Count,
}

/// The length of a JSON array, its elements skipped.
struct Count(usize);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Count;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
                let mut n = 0usize;
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Count(n))
            }
        }
        d.deserialize_seq(Visitor)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedJob {
    name: String,
    groupid: u32,
    jobs: u32,
    error: i32,
    runtime_ns: u128,
    recorder: EncodedRecorder,
    cpu: EncodedCpu,
    job_options: Vec<(String, String)>,
    description: Option<String>,
    verify_errors: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedRecorder {
    read: EncodedDir,
    write: EncodedDir,
    sync: EncodedStat,
    lat_buckets_ns: Vec<u64>,
    lat_buckets_us: Vec<u64>,
    lat_buckets_ms: Vec<u64>,
    depth_map: Vec<u64>,
    submit_map: Vec<u64>,
    complete_map: Vec<u64>,
    first_error: i32,
    total_errors: u64,
    series: Vec<EncodedSeries>,
    member_runtime_ms: Option<u64>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedDir {
    bytes: u64,
    ios: u64,
    short: u64,
    dropped: u64,
    slat: EncodedStat,
    clat: EncodedStat,
    lat: EncodedStat,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedStat {
    count: u64,
    min: u64,
    max: u64,
    sum: u128,
    sum_sq: u128,
    /// Non-empty buckets: (value in the bucket, count), ascending.
    hist: Vec<(u64, u64)>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedSeries {
    read_bytes: Vec<u64>,
    read_ios: Vec<u64>,
    write_bytes: Vec<u64>,
    write_ios: Vec<u64>,
    end_ns: Option<u128>,
}

/// CPU figures; the `_bits` fields are `f64::to_bits`, exact where decimal text might not be.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodedCpu {
    usr_pct_bits: u64,
    sys_pct_bits: u64,
    ctx: u64,
    majf: u64,
    minf: u64,
    host_usr_pct_bits: u64,
    host_sys_pct_bits: u64,
    host_idle_pct_bits: u64,
    cpu_seconds_bits: u64,
}

// ---------------------------------------------------------------------------------------------------
// Encoding

fn encoded_stat(s: &LatencyStat) -> EncodedStat {
    let (count, min, max, sum, sum_sq) = s.moments();
    EncodedStat { count, min, max, sum, sum_sq, hist: s.buckets() }
}

fn encoded_dir(d: &DirStats) -> EncodedDir {
    EncodedDir {
        bytes: d.bytes,
        ios: d.ios,
        short: d.short,
        dropped: d.dropped,
        slat: encoded_stat(&d.slat),
        clat: encoded_stat(&d.clat),
        lat: encoded_stat(&d.lat),
    }
}

fn encoded_series(s: &RateSeries) -> EncodedSeries {
    EncodedSeries {
        read_bytes: s.bytes[0].clone(),
        read_ios: s.ios[0].clone(),
        write_bytes: s.bytes[1].clone(),
        write_ios: s.ios[1].clone(),
        end_ns: s.end.map(|d| d.as_nanos()),
    }
}

fn encoded_recorder(r: &JobRecorder) -> EncodedRecorder {
    EncodedRecorder {
        read: encoded_dir(&r.dirs[0]),
        write: encoded_dir(&r.dirs[1]),
        sync: encoded_stat(&r.sync),
        lat_buckets_ns: r.lat_buckets.n.to_vec(),
        lat_buckets_us: r.lat_buckets.u.to_vec(),
        lat_buckets_ms: r.lat_buckets.m.to_vec(),
        depth_map: r.depth_map.to_vec(),
        submit_map: r.submit_map.to_vec(),
        complete_map: r.complete_map.to_vec(),
        first_error: r.first_error,
        total_errors: r.total_errors,
        series: r.series.iter().map(encoded_series).collect(),
        member_runtime_ms: r.member_runtime_ms,
    }
}

fn encoded_cpu(c: &CpuUsage) -> EncodedCpu {
    EncodedCpu {
        usr_pct_bits: c.usr_pct.to_bits(),
        sys_pct_bits: c.sys_pct.to_bits(),
        ctx: c.ctx,
        majf: c.majf,
        minf: c.minf,
        host_usr_pct_bits: c.host_usr_pct.to_bits(),
        host_sys_pct_bits: c.host_sys_pct.to_bits(),
        host_idle_pct_bits: c.host_idle_pct.to_bits(),
        cpu_seconds_bits: c.cpu_seconds.to_bits(),
    }
}

fn encoded_job(j: &JobResult) -> EncodedJob {
    EncodedJob {
        name: j.name.clone(),
        groupid: j.groupid,
        jobs: j.jobs,
        error: j.error,
        runtime_ns: j.runtime.as_nanos(),
        recorder: encoded_recorder(&j.recorder),
        cpu: encoded_cpu(&j.cpu),
        job_options: j.job_options.clone(),
        description: j.description.clone(),
        verify_errors: j.verify_errors,
    }
}

/// The byte form of `jobs` (see the module docs). A job that ran longer than u64 nanoseconds (584 years)
/// encodes, but [`decode_jobs`] refuses it.
pub fn encode_jobs(jobs: &[JobResult]) -> Vec<u8> {
    let encoded =
        EncodedJobs { format: FORMAT.to_string(), version: VERSION, jobs: jobs.iter().map(encoded_job).collect() };
    // Cannot fail: only strings, integers, options and sequences, no maps with non-string keys. Should it
    // ever, the empty message is refused by the decoder as malformed rather than misread.
    serde_json::to_vec(&encoded).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------------
// Decoding

fn duration_ns(ns: u128, field: &str) -> Result<Duration, InvalidJob> {
    u64::try_from(ns)
        .map(Duration::from_nanos)
        .map_err(|_| InvalidJob::DurationTooLong { field: field.to_string(), ns })
}

fn array<const N: usize>(v: &[u64], field: &'static str) -> Result<[u64; N], InvalidJob> {
    <[u64; N]>::try_from(v).map_err(|_| InvalidJob::WrongLength { field, len: v.len(), expected: N })
}

fn stat(s: &EncodedStat, field: &str) -> Result<LatencyStat, InvalidJob> {
    LatencyStat::from_parts((s.count, s.min, s.max, s.sum, s.sum_sq), &s.hist)
        .map_err(|source| InvalidJob::Distribution { field: field.to_string(), source })
}

fn dir(d: &EncodedDir, name: &str) -> Result<DirStats, InvalidJob> {
    Ok(DirStats {
        bytes: d.bytes,
        ios: d.ios,
        short: d.short,
        dropped: d.dropped,
        slat: stat(&d.slat, &format!("{name} slat"))?,
        clat: stat(&d.clat, &format!("{name} clat"))?,
        lat: stat(&d.lat, &format!("{name} lat"))?,
    })
}

fn series(s: EncodedSeries, k: usize) -> Result<RateSeries, InvalidJob> {
    for (dir, b, n) in [("read", &s.read_bytes, &s.read_ios), ("write", &s.write_bytes, &s.write_ios)] {
        if b.len() != n.len() {
            return Err(InvalidJob::SeriesLengths { series: k, dir, bytes: b.len(), ios: n.len() });
        }
        if b.len() > MAX_INTERVALS {
            return Err(InvalidJob::SeriesTooLong { series: k, dir, len: b.len() });
        }
    }
    let end = s.end_ns.map(|ns| duration_ns(ns, &format!("series {k} end"))).transpose()?;
    Ok(RateSeries { bytes: [s.read_bytes, s.write_bytes], ios: [s.read_ios, s.write_ios], end })
}

fn recorder(r: EncodedRecorder) -> Result<JobRecorder, InvalidJob> {
    if r.series.is_empty() {
        return Err(InvalidJob::NoSeries);
    }
    let mut out = JobRecorder::new(Instant::now());
    out.dirs = [dir(&r.read, "read")?, dir(&r.write, "write")?];
    out.sync = stat(&r.sync, "sync")?;
    out.lat_buckets = LatBuckets {
        n: array(&r.lat_buckets_ns, "lat_buckets_ns")?,
        u: array(&r.lat_buckets_us, "lat_buckets_us")?,
        m: array(&r.lat_buckets_ms, "lat_buckets_ms")?,
    };
    out.depth_map = array(&r.depth_map, "depth_map")?;
    out.submit_map = array(&r.submit_map, "submit_map")?;
    out.complete_map = array(&r.complete_map, "complete_map")?;
    out.first_error = r.first_error;
    out.total_errors = r.total_errors;
    out.member_runtime_ms = r.member_runtime_ms;
    out.series = r.series.into_iter().enumerate().map(|(k, s)| series(s, k)).collect::<Result<_, _>>()?;
    Ok(out)
}

fn job(j: EncodedJob) -> Result<JobResult, InvalidJob> {
    let c = &j.cpu;
    let cpu = CpuUsage {
        usr_pct: f64::from_bits(c.usr_pct_bits),
        sys_pct: f64::from_bits(c.sys_pct_bits),
        ctx: c.ctx,
        majf: c.majf,
        minf: c.minf,
        host_usr_pct: f64::from_bits(c.host_usr_pct_bits),
        host_sys_pct: f64::from_bits(c.host_sys_pct_bits),
        host_idle_pct: f64::from_bits(c.host_idle_pct_bits),
        cpu_seconds: f64::from_bits(c.cpu_seconds_bits),
    };
    Ok(JobResult {
        runtime: duration_ns(j.runtime_ns, "runtime")?,
        recorder: recorder(j.recorder)?,
        name: j.name,
        groupid: j.groupid,
        jobs: j.jobs,
        error: j.error,
        cpu,
        job_options: j.job_options,
        description: j.description,
        verify_errors: j.verify_errors,
    })
}

fn histograms(j: &EncodedJob) -> usize {
    let r = &j.recorder;
    let stats = [&r.read.slat, &r.read.clat, &r.read.lat, &r.write.slat, &r.write.clat, &r.write.lat, &r.sync];
    stats.iter().filter(|s| s.count > 0 || !s.hist.is_empty()).count()
}

/// At most one non-empty distribution per [`HIST_INPUT_BYTES`] of input.
fn histogram_budget(histograms: usize, bytes: usize) -> Result<(), DecodeError> {
    if histograms.saturating_mul(HIST_INPUT_BYTES) > bytes {
        return Err(DecodeError::TooManyHistograms { histograms, bytes });
    }
    Ok(())
}

fn malformed(e: serde_json::Error) -> DecodeError {
    DecodeError::Malformed(e.to_string())
}

/// The job results encoded by [`encode_jobs`], checked (see the module docs for what is refused).
pub fn decode_jobs(bytes: &[u8]) -> Result<Vec<JobResult>, DecodeError> {
    let header: EncodedHeader = serde_json::from_slice(bytes).map_err(malformed)?;
    if header.format != FORMAT {
        return Err(DecodeError::Format(header.format));
    }
    if header.version != VERSION {
        return Err(DecodeError::Version(header.version));
    }
    let count: EncodedJobCount = serde_json::from_slice(bytes).map_err(malformed)?;
    if count.jobs.0 > MAX_JOBS {
        return Err(DecodeError::TooManyJobs(count.jobs.0));
    }
    let encoded: EncodedJobs = serde_json::from_slice(bytes).map_err(malformed)?;
    histogram_budget(encoded.jobs.iter().map(histograms).sum(), bytes.len())?;
    encoded
        .jobs
        .into_iter()
        .enumerate()
        .map(|(index, j)| job(j).map_err(|what| DecodeError::Invalid { index, what }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{group_results, to_fio_json, Dir, RunResult, HIST_MAX_NS};
    use serde_json::Value;
    use std::time::SystemTime;

    fn opts(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// A recorder with reads, writes, syncs, errors, depths and completions spread over ~2 s.
    fn sample_recorder(seed: u64, start: Instant) -> JobRecorder {
        let mut r = JobRecorder::new(start);
        for i in 0..400u64 {
            let x = (i * 2_654_435_761 + seed * 7_919) % 1_000_003;
            let dir = if x.is_multiple_of(3) { Dir::Write } else { Dir::Read };
            r.record_depth((x % 70) as u32);
            let clat = 900 + x * 17 + if i.is_multiple_of(97) { 40_000_000 } else { 0 };
            r.record_io(dir, 4096 * (1 + x % 4), x % 500, clat, start + Duration::from_micros(i * 5_000 + seed));
            if x.is_multiple_of(5) {
                r.record_short(dir);
            }
            if x.is_multiple_of(11) {
                r.record_dropped(dir);
            }
            if x.is_multiple_of(7) {
                r.record_sync(x * 11);
            }
        }
        r.record_io(Dir::Read, 512, 0, HIST_MAX_NS * 2, start + Duration::from_millis(1900));
        r.record_error(if seed == 2 { 5 } else { 0 });
        r.record_error(if seed == 3 { 121 } else { 0 });
        r.finish(start + Duration::from_millis(2000 + seed));
        r
    }

    fn sample_job(name: &str, recorder: JobRecorder, seed: u64) -> JobResult {
        JobResult {
            name: name.to_string(),
            groupid: 0,
            jobs: 1,
            error: 0,
            runtime: Duration::from_nanos(2_000_000_123 + seed),
            recorder,
            cpu: CpuUsage {
                usr_pct: 1.0 / 3.0 + seed as f64,
                sys_pct: 38.9,
                ctx: 11716 + seed,
                majf: seed,
                minf: 14,
                host_usr_pct: 0.1 + 0.2,
                host_sys_pct: 1e-300,
                host_idle_pct: 99.5,
                cpu_seconds: std::f64::consts::PI,
            },
            job_options: opts(&[("rw", "randrw"), ("fsync", "16"), ("continue_on_error", "all")]),
            description: Some(format!("job \"{name}\" ✓")),
            verify_errors: seed * 3,
        }
    }

    /// Jobs as a run hands them over: a group of three clones (merged recorders carry several series),
    /// one job alone, and one that recorded nothing.
    fn sample_jobs() -> Vec<JobResult> {
        let start = Instant::now();
        let mut merged = sample_job("grouped", sample_recorder(1, start), 1);
        for seed in [2, 3] {
            crate::merge_job(&mut merged, &sample_job("grouped", sample_recorder(seed, start), seed));
        }
        assert_eq!(merged.recorder.series.len(), 3);
        let mut empty = sample_job("idle", JobRecorder::new(start), 4);
        empty.description = None;
        empty.job_options.clear();
        let mut alone = sample_job("alone", sample_recorder(5, start), 5);
        alone.groupid = 1;
        vec![merged, alone, empty]
    }

    fn run_of(jobs: Vec<JobResult>, start_time: SystemTime) -> RunResult {
        RunResult {
            jobs,
            global_options: opts(&[("group_reporting", "1"), ("lat_percentiles", "1"), ("slat_percentiles", "1")]),
            start_time,
            percentile_list: None,
            notes: vec![("target".into(), "127.0.0.1:/export".into())],
        }
    }

    /// The json+ text without the fields that follow the wall clock.
    fn stable_json(run: &RunResult) -> String {
        let mut v = to_fio_json(run, true);
        for k in ["timestamp", "timestamp_ms", "time"] {
            v.as_object_mut().map(|o| o.shift_remove(k));
        }
        if let Some(jobs) = v["jobs"].as_array_mut() {
            for j in jobs {
                j.as_object_mut().map(|o| o.shift_remove("elapsed"));
            }
        }
        serde_json::to_string(&v).unwrap()
    }

    #[test]
    fn round_trip_reports_byte_identical_json() {
        let jobs = sample_jobs();
        let bytes = encode_jobs(&jobs);
        let decoded = decode_jobs(&bytes).unwrap();
        assert_eq!(decoded.len(), jobs.len());
        let t = SystemTime::now();
        let (a, b) = (run_of(jobs.clone(), t), run_of(decoded.clone(), t));
        let (ja, jb) = (stable_json(&a), stable_json(&b));
        assert_eq!(ja, jb);
        // The report really has the parts that must survive.
        let v: Value = serde_json::from_str(&ja).unwrap();
        assert!(v["jobs"][0]["read"]["clat_ns"]["bins"].as_object().is_some_and(|b| b.len() > 10));
        assert!(v["jobs"][0]["sync"]["lat_ns"]["N"].as_u64().is_some_and(|n| n > 0));
        assert_eq!(v["jobs"][0]["total_err"], 2);
        assert_eq!(v["jobs"][0]["nfsbench_verify_errors"], 3 + 6 + 9);
        assert!(v["jobs"][0]["write"]["bw_samples"].as_u64().is_some_and(|n| n > 3));
        // Field by field, including what the JSON does not show.
        for (x, y) in jobs.iter().zip(&decoded) {
            assert_eq!(
                (&x.name, x.groupid, x.jobs, x.error, x.runtime),
                (&y.name, y.groupid, y.jobs, y.error, y.runtime)
            );
            assert_eq!(x.cpu, y.cpu);
            assert_eq!(x.cpu.usr_pct.to_bits(), y.cpu.usr_pct.to_bits());
            assert_eq!(
                (&x.job_options, &x.description, x.verify_errors),
                (&y.job_options, &y.description, y.verify_errors)
            );
            let (r, s) = (&x.recorder, &y.recorder);
            assert_eq!(r.member_runtime_ms, s.member_runtime_ms);
            assert_eq!(r.lat_buckets.m, s.lat_buckets.m);
            assert_eq!(r.series.len(), s.series.len());
            for (p, q) in r.series.iter().zip(&s.series) {
                assert_eq!((&p.bytes, &p.ios, p.end), (&q.bytes, &q.ios, q.end));
            }
            for d in Dir::ALL {
                for (p, q) in [(r.slat(d), s.slat(d)), (r.clat(d), s.clat(d)), (r.lat(d), s.lat(d))] {
                    assert_eq!(p.moments(), q.moments());
                    assert_eq!(p.bins(), q.bins());
                    assert_eq!(p.percentiles(&[1.0, 50.0, 99.99, 100.0]), q.percentiles(&[1.0, 50.0, 99.99, 100.0]));
                }
            }
            assert_eq!(r.sync.moments(), s.sync.moments());
            assert_eq!(r.sync.bins(), s.sync.bins());
        }
        // Stable: encoding the decoded jobs gives the same bytes.
        assert_eq!(encode_jobs(&decoded), bytes);
        // Grouping after decoding equals grouping before.
        assert_eq!(group_results(&a).len(), group_results(&b).len());
    }

    #[test]
    fn empty_list_round_trips() {
        let bytes = encode_jobs(&[]);
        assert_eq!(bytes, br#"{"format":"nfsbench-job-results","version":1,"jobs":[]}"#);
        assert!(decode_jobs(&bytes).unwrap().is_empty());
    }

    /// The encoding of one small job, as a JSON value to tamper with.
    fn small() -> Value {
        let start = Instant::now();
        let mut r = JobRecorder::new(start);
        r.record_io(Dir::Read, 4096, 10, 2_000, start + Duration::from_millis(100));
        r.record_io(Dir::Read, 4096, 12, 3_000, start + Duration::from_millis(600));
        r.finish(start + Duration::from_millis(1000));
        serde_json::from_slice(&encode_jobs(&[sample_job("small", r, 0)])).unwrap()
    }

    fn decode_value(v: &Value) -> Result<Vec<JobResult>, DecodeError> {
        decode_jobs(&serde_json::to_vec(v).unwrap())
    }

    fn invalid(v: &Value, needle: &str) {
        invalid_bytes(&serde_json::to_vec(v).unwrap(), needle);
    }

    fn invalid_bytes(bytes: &[u8], needle: &str) {
        match decode_jobs(bytes) {
            Err(e @ DecodeError::Invalid { .. }) => assert!(e.to_string().contains(needle), "{e} lacks {needle:?}"),
            Err(e) => panic!("expected an Invalid error with {needle:?}, got {e}"),
            Ok(jobs) => panic!("expected an Invalid error with {needle:?}, got {} jobs", jobs.len()),
        }
    }

    /// `v` as text with `from` replaced by `to` (for numbers a `Value` cannot hold, above u64).
    fn edited(v: &Value, from: &str, to: &str) -> Vec<u8> {
        let text = serde_json::to_string(v).unwrap();
        assert_eq!(text.matches(from).count(), 1, "{from}");
        text.replace(from, to).into_bytes()
    }

    #[test]
    fn small_encoding_decodes() {
        let v = small();
        assert_eq!(decode_value(&v).unwrap().len(), 1);
        assert_eq!(v["jobs"][0]["recorder"]["read"]["clat"]["hist"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn other_format_and_versions_are_rejected() {
        let mut v = small();
        v["version"] = 2.into();
        assert_eq!(decode_value(&v).unwrap_err(), DecodeError::Version(2));
        v["version"] = 0.into();
        assert_eq!(decode_value(&v).unwrap_err(), DecodeError::Version(0));
        let mut v = small();
        v["format"] = "fio".into();
        assert_eq!(decode_value(&v).unwrap_err(), DecodeError::Format("fio".into()));
        assert!(matches!(decode_jobs(b"[1,2]"), Err(DecodeError::Malformed(_))));
        assert!(matches!(decode_jobs(b""), Err(DecodeError::Malformed(_))));
    }

    #[test]
    fn histogram_not_summing_to_count_is_rejected() {
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["hist"][0][1] = 2.into();
        invalid(&v, "read clat: histogram counts sum to 3, not to the sample count 2");
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["count"] = 3.into();
        v["jobs"][0]["recorder"]["read"]["clat"]["sum"] = 7_000.into();
        invalid(&v, "read clat: histogram counts sum to 2, not to the sample count 3");
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["hist"][0][1] = u64::MAX.into();
        invalid(&v, "histogram counts overflow");
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["hist"][0][1] = 0.into();
        invalid(&v, "count 0");
    }

    #[test]
    fn histogram_values_above_the_maximum_are_rejected() {
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["hist"][1][0] = (HIST_MAX_NS + 1).into();
        invalid(&v, "above the histogram's maximum");
        // Out of order, and two values of one bucket.
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["hist"][1][0] = 1_999.into();
        invalid(&v, "not ascending");
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["hist"] = serde_json::json!([[1_000_000, 1], [1_000_001, 1]]);
        invalid(&v, "same bucket");
    }

    #[test]
    fn inconsistent_moments_are_rejected() {
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["min"] = 5_000.into();
        invalid(&v, "min 5000 > max 3000");
        let mut v = small();
        v["jobs"][0]["recorder"]["read"]["clat"]["sum"] = 1.into();
        invalid(&v, "outside count");
        let mut v = small();
        v["jobs"][0]["recorder"]["write"]["clat"]["max"] = 1.into();
        invalid(&v, "write clat: an empty distribution");
    }

    #[test]
    fn bad_rate_series_are_rejected() {
        let mut v = small();
        v["jobs"][0]["recorder"]["series"][0]["read_ios"] = serde_json::json!([1]);
        invalid(&v, "series 0: read has 2 byte counts but 1 I/O counts");
        let mut v = small();
        v["jobs"][0]["recorder"]["series"] = serde_json::json!([]);
        invalid(&v, "without a rate series");
        let bytes = edited(&small(), r#""end_ns":1000000000"#, r#""end_ns":18446744073709551616"#);
        invalid_bytes(&bytes, "series 0 end of 18446744073709551616 ns exceeds u64 nanoseconds");
    }

    #[test]
    fn rate_series_longer_than_the_limit_is_rejected() {
        // 10,000,001 one-digit entries: 20 MB of text per array, parsed and then refused.
        let mut text = String::from_utf8(serde_json::to_vec(&small()).unwrap()).unwrap();
        let long = format!("[{}0]", "0,".repeat(MAX_INTERVALS));
        let at = text.find(r#""write_bytes":[]"#).unwrap();
        text.replace_range(at..at + r#""write_bytes":[]"#.len(), &format!(r#""write_bytes":{long}"#));
        let at = text.find(r#""write_ios":[]"#).unwrap();
        text.replace_range(at..at + r#""write_ios":[]"#.len(), &format!(r#""write_ios":{long}"#));
        let e = decode_jobs(text.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("write has 10000001 intervals, more than 10000000"), "{e}");
    }

    #[test]
    fn too_many_jobs_are_rejected_before_any_is_parsed() {
        let jobs = vec!["{}"; MAX_JOBS + 1].join(",");
        let text = format!(r#"{{"format":"nfsbench-job-results","version":1,"jobs":[{jobs}]}}"#);
        assert_eq!(decode_jobs(text.as_bytes()).unwrap_err(), DecodeError::TooManyJobs(MAX_JOBS + 1));
        let jobs = vec!["{}"; MAX_JOBS].join(",");
        let text = format!(r#"{{"format":"nfsbench-job-results","version":1,"jobs":[{jobs}]}}"#);
        assert!(matches!(decode_jobs(text.as_bytes()), Err(DecodeError::Malformed(_))));
    }

    #[test]
    fn maps_of_the_wrong_length_are_rejected() {
        for (key, n) in [
            ("depth_map", 7),
            ("submit_map", 7),
            ("complete_map", 7),
            ("lat_buckets_ns", 10),
            ("lat_buckets_us", 10),
            ("lat_buckets_ms", 12),
        ] {
            for len in [n - 1, n + 1] {
                let mut v = small();
                v["jobs"][0]["recorder"][key] = serde_json::json!(vec![0u64; len]);
                invalid(&v, &format!("{key} has {len} entries, not {n}"));
            }
        }
    }

    #[test]
    fn trailing_bytes_unknown_and_missing_fields_are_rejected() {
        let bytes = encode_jobs(&sample_jobs()[1..2]);
        for tail in [&b"x"[..], b"{}", b"\0", b",", b"]"] {
            let mut b = bytes.clone();
            b.extend_from_slice(tail);
            assert!(matches!(decode_jobs(&b), Err(DecodeError::Malformed(_))), "{tail:?}");
        }
        let mut v = small();
        v["jobs"][0]["recorder"]["extra"] = 1.into();
        assert!(matches!(decode_value(&v), Err(DecodeError::Malformed(_))));
        let mut v = small();
        v["jobs"][0]["cpu"].as_object_mut().unwrap().shift_remove("ctx");
        assert!(matches!(decode_value(&v), Err(DecodeError::Malformed(_))));
        let bytes = edited(&small(), r#""runtime_ns":2000000123"#, r#""runtime_ns":18446744073709551616"#);
        invalid_bytes(&bytes, "runtime of 18446744073709551616 ns");
    }

    /// One job whose seven distributions hold one sample each, in its smallest form (empty name, no
    /// options, no series entries).
    fn seven_single_samples() -> Value {
        let mut v = small();
        let stat = serde_json::json!({"count":1,"min":0,"max":0,"sum":0,"sum_sq":0,"hist":[[0,1]]});
        for d in ["read", "write"] {
            for s in ["slat", "clat", "lat"] {
                v["jobs"][0]["recorder"][d][s] = stat.clone();
            }
        }
        v["jobs"][0]["recorder"]["sync"] = stat;
        v["jobs"][0]["name"] = "".into();
        v["jobs"][0]["description"] = Value::Null;
        v["jobs"][0]["job_options"] = serde_json::json!([]);
        v["jobs"][0]["recorder"]["series"] =
            serde_json::json!([{"read_bytes":[],"read_ios":[],"write_bytes":[],"write_ios":[],"end_ns":null}]);
        v
    }

    #[test]
    fn histograms_must_be_paid_for_with_input_bytes() {
        // The shape alone makes every non-empty distribution cost well over HIST_INPUT_BYTES: even a job
        // whose seven distributions hold one sample each, with every other field at its shortest, is
        // ~1.2 KB. So real messages always pass the budget; it only bounds what the shape would allow.
        let mut v = seven_single_samples();
        let zero_numbers = |o: &mut Value| {
            for (_, x) in o.as_object_mut().unwrap().iter_mut() {
                if x.is_u64() || x.is_i64() {
                    *x = 0.into();
                }
            }
        };
        zero_numbers(&mut v["jobs"][0]);
        zero_numbers(&mut v["jobs"][0]["cpu"]);
        let bytes = serde_json::to_vec(&v).unwrap();
        assert!(bytes.len() > 7 * HIST_INPUT_BYTES, "{} bytes", bytes.len());
        assert_eq!(decode_jobs(&bytes).unwrap().len(), 1);
        assert_eq!(histogram_budget(7, 7 * HIST_INPUT_BYTES), Ok(()));
        assert_eq!(
            histogram_budget(7, 7 * HIST_INPUT_BYTES - 1),
            Err(DecodeError::TooManyHistograms { histograms: 7, bytes: 7 * HIST_INPUT_BYTES - 1 })
        );
    }

    /// A message whose one job is written in serde's array form (no keys), with `full` of its seven
    /// distributions holding one sample.
    fn array_form(jobs: usize, full: usize) -> Vec<u8> {
        let stats: Vec<&str> =
            (0..7).map(|i| if i < full { "[1,0,0,0,0,[[0,1]]]" } else { "[0,0,0,0,0,[]]" }).collect();
        let zeros = |n: usize| format!("[{}]", vec!["0"; n].join(","));
        let dir = |s: &[&str]| format!("[0,0,0,0,{}]", s.join(","));
        let recorder = format!(
            "[{},{},{},{},{},{},{},{},{},0,0,[[[],[],[],[],null]],null]",
            dir(&stats[0..3]),
            dir(&stats[3..6]),
            stats[6],
            zeros(10),
            zeros(10),
            zeros(12),
            zeros(7),
            zeros(7),
            zeros(7)
        );
        let job = format!(r#"["",0,0,0,0,{recorder},{},[],null,0]"#, zeros(9));
        let jobs = vec![job; jobs].join(",");
        format!(r#"{{"format":"nfsbench-job-results","version":1,"jobs":[{jobs}]}}"#).into_bytes()
    }

    #[test]
    fn keyless_array_form_is_bounded_by_the_histogram_budget() {
        // serde reads a struct from an array of its fields too; then a distribution costs ~20 bytes.
        let one = array_form(1, 1);
        assert!(one.len() < 7 * HIST_INPUT_BYTES);
        assert_eq!(decode_jobs(&one).unwrap()[0].recorder.slat(Dir::Read).count(), 1);
        for (jobs, full) in [(1, 7), (200, 7), (200, 4)] {
            let bytes = array_form(jobs, full);
            let histograms = jobs * full;
            assert!(bytes.len() < histograms * HIST_INPUT_BYTES);
            assert_eq!(
                decode_jobs(&bytes).unwrap_err(),
                DecodeError::TooManyHistograms { histograms, bytes: bytes.len() }
            );
        }
    }

    #[test]
    fn every_truncation_is_an_error_without_panic() {
        let bytes = encode_jobs(&[JobResult { ..sample_jobs().swap_remove(2) }]);
        let full = serde_json::to_vec(&small()).unwrap();
        for b in [&bytes, &full] {
            for n in 0..b.len() {
                assert!(decode_jobs(&b[..n]).is_err(), "prefix of {n} bytes decoded");
            }
            assert!(decode_jobs(b).is_ok());
        }
    }
}
