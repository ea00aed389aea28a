//! `nfsbench compare` as users run it: the built binary starting its embedded server, running every
//! cell as a child `nfsbench run`, and writing its report files.

use std::path::Path;
use std::process::Output;

mod cli_support;

use cli_support::{nfsbench, scratch};

fn compare(args: &[&str]) -> Output {
    nfsbench().arg("compare").args(args).output().expect("run nfsbench compare")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `nfsbench compare --quick ARGS --out OUT`, which must succeed: its stdout and `report.json`.
fn compare_quick(out: &Path, args: &[&str]) -> (String, serde_json::Value) {
    let mut all = vec!["--quick"];
    all.extend_from_slice(args);
    all.extend(["--out", out.to_str().expect("utf-8 path")]);
    let o = compare(&all);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", o.status);
    let report = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    (stdout, serde_json::from_str(&report).expect("report.json is JSON"))
}

#[test]
fn a_quick_tcp_vs_rdma_comparison_writes_every_file_with_paired_ratios() {
    let dir = scratch("compare-quick");
    let out = dir.join("out");
    let (stdout, report) = compare_quick(
        &out,
        &["--reps", "2", "--cases", "tcp,rdma", "--workloads", "seq-read-1m,rand-write-4k", "--size", "8m"],
    );
    assert!(stdout.contains("rdma vs tcp: seq-read-1m "), "{stdout}");
    assert!(stdout.contains("rdma vs tcp: rand-write-4k "), "{stdout}");
    assert!(stdout.contains("soft provider"), "the soft provider is named: {stdout}");
    assert!(stdout.contains(&format!("report: {}", out.join("report.html").display())), "{stdout}");
    for f in ["report.html", "results.md", "results.csv", "reps.csv", "report.json"] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    // 2 cases × 2 workloads × 2 repetitions, each its own fio JSON.
    let cells: Vec<_> = std::fs::read_dir(out.join("cells"))
        .expect("cells/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .collect();
    assert_eq!(cells.len(), 8, "{cells:?}");
    let ratios = report["ratios"].as_array().expect("ratios");
    assert_eq!(ratios.len(), 2, "rdma against tcp for each workload");
    for r in ratios {
        assert_eq!(r["ratio"]["n"], 2, "paired over both repetitions: {r}");
        assert!(r["ratio"]["mean"].as_f64().expect("ratio") > 0.0);
    }
    for cell in report["cells"].as_array().expect("cells") {
        assert!(cell["bandwidth_mbs"]["mean"].as_f64().expect("bw") > 0.0, "{cell}");
        assert!(cell["host_cpu_per_gb"]["mean"].as_f64().expect("cpu") > 0.0, "{cell}");
        assert!(cell["server_cpu_per_gb"]["n"].as_u64().expect("the server's CPU is sampled") == 2, "{cell}");
        assert!(!cell["clat_percentiles_us"].as_array().expect("percentiles").is_empty());
    }
    let wire = report["wire"].as_array().expect("wire");
    assert_eq!(wire.len(), 2, "a TCP and an RDMA wire baseline: {wire:?}");
    assert!(wire
        .iter()
        .all(|w| w["bandwidth_mbs"].as_f64().unwrap_or(0.0) > 0.0 && w["round_trip_us"].as_f64().unwrap_or(0.0) > 0.0));
    let csv = std::fs::read_to_string(out.join("results.csv")).expect("csv");
    assert_eq!(csv.lines().count(), 1 + 4, "header + one row per cell:\n{csv}");
    let reps = std::fs::read_to_string(out.join("reps.csv")).expect("reps.csv");
    assert_eq!(reps.lines().count(), 1 + 8);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_netapp_plan_runs_all_ten_cases_v3_and_v41_over_remoteports_too() {
    let dir = scratch("compare-netapp");
    let out = dir.join("out");
    let plan = concat!(env!("CARGO_MANIFEST_DIR"), "/../../plans/netapp-study.toml");
    let (_, report) =
        compare_quick(&out, &[plan, "--reps", "1", "--workloads", "rand-read-4k", "--size", "4m", "--no-wire"]);
    let cases = report["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 10);
    for c in cases {
        let name = c["name"].as_str().expect("name");
        assert!(c["unsupported"].is_null() && c["failed"].is_null(), "{c}");
        assert!(!c["transport"].as_str().expect("transport").is_empty(), "{name} ran: {c}");
    }
    assert_eq!(report["cells"].as_array().expect("cells").len(), 10, "every row ran");
    // The remoteports rows spread their connections over the four loopback addresses the server served,
    // NFSv4.1's bound to one session as NFSv3's are to one mount.
    for case in ["v3-rdma-nconnect4-rp4", "v41-rdma-nconnect4-rp4", "v41-tcp-nconnect4-rp4"] {
        let rp = std::fs::read_to_string(out.join(format!("cells/{case}--rand-read-4k--1.json"))).expect("cell");
        for a in ["127.0.0.1:", "127.0.0.2:", "127.0.0.3:", "127.0.0.4:"] {
            assert!(rp.contains(&format!("-> {a}")), "{case}: a connection to {a}: {rp}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_plans_and_flags_are_refused_by_name_with_status_2() {
    let dir = scratch("compare-usage");
    let plan = dir.join("typo.toml");
    std::fs::write(&plan, "reps = 3\n[[case]]\nname = \"a\"\nprotocol = \"tcp\"\n").expect("write plan");
    let cases = [
        (vec![plan.to_str().expect("path")], "protocol"),
        (vec!["--case", "x=vers=3,bogus=1"], "bogus"),
        (vec!["--sweep", "rand-read-4k:depth=1,2"], "--sweep"),
        (vec!["--cases", "tcp,nope"], "nope"),
        (vec!["--baseline", "missing"], "missing"),
        (vec!["--reps", "0"], "reps"),
        (vec!["--target", "127.0.0.1:/export", "--clients", "2", "--hostfile", "/nonexistent/hosts"], "--hostfile"),
        (vec!["--target", "127.0.0.1:/export", "--hostfile", plan.to_str().expect("path")], "--clients"),
    ];
    for (args, needle) in cases {
        let o = compare(&args);
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle) && stderr.lines().count() == 1, "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_clients_sweep_runs_each_point_under_mpirun_and_reads_all_clients() {
    let dir = scratch("compare-clients");
    let out = dir.join("out");
    let (_, report) = compare_quick(
        &out,
        &[
            "--reps",
            "1",
            "--cases",
            "tcp,rdma",
            "--workloads",
            "rand-read-4k",
            "--sweep",
            "rand-read-4k:clients=1,3",
            "--size",
            "4m",
            "--no-wire",
        ],
    );
    let sweep = &report["sweeps"][0];
    assert_eq!(sweep["parameter"], "clients", "{sweep}");
    let points = sweep["points"].as_array().expect("points");
    assert_eq!(points.len(), 4, "2 cases × clients 1 and 3: {sweep}");
    for p in points {
        assert!(p["value"]["mean"].as_f64().unwrap_or(0.0) > 0.0, "{p}");
    }
    // The 3-client cells are fio client-mode JSON: three clients' rows and "All clients".
    let cell = out.join("cells/rdma--rand-read-4k_clients_3--1.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cell).expect("the 3-client cell")).expect("JSON");
    let rows = doc["client_stats"].as_array().expect("client_stats");
    assert_eq!(rows.iter().filter(|r| r["jobname"] == "All clients").count(), 1, "{doc}");
    assert_eq!(rows.iter().filter(|r| r["jobname"] != "All clients").count(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep point's measured and modelled headline: (measured mean, model).
fn sweep_point(report: &serde_json::Value, workload: &str, case: &str, label: &str) -> (f64, serde_json::Value) {
    let sweep = report["sweeps"]
        .as_array()
        .expect("sweeps")
        .iter()
        .find(|s| s["workload"] == workload)
        .unwrap_or_else(|| panic!("a sweep of {workload}"));
    let point = sweep["points"]
        .as_array()
        .expect("points")
        .iter()
        .find(|p| p["case"] == case && p["label"] == label)
        .unwrap_or_else(|| panic!("{workload} {case} at {label}: {sweep}"));
    (point["value"]["mean"].as_f64().expect("measured"), point["model"].clone())
}

#[test]
fn a_distance_sweep_shows_the_studys_findings_and_stays_near_the_model() {
    let dir = scratch("compare-distance");
    let plan = dir.join("distance.toml");
    let sweep =
        |w: &str| format!("[[sweep]]\nparameter = \"rtt\"\nvalues = [\"0\", \"20ms\", \"60ms\"]\nworkload = \"{w}\"\n");
    let workload = |name: &str, rw: &str, bs: &str| {
        format!("[[workload]]\nname = \"{name}\"\nrw = \"{rw}\"\nbs = \"{bs}\"\niodepth = 16\nnumjobs = 1\nsize = \"16m\"\n")
    };
    let plan_text = [
        "reps = 1\nruntime = \"1s\"\nramp_time = \"300ms\"\nwire = false\nwan = \"rate=1gbit\"\n".to_string(),
        "[[case]]\nname = \"tcp\"\nproto = \"tcp\"\n[[case]]\nname = \"rdma\"\nproto = \"rdma\"\n".to_string(),
        workload("seq-read-1m", "read", "1m"),
        workload("rand-read-4k", "randread", "4k"),
        workload("rand-write-4k", "randwrite", "4k"),
        sweep("seq-read-1m"),
        sweep("rand-read-4k"),
        sweep("rand-write-4k"),
    ]
    .concat();
    std::fs::write(&plan, plan_text).expect("plan");
    let out = dir.join("out");
    let o = compare(&[plan.to_str().expect("path"), "--out", out.to_str().expect("utf-8 path")]);
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert!(o.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", o.status);
    eprintln!("{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).expect("report.json")).expect("JSON");
    // Large transfers hold the link's bandwidth with distance (16 MiB in flight fill 1 Gbit/s × 60 ms).
    let (lan, _) = sweep_point(&report, "seq-read-1m", "rdma", "0us");
    let (far, _) = sweep_point(&report, "seq-read-1m", "rdma", "60ms");
    assert!(far > 0.8 * lan, "1 MiB reads over RDMA: {lan} MB/s at LAN, {far} at 60 ms");
    // 4 KiB transfers fall as 1/RTT once the round trip dominates: 20 ms → 60 ms is about a third. Each
    // I/O's own service time s adds to both round trips, (60 + s) / (20 + s): on a loaded 2-core machine
    // (a build and a headless browser beside it) s reached 9 ms and the ratio 2.05; no distance effect
    // would give 1.
    for case in ["tcp", "rdma"] {
        let (near, _) = sweep_point(&report, "rand-read-4k", case, "20ms");
        let (far, _) = sweep_point(&report, "rand-read-4k", case, "60ms");
        assert!((1.9..3.6).contains(&(near / far)), "{case} 4 KiB reads: {near} IOPS at 20 ms, {far} at 60 ms");
    }
    // Over RDMA writes pay the server's RDMA Read round trip: about half the reads' rate at a distance;
    // over TCP the data rides with the call and writes keep up with reads.
    let (reads, _) = sweep_point(&report, "rand-read-4k", "rdma", "60ms");
    let (writes, _) = sweep_point(&report, "rand-write-4k", "rdma", "60ms");
    assert!(writes < 0.7 * reads, "RDMA at 60 ms: 4 KiB writes {writes} IOPS, reads {reads}");
    let (tcp_reads, _) = sweep_point(&report, "rand-read-4k", "tcp", "60ms");
    let (tcp_writes, _) = sweep_point(&report, "rand-write-4k", "tcp", "60ms");
    assert!(tcp_writes > 0.8 * tcp_reads, "TCP at 60 ms: 4 KiB writes {tcp_writes} IOPS, reads {tcp_reads}");
    // The model is within 25% of every point at a distance.
    for (workload, case, label) in [
        ("seq-read-1m", "tcp", "20ms"),
        ("seq-read-1m", "rdma", "60ms"),
        ("rand-read-4k", "tcp", "20ms"),
        ("rand-read-4k", "rdma", "60ms"),
        ("rand-write-4k", "tcp", "60ms"),
        ("rand-write-4k", "rdma", "20ms"),
        ("rand-write-4k", "rdma", "60ms"),
    ] {
        let (measured, model) = sweep_point(&report, workload, case, label);
        let modelled = model["value"].as_f64().unwrap_or_else(|| panic!("a model value: {model}"));
        assert!(
            model["flagged"] == false && (measured / modelled - 1.0).abs() < 0.25,
            "{workload} {case} at {label}: measured {measured}, model {modelled} ({model})"
        );
    }
    assert!(stdout.contains("model"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
