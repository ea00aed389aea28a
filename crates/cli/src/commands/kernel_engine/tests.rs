use super::*;

fn golden(name: &str) -> Mount {
    let path = format!("{}/../mountstats/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mounts = mountstats::parse(&text).expect("parses");
    Mount::find(&mounts, "/mnt/t").expect("the test mount").clone()
}

#[test]
fn the_window_of_a_v41_rdma_run_sums_data_rpcs_and_xprtrdma_counters() {
    // Linux 6.1 against knfsd over Soft-RoCE, before and after 4 MiB written and read back.
    let (before, after) = (golden("v41-rdma.before.txt"), golden("v41-rdma.txt"));
    let w = window_json(&after.delta(&before));
    assert_eq!(w["rpcs"], 99 - 14, "every op's growth");
    assert_eq!(w["data_rpcs"], 5 + 68, "READ and WRITE (no COMMIT: the writes were stable)");
    assert_eq!(w["rtt_ms_total"], 260 + 424);
    assert_eq!(w["exec_ms_total"], 268 + 455);
    assert_eq!(w["backlog_ms_total"], 2 + 16);
    assert_eq!(w["retransmissions"], 0);
    // READ's 4 MiB came back and WRITE's went out, with the other operations' few bytes beside them.
    assert!(w["bytes_received"].as_u64().is_some_and(|b| (4_194_824..4_300_000).contains(&b)), "{w}");
    assert!(w["bytes_sent"].as_u64().is_some_and(|b| (4_468_960..4_600_000).contains(&b)), "{w}");
    let rdma = &w["rdma"];
    assert!(rdma.is_object(), "{w}");
    let window = after.delta(&before);
    let counters = window.transports[0].rdma.as_ref().expect("xprtrdma counters");
    assert_eq!(rdma["read_chunks"], counters.read_chunk_count);
    assert_eq!(rdma["reply_chunks"], counters.reply_chunk_count);
    assert_eq!(negotiated_line(&after).split(',').find(|o| o.starts_with("proto=")), Some("proto=rdma"));
}

#[test]
fn a_tcp_window_has_no_rdma_section() {
    let (before, after) = (golden("v3-tcp.before.txt"), golden("v3-tcp.txt"));
    let w = window_json(&after.delta(&before));
    assert!(w["rdma"].is_null(), "{w}");
    assert!(w["data_rpcs"].as_u64().is_some_and(|n| n > 0), "{w}");
}
