//! report.html: self-contained, escaped, no NaN, and — opened in Debian's headless Chromium — its
//! charts actually drawn (each case's palette colour covers pixels of the screenshot).

use compare::model::*;
use compare::render::html::to_html;
use compare::render::svg::PALETTE;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

fn est(mean: f64) -> Estimate {
    Estimate { mean, lo: mean * 0.95, hi: mean * 1.05, n: 3 }
}

fn case(name: &str, proto: &str, nconnect: u32, unsupported: Option<&str>) -> CaseRow {
    CaseRow {
        case: compare::plan::Case::from_options(
            name,
            &format!("vers={},proto={proto},nconnect={nconnect}", if unsupported.is_some() { "4.1" } else { "3" }),
        ),
        mount_options: format!("vers=3,proto={proto},nconnect={nconnect}"),
        transport: proto.into(),
        unsupported: unsupported.map(String::from),
    }
}

fn sample_report() -> Report {
    let cases = vec![
        case("tcp", "tcp", 1, None),
        case("tcp-nconnect4", "tcp", 4, None),
        case("rdma", "rdma", 1, None),
        case("a<b&\"c\"", "rdma", 2, None),
        case("v41-tcp", "tcp", 1, Some("not supported yet: vers=4.1")),
    ];
    let workloads: Vec<WorkloadRow> = [
        ("seq-read-1m", Metric::Bandwidth),
        ("seq-write-1m", Metric::Bandwidth),
        ("rand-read-4k", Metric::Iops),
        ("rand-write-4k", Metric::Iops),
    ]
    .iter()
    .map(|(n, m)| WorkloadRow {
        name: n.to_string(),
        description: "a workload".into(),
        metric: *m,
        ..WorkloadRow::default()
    })
    .collect();
    let mut cells = Vec::new();
    for (i, c) in cases.iter().take(4).enumerate() {
        for w in &workloads {
            let scale = 1.0 + i as f64 * 0.3;
            cells.push(Cell {
                case: c.case.name.clone(),
                workload: w.name.clone(),
                bandwidth_mbs: est(3000.0 * scale),
                iops: est(200_000.0 * scale),
                clat_mean_us: est(300.0 / scale),
                clat_percentiles_us: [50.0, 90.0, 99.0, 99.9, 99.99]
                    .iter()
                    .map(|p| (*p, 200.0 * scale + p * 3.0))
                    .collect(),
                host_cpu_per_gb: est(0.4 / scale),
                host_cpu_per_mio: est(3.0),
                client_cpu_per_gb: est(0.1),
                server_cpu_per_gb: Some(est(0.2)),
                efficiency: Some(0.3 * scale),
                files: vec![format!("cells/{}--{}--1.json", c.case.name, w.name)],
            });
        }
    }
    let ratio = |case: &str, workload: &str, mean: f64, lo: f64, hi: f64, verdict| Ratio {
        case: case.into(),
        baseline: "tcp".into(),
        workload: workload.into(),
        metric: Metric::Bandwidth,
        ratio: Estimate { mean, lo, hi, n: 3 },
        verdict,
    };
    Report {
        title: "TCP vs RDMA".into(),
        started: "2026-11-22 12:00:00 UTC".into(),
        duration_s: 120.0,
        machine: "host: 2 CPUs".into(),
        target: "embedded RAM server".into(),
        notes: vec!["RDMA ran over the soft provider: it stands in for an RDMA NIC".into()],
        reps: 3,
        baseline_case: "tcp".into(),
        cases,
        workloads,
        cells,
        ratios: vec![
            ratio("rdma", "seq-read-1m", 1.5, 1.4, 1.6, Verdict::Higher),
            ratio("tcp-nconnect4", "seq-write-1m", 0.8, 0.7, 0.9, Verdict::Lower),
            ratio("rdma", "rand-read-4k", 1.02, 0.9, 1.1, Verdict::NoDifference),
        ],
        wire: vec![
            WireBaseline {
                proto: "tcp".into(),
                connections: 1,
                description: "TCP stream".into(),
                bandwidth_mbs: 5000.0,
                round_trip_us: 40.0,
            },
            WireBaseline {
                proto: "rdma".into(),
                connections: 1,
                description: "RDMA Write".into(),
                bandwidth_mbs: 20000.0,
                round_trip_us: 2.0,
            },
        ],
        sweeps: vec![Sweep {
            parameter: "iodepth".into(),
            workload: "rand-read-4k".into(),
            metric: Metric::Iops,
            points: ["tcp", "rdma"]
                .iter()
                .flat_map(|c| {
                    [1u32, 4, 16, 64].map(|d| SweepPoint {
                        case: c.to_string(),
                        x: d.into(),
                        label: d.to_string(),
                        value: est(10_000.0 * f64::from(d)),
                    })
                })
                .collect(),
        }],
    }
}

