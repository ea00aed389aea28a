//! The golden vectors of testdata/ (Linux 6.1, knfsd over TCP and Soft-RoCE): every file parses, the
//! NFS mount at /mnt/t carries what its mount options imply, and windows between two readings add up.

use mountstats::{check_options, differs, parse, Mount, Verdict};

const MNT: &str = "/mnt/t";

fn read(name: &str) -> Vec<Mount> {
    let path = format!("{}/testdata/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn nfs_mount(name: &str) -> Mount {
    let mounts = read(name);
    assert_eq!(mounts.iter().filter(|m| m.is_nfs()).count(), 1, "{name}: one NFS mount");
    let m = Mount::find(&mounts, MNT).unwrap_or_else(|| panic!("{name}: no {MNT}")).clone();
    let nfs = m.nfs.as_ref().expect("an NFS mount");
    assert!(nfs.skipped_lines.is_empty(), "{name}: skipped {:?}", nfs.skipped_lines);
    assert_eq!(nfs.events.len(), 27, "{name}");
    assert_eq!(nfs.bytes.len(), 8, "{name}");
    m
}

#[test]
fn every_golden_file_parses_with_the_vms_other_mounts_kept_without_statistics() {
    for name in GOLDEN {
        let mounts = read(name);
        assert!(mounts.len() > 10, "{name}: {} mounts", mounts.len());
        let root = Mount::find(&mounts, "/").unwrap();
        assert_eq!((root.fstype.as_str(), root.nfs.is_none()), ("overlay", true));
    }
}

const GOLDEN: [&str; 11] = [
    "v3-tcp",
    "v3-tcp.before",
    "v3-tcp-nconnect4",
    "v3-rdma",
    "v3-tcp-rsize4m",
    "v4-tcp",
    "v41-tcp",
    "v42-tcp",
    "v41-rdma",
    "v41-rdma.before",
    "v41-rdma-nconnect2",
];

#[test]
fn v3_over_tcp_has_one_tcp_transport_and_the_nfsv3_procedures() {
    let m = nfs_mount("v3-tcp");
    assert_eq!((m.device.as_str(), m.fstype.as_str()), ("10.99.0.1:/srv/nfs", "nfs"));
    assert_eq!((m.option("vers"), m.option("proto"), m.option("rsize")), (Some("3"), Some("tcp"), Some("1048576")));
    let t = m.transports();
    assert_eq!(t.len(), 1);
    assert_eq!((t[0].proto.as_str(), t[0].sends, t[0].recvs, t[0].max_slots), ("tcp", 95, 95, Some(2)));
    let nfs = m.nfs.as_ref().unwrap();
    assert_eq!(nfs.ops.len(), 22, "NULL to COMMIT");
    let write = m.op("WRITE").unwrap();
    assert_eq!((write.ops, write.ntrans, write.bytes_sent), (68, 68, 4464608));
    assert_eq!(m.op("READ").unwrap().bytes_recv, 4194944);
    assert_eq!(nfs.bytes.get("direct_write"), Some(4456448), "4 MiB + 64 x 4 KiB");
    assert_eq!(nfs.rpc.as_ref().unwrap().program_version, Some(3));
}

#[test]
fn nconnect_4_shows_four_tcp_transports_that_share_the_sends() {
    let m = nfs_mount("v3-tcp-nconnect4");
    assert_eq!(m.option("nconnect"), Some("4"));
    let t = m.transports();
    assert_eq!(t.len(), 4);
    assert!(t.iter().all(|x| x.proto == "tcp" && x.sends > 0));
    assert_eq!(t.iter().map(|x| x.sends).sum::<u64>(), 95);
}

#[test]
fn rdma_transports_carry_the_xprtrdma_counters() {
    for name in ["v3-rdma", "v41-rdma", "v41-rdma-nconnect2"] {
        let m = nfs_mount(name);
        assert_eq!(m.option("proto"), Some("rdma"), "{name}");
        assert_eq!(m.option("port"), Some("20049"), "{name}");
        let t = &m.transports()[0];
        let r = t.rdma.as_ref().unwrap_or_else(|| panic!("{name}: no rdma counters"));
        assert!(r.read_chunk_count > 0 && r.write_chunk_count > 0, "{name}: {r:?}");
        assert!(r.total_rdma_request > 4 << 20 && r.total_rdma_reply > 4 << 20, "{name}: {r:?}");
        assert!(r.reply_waits_for_send.is_some() && t.extra.is_empty(), "{name}: all 27 fields of 6.1 named");
    }
    let r = nfs_mount("v3-rdma").transports()[0].rdma.clone().unwrap();
    assert_eq!((r.read_chunk_count, r.write_chunk_count, r.reply_chunk_count), (103, 45, 15));
    assert_eq!((r.failed_marshal_count, r.mrs_allocated, r.local_inv_needed), (2, Some(33), Some(87)));
}

#[test]
fn nfsv4_mounts_show_the_negotiated_minor_version_and_their_v4_lines() {
    for (name, vers) in [("v4-tcp", "4.2"), ("v41-tcp", "4.1"), ("v42-tcp", "4.2"), ("v41-rdma", "4.1")] {
        let m = nfs_mount(name);
        assert_eq!((m.fstype.as_str(), m.option("vers")), ("nfs4", Some(vers)), "{name}");
        let nfs = m.nfs.as_ref().unwrap();
        assert!(nfs.nfsv4.iter().any(|o| o.key == "sessions"), "{name}");
        assert!(nfs.nfsv4.iter().any(|o| o.key == "pnfs" && o.value.as_deref() == Some("not configured")));
        assert!(nfs.impl_id.is_some(), "{name}");
        assert_eq!(m.option("mountport"), None, "{name}: no MOUNT protocol");
        assert!(m.op("OPEN").unwrap().ops > 0, "{name}");
    }
}

#[test]
fn the_asked_options_of_each_capture_check_as_the_kernel_negotiated_them() {
    let cases = [
        ("v3-tcp", "vers=3,proto=tcp,nolock", false),
        ("v3-tcp-nconnect4", "vers=3,proto=tcp,nconnect=4,nolock", false),
        ("v3-rdma", "vers=3,proto=rdma,port=20049,nolock", false),
        ("v3-tcp-rsize4m", "vers=3,proto=tcp,rsize=4194304,wsize=4194304,nolock", true),
        ("v4-tcp", "vers=4,proto=tcp", true),
        ("v41-tcp", "vers=4.1,proto=tcp", false),
        ("v42-tcp", "vers=4.2,proto=tcp", false),
        ("v41-rdma", "vers=4.1,proto=rdma,port=20049", false),
        ("v41-rdma-nconnect2", "vers=4.1,proto=rdma,port=20049,nconnect=2", true),
    ];
    for (name, asked, expect_differs) in cases {
        let checks = check_options(asked, &nfs_mount(name));
        assert_eq!(differs(&checks), expect_differs, "{name} -o {asked}: {checks:#?}");
        assert!(checks.iter().all(|c| c.verdict != Verdict::NotShown), "{name}: {checks:#?}");
    }
}

#[test]
fn a_window_over_the_dd_run_counts_its_bytes_and_rpcs() {
    let w = nfs_mount("v3-tcp").delta(&nfs_mount("v3-tcp.before"));
    let write = w.ops.iter().find(|o| o.name == "WRITE").unwrap();
    assert_eq!((write.ops, write.retransmissions, write.timeouts), (68, 0, 0));
    assert!(write.avg_rtt_ms.unwrap() > 0.0 && write.avg_exec_ms.unwrap() >= write.avg_rtt_ms.unwrap());
    assert_eq!(w.bytes.get("direct_write"), Some(4456448));
    let t = &w.transports[0];
    assert_eq!((t.proto.as_str(), t.sends, t.recvs, t.bad_xids), ("tcp", 88, 88, 0));
}

#[test]
fn an_rdma_window_counts_the_chunks_of_the_dd_run() {
    let w = nfs_mount("v41-rdma").delta(&nfs_mount("v41-rdma.before"));
    let r = w.transports[0].rdma.as_ref().unwrap();
    assert!(r.read_chunk_count > 0 && r.write_chunk_count > 0, "{r:?}");
    assert!(r.total_rdma_reply >= 4 << 20, "{r:?}");
    let read = w.ops.iter().find(|o| o.name == "READ").unwrap();
    assert_eq!(read.bytes_recv, 4194824);
}

#[test]
fn mounts_and_windows_serialise_to_json() {
    let m = nfs_mount("v3-rdma");
    let json = serde_json::to_value(&m).unwrap();
    assert_eq!(json["nfs"]["transports"][0]["rdma"]["read_chunk_count"], 103);
    assert_eq!(json["nfs"]["bytes"]["server_read"], 4194304);
    let w = serde_json::to_value(m.delta(&m)).unwrap();
    assert_eq!(w["transports"][0]["sends"], 0);
}
