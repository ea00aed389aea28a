//! fio's own json+ reader, `fio_jsonplus_clat2csv` (Debian's fio package, or fio's tools/ directory),
//! must read our json+ output and validate the CSV it writes against it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn find_script() -> Option<PathBuf> {
    let name = "fio_jsonplus_clat2csv";
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    dirs.push(PathBuf::from("/usr/share/fio/tools"));
    dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
}

fn run(script: &Path, args: &[&Path], extra: &[&str]) -> std::process::Output {
    Command::new("python3").arg(script).args(args).args(extra).output().expect("python3 runs")
}

#[test]
fn fio_jsonplus_clat2csv_reads_our_json_plus_output() {
    let Some(script) = find_script() else {
        println!("skipped: fio_jsonplus_clat2csv not found (apt-get install fio provides it)");
        return;
    };
    if Command::new("python3").arg("-c").arg("import six").output().map(|o| !o.status.success()).unwrap_or(true) {
        println!("skipped: python3 with the 'six' module is needed to run {}", script.display());
        return;
    }
    let dir = std::env::temp_dir().join(format!("report-clat2csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let json = dir.join("nfsbench.json");
    let csv = dir.join("nfsbench.csv");
    let report = report::to_fio_json(&common::fixture_like_run(), true);
    std::fs::write(&json, serde_json::to_string_pretty(&report).expect("serializes")).expect("write json");

    let out = run(&script, &[&json, &csv], &[]);
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        panic!("{}", String::from_utf8_lossy(&out.stderr));
    }
    let job0 = dir.join("nfsbench_job0.csv");
    let text = std::fs::read_to_string(&job0).expect("clat2csv wrote job 0");
    let header = text.lines().next().unwrap_or("");
    assert!(header.contains("read_clat_ns_count") && header.contains("write_lat_ns_count"), "{header}");
    // One row per distinct bin value across read/write slat/clat/lat, plus the header.
    assert!(text.lines().count() > 100);

    let out = run(&script, &[&json, &csv], &["--validate"]);
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("validated"), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
}
