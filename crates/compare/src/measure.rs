//! What one repetition of one cell measured, read from the fio JSON (json+) that `nfsbench run` wrote.

use crate::results::{IoCounters, KernelCounters, Negotiation, RdmaCounters};
use serde_json::Value;
use std::collections::BTreeMap;

/// One run's figures.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RepMeasure {
    /// Bytes read + written in the measured window.
    pub bytes: u64,
    /// I/Os completed in the measured window.
    pub ios: u64,
    pub bandwidth_mbs: f64,
    pub iops: f64,
    /// Mean completion latency over both directions, µs.
    pub clat_mean_us: f64,
    /// Standard deviation of the completion latency over both directions (pooled), µs.
    pub clat_stdev_us: f64,
    /// Completion-latency histogram, ns bucket value → count, both directions.
    pub clat_bins: BTreeMap<u64, u64>,
    /// The measured window, s.
    pub runtime_s: f64,
    /// When the report was written (end of the window, within the unmount), ms since the epoch.
    pub end_ms: u64,
    /// The client process's CPU-seconds over the window.
    pub client_cpu_s: f64,
    /// The whole host's busy CPU-seconds over the window (every process, irq, softirq).
    pub host_cpu_s: f64,
    /// The transport the client reported ("rdma (soft (...))").
    pub transport: String,
    /// Kernel engine: what the mount negotiated and the client's RPC counters over the window.
    pub kernel: Option<KernelRep>,
}

/// The `nfsbench.kernel` section `nfsbench run --engine kernel` writes: the mount's negotiation and
/// the kernel client's counters over the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelRep {
    pub negotiation: Negotiation,
    pub totals: KernelTotals,
}

/// The kernel client's counters over windows, as sums, so that repetitions add up before any mean is
/// taken ([`KernelTotals::counters`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelTotals {
    pub rpcs: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// The data operations (READ, WRITE, COMMIT) and their round trip, execution and backlog time, ms.
    pub data_rpcs: u64,
    pub rtt_ms: f64,
    pub exec_ms: f64,
    pub backlog_ms: f64,
    pub rdma: Option<RdmaCounters>,
    /// A block or SMB case's I/O as its client counted it: I/Os, bytes and time (ms).
    pub io: Option<IoTotals>,
}

/// A block device's or an SMB client's I/O counters over windows, as sums.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IoTotals {
    /// What counted them: "block device", "SMB client".
    pub source: String,
    pub read_ios: u64,
    pub write_ios: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub ticks_ms: u64,
}

impl KernelTotals {
    /// Both windows' counters together.
    pub fn add(&mut self, other: &KernelTotals) {
        if let Some(d) = &other.io {
            let a = self.io.get_or_insert_with(|| IoTotals { source: d.source.clone(), ..IoTotals::default() });
            a.read_ios += d.read_ios;
            a.write_ios += d.write_ios;
            a.bytes_read += d.bytes_read;
            a.bytes_written += d.bytes_written;
            a.ticks_ms += d.ticks_ms;
        }
        self.rpcs += other.rpcs;
        self.retransmissions += other.retransmissions;
        self.timeouts += other.timeouts;
        self.bytes_sent += other.bytes_sent;
        self.bytes_received += other.bytes_received;
        self.data_rpcs += other.data_rpcs;
        self.rtt_ms += other.rtt_ms;
        self.exec_ms += other.exec_ms;
        self.backlog_ms += other.backlog_ms;
        if let Some(r) = &other.rdma {
            let a = self.rdma.get_or_insert_with(RdmaCounters::default);
            a.read_chunks += r.read_chunks;
            a.write_chunks += r.write_chunks;
            a.reply_chunks += r.reply_chunks;
            a.hardway_registrations += r.hardway_registrations;
            a.failed_marshals += r.failed_marshals;
            a.bad_replies += r.bad_replies;
        }
    }

    /// The counters as the report gives them: sums, and times as means per data RPC.
    pub fn counters(&self) -> KernelCounters {
        let mean = |total: f64| if self.data_rpcs > 0 { total / self.data_rpcs as f64 } else { 0.0 };
        KernelCounters {
            rpcs: self.rpcs,
            retransmissions: self.retransmissions,
            timeouts: self.timeouts,
            bytes_sent: self.bytes_sent,
            bytes_received: self.bytes_received,
            rtt_ms: mean(self.rtt_ms),
            exec_ms: mean(self.exec_ms),
            backlog_ms: mean(self.backlog_ms),
            rdma: self.rdma.clone(),
            io: self.io.as_ref().map(|d| {
                let ios = d.read_ios + d.write_ios;
                IoCounters {
                    source: d.source.clone(),
                    read_ios: d.read_ios,
                    write_ios: d.write_ios,
                    bytes_read: d.bytes_read,
                    bytes_written: d.bytes_written,
                    mean_ms: if ios > 0 { d.ticks_ms as f64 / ios as f64 } else { 0.0 },
                }
            }),
        }
    }
}

