//! The report the HTML tests render: the default plan's four cases (tcp, tcp-nconnect4, rdma, rdma-2qp)
//! and a v4.1 case that cannot run, two bandwidth and two IOPS workloads, ratios with every verdict, two
//! wire baselines and an iodepth sweep — built by hand, as report.json would hold it.

use compare::results::*;

fn est(mean: f64) -> Estimate {
    Estimate { mean, lo: mean * 0.95, hi: mean * 1.05, n: 3 }
}

fn case(name: &str, options: &str, transport: &str, unsupported: Option<&str>) -> CaseRow {
    CaseRow {
        case: compare::plan::Case::from_options(name, options),
        mount_options: options.into(),
        transport: transport.into(),
        unsupported: unsupported.map(String::from),
        failed: None,
        negotiation: None,
    }
}

fn workload(name: &str, metric: Metric, description: &str) -> WorkloadRow {
    WorkloadRow { name: name.into(), description: description.into(), metric, ..WorkloadRow::default() }
}

fn cell(case: &str, workload: &str, scale: f64) -> Cell {
    Cell {
        case: case.into(),
        workload: workload.into(),
        bandwidth_mbs: est(3000.0 * scale),
        iops: est(200_000.0 * scale),
        clat_mean_us: est(300.0 / scale),
        clat_stdev_us: est(120.0 / scale),
        clat_percentiles_us: [50.0, 90.0, 99.0, 99.9, 99.99]
            .iter()
            .map(|p: &f64| (*p, 180.0 / scale * 1.8f64.powf(-(1.0 - p / 100.0).log10())))
            .collect(),
        host_cpu_per_gb: est(0.5 / scale),
        host_cpu_per_mio: est(3.0 / scale),
        client_cpu_per_gb: est(0.1),
        server_cpu_per_gb: Some(est(0.2)),
        efficiency: Some(0.25 * scale),
        files: (1..=3).map(|r| format!("cells/{case}--{workload}--{r}.json")).collect(),
        kernel: None,
    }
}

fn ratio(
    case: &str,
    workload: &str,
    metric: Metric,
    (mean, lo, hi, n): (f64, f64, f64, u32),
    verdict: Verdict,
) -> Ratio {
    Ratio {
        case: case.into(),
        baseline: "tcp".into(),
        workload: workload.into(),
        metric,
        ratio: Estimate { mean, lo, hi, n },
        verdict,
    }
}

/// The default plan's four cases and a v4.1 case that cannot run, four workloads, 3 repetitions.
pub fn sample_report() -> Report {
    let cases = vec![
        case("tcp", "vers=3,proto=tcp", "tcp", None),
        case("tcp-nconnect4", "vers=3,proto=tcp,nconnect=4", "tcp", None),
        case("rdma", "vers=3,proto=rdma", "rdma (soft (shared memory, one host))", None),
        case("rdma-2qp", "vers=3,proto=rdma,nconnect=2", "rdma (soft (shared memory, one host))", None),
        case("v41-tcp", "vers=4.1,proto=tcp", "", Some("not supported yet: vers=4.1 (NFSv4.1 sessions)")),
    ];
    let workloads = vec![
        workload("seq-read-1m", Metric::Bandwidth, "1 MiB sequential read, iodepth 8, 2 jobs"),
        workload("seq-write-1m", Metric::Bandwidth, "1 MiB sequential write, iodepth 8, 2 jobs"),
        workload("rand-read-4k", Metric::Iops, "4 KiB random read, iodepth 32, 2 jobs"),
        workload("rand-write-4k", Metric::Iops, "4 KiB random write, iodepth 32, 2 jobs"),
    ];
    let mut cells = Vec::new();
    for (i, c) in cases.iter().take(4).enumerate() {
        for w in &workloads {
            cells.push(cell(&c.case.name, &w.name, 1.0 + i as f64 * 0.3));
        }
    }
    let sweep_points = ["tcp", "rdma"].iter().enumerate().flat_map(|(i, c)| {
        [1u32, 4, 16, 64].map(|d| SweepPoint {
            case: c.to_string(),
            x: d.into(),
            label: d.to_string(),
            value: est(20_000.0 * f64::from(d).sqrt() * (1.0 + i as f64 * 0.4)),
            // The model's curve beside the measurement, one point far off it.
            model: Some(compare::results::Prediction {
                value: 20_000.0 * f64::from(d).sqrt() * (1.0 + i as f64 * 0.4) * if d == 64 { 1.5 } else { 1.05 },
                limit: "outstanding I/O".into(),
                explanation: "16 I/Os of 4 KiB in flight over 20 ms".into(),
                disagreement: if d == 64 { 1.5 } else { 1.05 },
                flagged: d == 64,
            }),
        })
    });
    Report {
        title: "TCP vs RDMA on the embedded RAM server".into(),
        started: "2026-11-22 12:00:00 UTC".into(),
        duration_s: 134.0,
        machine: "host: 2 CPUs (Intel Xeon), 8 GiB, Linux 6.1.0".into(),
        target: "embedded RAM server (nfsbench serve, mem:6GiB) on 127.0.0.1".into(),
        notes: vec![
            "RDMA over the soft provider: it stands in for an RDMA NIC; client and server share this host".into()
        ],
        reps: 3,
        baseline_case: "tcp".into(),
        cases,
        workloads,
        cells,
        ratios: vec![
            ratio("rdma", "seq-read-1m", Metric::Bandwidth, (2.39, 2.31, 2.47, 3), Verdict::Higher),
            ratio("tcp-nconnect4", "seq-write-1m", Metric::Bandwidth, (0.8, 0.7, 0.9, 3), Verdict::Lower),
            ratio("rdma", "rand-read-4k", Metric::Iops, (1.02, 0.9, 1.1, 3), Verdict::NoDifference),
            ratio("rdma-2qp", "rand-write-4k", Metric::Iops, (1.2, 1.2, 1.2, 1), Verdict::NoDifference),
        ],
        latency_ratios: vec![LatencyRatio {
            case: "rdma".into(),
            baseline: "tcp".into(),
            workload: "rand-read-4k".into(),
            mean: Estimate { mean: 0.82, lo: 0.79, hi: 0.85, n: 3 },
            mean_verdict: Verdict::Lower,
            stdev: Estimate { mean: 0.6, lo: 0.52, hi: 0.7, n: 3 },
            stdev_verdict: Verdict::Lower,
        }],
        wire: vec![
            WireBaseline {
                proto: mount_options::Proto::Tcp,
                connections: 1,
                description: "TCP stream, 127.0.0.1, 1 connection".into(),
                bandwidth_mbs: 5177.0,
                round_trip_us: 78.0,
                bandwidth: Some(Spread { median: 5177.0, lo: 5010.0, hi: 5230.0, n: 3, coverage: 0.75 }),
                round_trip: Some(Spread { median: 78.0, lo: 70.0, hi: 94.8, n: 3, coverage: 0.75 }),
            },
            WireBaseline {
                proto: mount_options::Proto::Rdma,
                connections: 1,
                description: "RDMA Write, soft provider, 1 MiB messages, 16 in flight".into(),
                bandwidth_mbs: 22365.0,
                round_trip_us: 0.92,
                bandwidth: None,
                round_trip: None,
            },
        ],
        sweeps: vec![Sweep {
            parameter: "iodepth".into(),
            workload: "rand-read-4k".into(),
            metric: Metric::Iops,
            points: sweep_points.collect(),
        }],
    }
}