#[test]
fn the_page_is_self_contained_escaped_and_free_of_nan() {
    let html = to_html(&sample_report());
    for needle in ["https://", "src=", "<script", "<link", "@import", "NaN", "inf\""] {
        assert!(!html.contains(needle), "found {needle}");
    }
    // Bandwidth bars, IOPS bars, 4 latency curves, efficiency, CPU, one scaling curve.
    assert_eq!(html.matches("<svg class=\"chart\"").count(), 9);
    assert!(html.contains("a&lt;b&amp;&quot;c&quot;") && !html.contains("a<b&\"c\""));
    assert!(html.contains("not supported yet: vers=4.1"));
    assert!(
        html.contains("(no difference, MB/s)") && html.contains("(higher, MB/s)") && html.contains("(lower, MB/s)")
    );
    assert!(html.contains("stands in for an RDMA NIC"));
    let empty = to_html(&Report { title: "empty".into(), ..Report::default() });
    assert!(empty.contains("</html>") && !empty.contains("NaN"));
}

/// Debian's package installs `chromium`; other distributions name it differently.
fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(out) = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output() {
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !path.is_empty() {
                return PathBuf::from(path);
            }
        }
    }
    panic!("headless Chromium is needed to check report.html renders: `scripts/install-deps.sh test` installs it (Debian package chromium)");
}

#[test]
fn headless_chromium_draws_every_chart() {
    let browser = chromium();
    let dir = std::env::temp_dir().join(format!("nfsbench-html-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let page = dir.join("report.html");
    let shot = dir.join("shot.png");
    let report = sample_report();
    std::fs::write(&page, to_html(&report)).expect("write page");
    let mut child = Command::new(&browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1280,6000"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(90);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).expect("screenshot written")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("frame");
    let channels = info.color_type.samples();
    assert!(channels >= 3 && info.bit_depth == png::BitDepth::Eight, "{info:?}");
    let pixels = &buf[..info.buffer_size()];
    let count = |hex: &str| {
        let rgb: Vec<u8> = (0..3).map(|i| u8::from_str_radix(&hex[1 + 2 * i..3 + 2 * i], 16).expect("hex")).collect();
        pixels.chunks(channels).filter(|p| p[..3] == rgb[..]).count()
    };
    let white = count("#ffffff");
    let total = (info.width * info.height) as usize;
    assert!(white < total * 98 / 100, "the page is not blank ({white} of {total} pixels white)");
    // The four cases that ran: bars in 4 bar charts each, so hundreds of pixels of their colour.
    for (i, c) in report.cases.iter().take(4).enumerate() {
        let n = count(PALETTE[i]);
        assert!(n > 2000, "case {} ({}) drew {n} pixels", c.case.name, PALETTE[i]);
    }
    // The unsupported case has no colour of its own anywhere.
    assert!(count(PALETTE[4]) < 50, "the unsupported case drew nothing");
    eprintln!("screenshot: {}", shot.display());
    let _ = std::fs::remove_dir_all(dir.join("profile"));
}