/// A fio JSON document without the figures of a finished run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum FioJsonError {
    #[error("no jobs in the result")]
    NoJobs,
    /// fio's `error` of a job (an errno), with the job's name as the JSON holds it (boxed: a JSON value
    /// is large).
    #[error("job {job} failed with error {error}")]
    JobFailed { job: Box<Value>, error: i64 },
}

/// Read a json+ document; `cpus` is this host's CPU count (the host figures are shares of all CPUs). In
/// fio's client mode (`mpirun -np N nfsbench run`) the figures are those of the "All clients" rows.
pub fn from_fio_json(doc: &Value, cpus: usize) -> Result<RepMeasure, FioJsonError> {
    let all_clients: Vec<Value>;
    let jobs = match doc["client_stats"].as_array() {
        Some(rows) => {
            all_clients = rows.iter().filter(|r| r["jobname"] == "All clients").cloned().collect();
            &all_clients
        }
        None => doc["jobs"].as_array().ok_or(FioJsonError::NoJobs)?,
    };
    let jobs = Some(jobs).filter(|j| !j.is_empty()).ok_or(FioJsonError::NoJobs)?;
    let mut m = RepMeasure {
        runtime_s: doc["nfsbench"]["runtime_ms"].as_f64().unwrap_or(0.0) / 1e3,
        end_ms: doc["timestamp_ms"].as_u64().unwrap_or(0),
        transport: doc["nfsbench"]["notes"]["transport"].as_str().unwrap_or("").to_string(),
        kernel: kernel_rep(&doc["nfsbench"]["kernel"]),
        ..RepMeasure::default()
    };
    let mut clat_weighted = 0.0;
    // (count, mean, stdev) of each job's direction, for the pooled deviation.
    let mut parts: Vec<(f64, f64, f64)> = Vec::new();
    let mut host_busy_pct = 0.0;
    for job in jobs {
        let error = job["error"].as_i64().unwrap_or(0);
        if error != 0 {
            return Err(FioJsonError::JobFailed { job: Box::new(job["jobname"].clone()), error });
        }
        for dir in ["read", "write"] {
            let d = &job[dir];
            let ios = d["total_ios"].as_u64().unwrap_or(0);
            m.bytes += d["io_bytes"].as_u64().unwrap_or(0);
            m.ios += ios;
            m.bandwidth_mbs += d["bw_bytes"].as_f64().unwrap_or(0.0) / 1e6;
            m.iops += d["iops"].as_f64().unwrap_or(0.0);
            let mean = d["clat_ns"]["mean"].as_f64().unwrap_or(0.0);
            clat_weighted += mean * ios as f64;
            if ios > 0 {
                parts.push((ios as f64, mean, d["clat_ns"]["stddev"].as_f64().unwrap_or(0.0)));
            }
            if let Some(bins) = d["clat_ns"]["bins"].as_object() {
                for (k, v) in bins {
                    if let (Ok(ns), Some(count)) = (k.parse::<u64>(), v.as_u64()) {
                        *m.clat_bins.entry(ns).or_default() += count;
                    }
                }
            }
        }
        let cpu_pct = job["usr_cpu"].as_f64().unwrap_or(0.0) + job["sys_cpu"].as_f64().unwrap_or(0.0);
        m.client_cpu_s += cpu_pct / 100.0 * job["job_runtime"].as_f64().unwrap_or(0.0) / 1e3;
        let host = &job["nfsbench_host_cpu"];
        host_busy_pct = host["usr"].as_f64().unwrap_or(0.0) + host["sys"].as_f64().unwrap_or(0.0);
    }
    if m.ios > 0 {
        m.clat_mean_us = clat_weighted / m.ios as f64 / 1e3;
        m.clat_stdev_us = pooled_stdev(&parts) / 1e3;
    }
    m.host_cpu_s = host_busy_pct / 100.0 * cpus as f64 * m.runtime_s;
    Ok(m)
}

/// The standard deviation of the union of groups given as (count, mean, standard deviation): the
/// within-group variances plus the spread of the groups' means, weighted by count.
pub fn pooled_stdev(parts: &[(f64, f64, f64)]) -> f64 {
    let n: f64 = parts.iter().map(|p| p.0).sum();
    if n <= 0.0 {
        return 0.0;
    }
    let mean = parts.iter().map(|(c, m, _)| c * m).sum::<f64>() / n;
    let variance = parts.iter().map(|(c, m, s)| c * (s * s + (m - mean) * (m - mean))).sum::<f64>() / n;
    variance.max(0.0).sqrt()
}

