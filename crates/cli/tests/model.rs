//! `nfsbench model` as users run it: the built binary's table, its JSON, and its usage errors.

use std::process::Output;

mod cli_support;

use cli_support::nfsbench;

fn model(args: &[&str]) -> Output {
    nfsbench().arg("model").args(args).output().expect("run nfsbench model")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_table_has_a_row_per_proto_rw_size_and_round_trip_and_explains_its_limits() {
    let o = model(&["--wan", "rate=10gbit", "--rtt", "0,1ms,10ms,70ms,140ms"]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "exit {:?}\n{stdout}\n{}", o.status, text(&o.stderr));
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("tcp ") || l.starts_with("rdma ")).collect();
    assert_eq!(rows.len(), 2 * 2 * 2 * 5, "proto × rw × bs × rtt:\n{stdout}");
    let row = |prefix: &[&str]| {
        rows.iter()
            .find(|r| r.split_whitespace().take(prefix.len()).eq(prefix.iter().copied()))
            .unwrap_or_else(|| panic!("no row {prefix:?}:\n{stdout}"))
            .to_string()
    };
    assert!(row(&["tcp", "read", "1m", "140ms"]).ends_with("TCP window"), "{stdout}");
    assert!(row(&["rdma", "read", "1m", "0"]).ends_with("link rate"), "{stdout}");
    let write_4k = row(&["rdma", "write", "4k", "10ms"]);
    assert!(write_4k.contains(" 2  outstanding I/O"), "two round trips for a pulled write: {write_4k}");
    assert!(stdout.contains("TCP window 6 MiB per connection over 10ms × 1 connection is 629 MB/s"), "{stdout}");
    assert!(stdout.contains("link rate: 10gbit carries 1250 MB/s of payload"), "{stdout}");
}

#[test]
fn json_rows_show_a_large_rdma_write_slower_than_a_read_at_20_ms() {
    let o = model(&["--wan", "rtt=20ms,rate=10gbit", "--proto", "rdma", "--bs", "1m", "--output-format", "json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("stdout is JSON");
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "read and write: {report}");
    let bandwidth = |rw: &str| {
        let row = rows.iter().find(|r| r["rw"] == rw).expect("row");
        assert_eq!(row["proto"], "rdma");
        assert_eq!(row["bs"], 1 << 20);
        assert_eq!(row["rtt"], 0.02);
        assert!(row["output"]["explanation"].as_str().is_some_and(|e| !e.is_empty()), "{row}");
        row["output"]["bandwidth"].as_f64().expect("bandwidth")
    };
    let (read, write) = (bandwidth("read"), bandwidth("write"));
    assert!(write < read, "write {write} read {read}");
    let write_row = rows.iter().find(|r| r["rw"] == "write").expect("write row");
    assert_eq!(write_row["output"]["round_trips"], 2);
    assert_eq!(write_row["output"]["limit"]["kind"], "outstanding_io");
}

#[test]
fn bad_values_are_usage_errors_naming_the_option() {
    for (args, option) in [
        (&["--wan", "rtt=20ms", "--bs", "4x"][..], "--bs"),
        (&["--wan", "rtt=20ms", "--proto", "udp"][..], "--proto"),
        (&["--rtt", "5"][..], "--rtt"),
        (&["--distance", "10parsecs"][..], "--distance"),
        (&["--wan", "rtt=20ms", "--rdma-inline", "3000"][..], "--rdma-inline"),
        (&["--wan", "bandwidth=1gbit"][..], "--wan"),
        (&[][..], "--wan"),
    ] {
        let o = model(args);
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: one line: {stderr}");
        assert!(stderr.starts_with("nfsbench model: ") && stderr.contains(option), "{args:?}: {stderr}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}
