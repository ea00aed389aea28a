//! `nfsbench mountstats` end to end on the mountstats crate's golden vectors (Linux 6.1 against knfsd,
//! read with `--from`): the tables, the JSON, the asked-vs-negotiated gate and the exit statuses.

mod cli_support;

use cli_support::{nfsbench, stderr};
use std::process::Output;

fn golden(name: &str) -> String {
    format!("{}/../mountstats/testdata/{name}.txt", env!("CARGO_MANIFEST_DIR"))
}

fn mountstats(args: &[&str]) -> Output {
    nfsbench().arg("mountstats").args(args).output().expect("run nfsbench mountstats")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn shows_the_negotiated_options_transports_and_ops_of_an_rdma_mount() {
    let out = mountstats(&["/mnt/t", "--from", &golden("v3-rdma")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("/mnt/t: 10.99.0.1:/srv/nfs (nfs, mounted 1 s ago)\n"), "{text}");
    assert!(text.contains("proto=rdma,port=20049"), "{text}");
    assert!(text.contains("  0  rdma    95    95        0        0.00          1.00\n"), "{text}");
    assert!(text.contains("read chunks write chunks reply chunks"), "{text}");
    let write = text.lines().find(|l| l.trim_start().starts_with("WRITE")).expect("a WRITE row");
    assert_eq!(
        write.split_whitespace().collect::<Vec<_>>(),
        ["WRITE", "68", "0", "0", "5.84", "6.19", "0.19", "4464336", "9248", "0"]
    );
    assert!(!text.contains("SETATTR"), "ops never called are left out: {text}");
}

#[test]
fn nconnect_shows_one_row_per_transport() {
    let out = mountstats(&["/mnt/t/", "--from", &golden("v3-tcp-nconnect4")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rows = stdout(&out).lines().filter(|l| l.contains(" tcp ")).count();
    assert_eq!(rows, 4);
}

#[test]
fn json_carries_the_mount_and_the_figures_since_it_was_mounted() {
    let out = mountstats(&["/mnt/t", "--json", "--from", &golden("v41-rdma")]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["mount"]["fstype"], "nfs4");
    assert_eq!(v["mount"]["nfs"]["opts"][1]["value"], "4.1");
    assert_eq!(v["mount"]["nfs"]["transports"][0]["rdma"]["write_chunk_count"], 40);
    let read = v["since_mount"]["ops"].as_array().unwrap().iter().find(|o| o["name"] == "READ").unwrap();
    assert_eq!(read["bytes_recv"], 4194824);
    assert!(v.get("checks").is_none());
}

#[test]
fn asked_options_that_the_kernel_lowered_exit_1_with_the_table() {
    let asked = "vers=3,proto=tcp,rsize=4194304,wsize=4194304,nolock";
    let out = mountstats(&["/mnt/t", "--from", &golden("v3-tcp-rsize4m"), "--asked", asked]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("asked vs negotiated: the mount differs from what was asked"), "{text}");
    let rsize = text.lines().find(|l| l.trim_start().starts_with("rsize")).expect("an rsize row");
    assert!(rsize.contains("rsize=4194304") && rsize.contains("1048576") && rsize.contains("DIFFERS"), "{rsize}");
    assert!(stderr(&out).is_empty(), "the table said it: {}", stderr(&out));
}

#[test]
fn asked_options_the_kernel_negotiated_exit_0_and_go_into_the_json() {
    let asked = "vers=3,proto=tcp,nconnect=4,nolock";
    let out = mountstats(&["/mnt/t", "--json", "--from", &golden("v3-tcp-nconnect4"), "--asked", asked]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["differs"], false);
    assert_eq!(v["checks"][2]["key"], "nconnect");
    assert_eq!(v["checks"][2]["negotiated"], "4 (4 transports)");
    assert_eq!(v["checks"][2]["verdict"], "same");
}

#[test]
fn a_mount_point_that_is_not_nfs_exits_2_naming_it() {
    let out = mountstats(&["/srv/nfs", "--from", &golden("v3-tcp")]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "nfsbench mountstats: /srv/nfs: not an NFS mount (fstype tmpfs)\n");
    let out = mountstats(&["/not/mounted", "--from", &golden("v3-tcp")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("nfsbench mountstats: /not/mounted: not a mount point in "), "{}", stderr(&out));
}

#[test]
fn a_file_that_cannot_be_read_exits_2_and_one_that_is_not_mountstats_exits_1() {
    let out = mountstats(&["/mnt/t", "--from", "/nonexistent/mountstats"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("nfsbench mountstats: --from /nonexistent/mountstats: "), "{}", stderr(&out));
    let dir = cli_support::scratch("mountstats-garbled");
    let file = dir.join("garbled.txt");
    std::fs::write(&file, "device a mounted on /m with fstype nfs\nthis is not mountstats\n").unwrap();
    let out = mountstats(&["/m", "--from", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("mountstats line 2: not part of any mount section"), "{}", stderr(&out));
}

#[test]
fn reads_this_process_mountstats_without_from() {
    // The test's own root file system is not NFS here (CI, the lab host); the point is the live path.
    let out = mountstats(&["/proc"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), "nfsbench mountstats: /proc: not an NFS mount (fstype proc)\n");
}