/// The kernel section, when the run had one.
fn kernel_rep(k: &Value) -> Option<KernelRep> {
    let negotiated = k["negotiated"].as_str()?.to_string();
    let u = |v: &Value| v.as_u64().unwrap_or(0);
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    let w = &k["window"];
    let rdma = w["rdma"].is_object().then(|| {
        let r = &w["rdma"];
        RdmaCounters {
            read_chunks: u(&r["read_chunks"]),
            write_chunks: u(&r["write_chunks"]),
            reply_chunks: u(&r["reply_chunks"]),
            hardway_registrations: u(&r["hardway_registrations"]),
            failed_marshals: u(&r["failed_marshals"]),
            bad_replies: u(&r["bad_replies"]),
        }
    });
    Some(KernelRep {
        negotiation: Negotiation {
            negotiated,
            transports: u(&k["transports"]) as u32,
            differs: k["differs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_str().map(String::from))
                .collect(),
        },
        totals: KernelTotals {
            rpcs: u(&w["rpcs"]),
            retransmissions: u(&w["retransmissions"]),
            timeouts: u(&w["timeouts"]),
            bytes_sent: u(&w["bytes_sent"]),
            bytes_received: u(&w["bytes_received"]),
            data_rpcs: u(&w["data_rpcs"]),
            rtt_ms: f(&w["rtt_ms_total"]),
            exec_ms: f(&w["exec_ms_total"]),
            backlog_ms: f(&w["backlog_ms_total"]),
            rdma,
            io: w["io"].is_object().then(|| {
                let d = &w["io"];
                IoTotals {
                    source: d["source"].as_str().unwrap_or("client").to_string(),
                    read_ios: u(&d["read_ios"]),
                    write_ios: u(&d["write_ios"]),
                    bytes_read: u(&d["bytes_read"]),
                    bytes_written: u(&d["bytes_written"]),
                    ticks_ms: u(&d["read_ticks_ms"]) + u(&d["write_ticks_ms"]),
                }
            }),
        },
    })
}

/// Percentiles (µs) of a merged histogram at each of `points` (percent).
pub fn percentiles_us(bins: &BTreeMap<u64, u64>, points: &[f64]) -> Vec<(f64, f64)> {
    let total: u64 = bins.values().sum();
    if total == 0 {
        return Vec::new();
    }
    points
        .iter()
        .map(|&p| {
            let rank = ((p / 100.0) * total as f64).ceil().max(1.0) as u64;
            let mut seen = 0;
            let value = bins
                .iter()
                .find(|(_, &count)| {
                    seen += count;
                    seen >= rank
                })
                .map_or(0, |(&ns, _)| ns);
            (p, value as f64 / 1e3)
        })
        .collect()
}

/// The percentiles the reports draw.
pub const PERCENTILE_POINTS: [f64; 13] = [1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_grouped_job_gives_sums_weighted_latency_and_cpu_seconds() {
        let doc = json!({
            "timestamp_ms": 1000u64,
            "nfsbench": {"runtime_ms": 2000, "notes": {"transport": "tcp"}},
            "jobs": [{
                "jobname": "sr", "error": 0, "job_runtime": 4000, "usr_cpu": 10.0, "sys_cpu": 5.0,
                "nfsbench_host_cpu": {"usr": 30.0, "sys": 20.0, "idle": 50.0},
                "read": {"io_bytes": 2_000_000_000u64, "total_ios": 1000, "bw_bytes": 1e9, "iops": 500.0,
                         "clat_ns": {"mean": 2000.0, "stddev": 1000.0, "bins": {"1000": 500, "3000": 500}}},
                "write": {"io_bytes": 0, "total_ios": 0, "bw_bytes": 0, "iops": 0.0, "clat_ns": {"mean": 0.0}}
            }]
        });
        let m = from_fio_json(&doc, 2).expect("parses");
        assert_eq!((m.bytes, m.ios), (2_000_000_000, 1000));
        assert!((m.bandwidth_mbs - 1000.0).abs() < 1e-9);
        assert!((m.clat_mean_us - 2.0).abs() < 1e-9);
        assert!((m.clat_stdev_us - 1.0).abs() < 1e-9, "fio's stddev of the only direction that moved");
        assert!((m.client_cpu_s - 0.6).abs() < 1e-9, "15% of 4 job-seconds");
        assert!((m.host_cpu_s - 2.0).abs() < 1e-9, "50% of 2 CPUs for 2 s");
        assert_eq!(percentiles_us(&m.clat_bins, &[50.0, 50.1, 100.0]), vec![(50.0, 1.0), (50.1, 3.0), (100.0, 3.0)]);
    }

    #[test]
    fn a_failed_job_or_an_empty_document_is_an_error() {
        assert!(from_fio_json(&json!({"jobs": []}), 1).is_err());
        let failed = json!({"jobs": [{"jobname": "x", "error": 5}]});
        let e = from_fio_json(&failed, 1).unwrap_err();
        assert_eq!(e, FioJsonError::JobFailed { job: Box::new(json!("x")), error: 5 });
        assert_eq!(e.to_string(), "job \"x\" failed with error 5");
        assert!(percentiles_us(&BTreeMap::new(), &[50.0]).is_empty());
    }

    #[test]
    fn the_pooled_deviation_adds_the_spread_of_the_directions_means() {
        // Reads all at 1, writes all at 3: each direction has no spread, the union has 1.
        assert!((pooled_stdev(&[(10.0, 1.0, 0.0), (10.0, 3.0, 0.0)]) - 1.0).abs() < 1e-12);
        assert!((pooled_stdev(&[(4.0, 5.0, 2.0)]) - 2.0).abs() < 1e-12);
        assert_eq!(pooled_stdev(&[]), 0.0);
    }
}
