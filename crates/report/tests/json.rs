//! The JSON layout against real fio 3.33 output (tests/fixtures, made as the .fio file there says).

mod common;

use report::{to_fio_json, FIO_COMPAT};
use serde_json::Value;

const FIO_JSON_PLUS: &str = include_str!("fixtures/fio-3.33-randrw-fsync.json");

/// Keys fio printed that nfsbench leaves out on purpose (no local disks).
const WE_OMIT: [&str; 1] = ["/disk_util"];
/// Keys nfsbench adds.
const WE_ADD: [&str; 3] = ["/nfsbench", "/jobs[]/nfsbench_verify_errors", "/jobs[]/nfsbench_host_cpu"];

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every difference in key sets (recursively) and in value types between fio's JSON and ours.
fn differences(path: &str, fio: &Value, ours: &Value, out: &mut Vec<String>) {
    if kind(fio) != kind(ours) {
        out.push(format!("{path}: fio has {}, we have {}", kind(fio), kind(ours)));
        return;
    }
    match (fio, ours) {
        (Value::Object(a), Value::Object(b)) if path.ends_with("/bins") => {
            // Keys are bucket values (data, not layout); every count must be an integer.
            for (k, v) in a.iter().chain(b.iter()) {
                if kind(v) != "int" {
                    out.push(format!("{path}/{k}: bin count is {}", kind(v)));
                }
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{path}/{k}");
                match b.get(k) {
                    Some(w) => differences(&p, v, w, out),
                    None if WE_OMIT.contains(&p.as_str()) => {}
                    None => out.push(format!("{p}: missing in ours")),
                }
            }
            for k in b.keys().filter(|k| !a.contains_key(*k)) {
                let p = format!("{path}/{k}");
                if !WE_ADD.contains(&p.as_str()) {
                    out.push(format!("{p}: not in fio's"));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            if let (Some(x), Some(y)) = (a.first(), b.first()) {
                differences(&format!("{path}[]"), x, y, out);
            }
        }
        _ => {}
    }
}

#[test]
fn json_plus_has_the_same_keys_and_value_types_as_real_fio_json_plus_at_every_level() {
    let fio: Value = serde_json::from_str(FIO_JSON_PLUS).expect("fixture is JSON");
    let ours = to_fio_json(&common::fixture_like_run(), true);
    let mut diffs = Vec::new();
    differences("", &fio, &ours, &mut diffs);
    assert!(diffs.is_empty(), "layout differs from fio 3.33:\n{}", diffs.join("\n"));
    // The comparison really reached the nested objects.
    assert!(ours["jobs"][0]["sync"]["lat_ns"]["bins"].as_object().is_some_and(|b| !b.is_empty()));
    assert!(ours["jobs"][0]["read"]["clat_ns"]["bins"].as_object().is_some_and(|b| !b.is_empty()));
}

#[test]
fn plain_json_has_percentiles_but_no_bins() {
    let v = to_fio_json(&common::fixture_like_run(), false);
    let clat = &v["jobs"][0]["read"]["clat_ns"];
    assert!(clat.get("percentile").is_some());
    assert!(clat.get("bins").is_none());
    assert!(v["jobs"][0]["read"]["lat_ns"].get("percentile").is_none());
    assert!(v["jobs"][0]["read"]["slat_ns"].get("percentile").is_none());
}

#[test]
fn percentile_keys_are_fios_default_list_printed_with_six_decimals() {
    let fio: Value = serde_json::from_str(FIO_JSON_PLUS).expect("fixture is JSON");
    let ours = to_fio_json(&common::fixture_like_run(), false);
    let keys = |v: &Value| -> Vec<String> {
        v["jobs"][0]["read"]["clat_ns"]["percentile"]
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    assert_eq!(keys(&ours), keys(&fio));
    assert_eq!(keys(&ours)[16], "99.990000");
}

#[test]
fn lat_percentiles_option_moves_percentiles_to_total_latency() {
    let mut run = common::fixture_like_run();
    run.jobs[0].job_options.push(("lat_percentiles".into(), "1".into()));
    run.jobs[0].job_options.push(("clat_percentiles".into(), "0".into()));
    let v = to_fio_json(&run, true);
    assert!(v["jobs"][0]["write"]["lat_ns"].get("bins").is_some());
    assert!(v["jobs"][0]["write"]["clat_ns"].get("percentile").is_none());
}

#[test]
fn custom_percentile_list_is_sorted_and_used() {
    let mut run = common::fixture_like_run();
    run.percentile_list = Some(vec![99.0, 50.0]);
    let v = to_fio_json(&run, false);
    let p = v["jobs"][0]["read"]["clat_ns"]["percentile"].as_object().expect("percentiles");
    assert_eq!(p.keys().collect::<Vec<_>>(), ["50.000000", "99.000000"]);
}

#[test]
fn version_and_nfsbench_facts_are_reported() {
    let v = to_fio_json(&common::fixture_like_run(), false);
    assert!(v["fio version"].as_str().is_some_and(|s| s.starts_with("nfsbench-")));
    assert_eq!(v["nfsbench"]["fio_compat"], FIO_COMPAT);
    assert_eq!(v["nfsbench"]["notes"]["target"], "127.0.0.1:/export");
    assert_eq!(v["jobs"][0]["desc"], "fixture");
    assert_eq!(v["jobs"][0]["trim"]["total_ios"], 0);
}

#[test]
fn throughput_fields_follow_fios_integer_arithmetic() {
    let v = to_fio_json(&common::fixture_like_run(), false);
    let read = &v["jobs"][0]["read"];
    // 1000 reads of 4 KiB in 1000 ms.
    assert_eq!(read["io_bytes"], 4_096_000);
    assert_eq!(read["io_kbytes"], 4000);
    assert_eq!(read["bw_bytes"], 4_096_000);
    assert_eq!(read["bw"], 4000);
    assert_eq!(read["iops"], 1000.0);
    assert_eq!(read["runtime"], 1000);
    // Two full 500 ms intervals of 500 reads each: 500 × 4 KiB / 0.5 s = 4000 KiB/s, 1000 IOPS.
    assert_eq!(read["bw_samples"], 2);
    assert_eq!(read["bw_min"], 4000);
    assert_eq!(read["bw_max"], 4000);
    assert_eq!(read["iops_mean"], 1000.0);
    assert_eq!(read["bw_agg"], 100.0);
    assert_eq!(v["jobs"][0]["iodepth_level"]["1"], 100.0);
    assert_eq!(v["jobs"][0]["iodepth_submit"]["4"], 100.0);
    assert_eq!(v["jobs"][0]["latency_depth"], 1);
}
