//! `nfsbench serve` as users run it: the built binary on a free loopback port, spoken to over TCP.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod cli_support;

use cli_support::{nfsbench, scratch, serve};
use hostile::RawClient;
use onc_rpc::NFS_PROGRAM;

/// Runs `nfsbench serve ARGS` expecting it to exit at once; returns the output.
fn serve_fails(args: &[&str]) -> Output {
    let mut child =
        nfsbench().arg("serve").args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nfsbench serve {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn serves_null_and_mount_then_prints_statistics_on_sigterm() {
    let dir = scratch("e2e");
    let ready = dir.join("ready");
    let (child, addrs) = serve(&["--listen", "127.0.0.1:0"], &ready, Stdio::piped(), Stdio::piped());
    assert_eq!(addrs.len(), 1);
    assert_ne!(addrs[0].port(), 0, "the ready file has the port actually bound");

    let mut client = RawClient::connect(addrs[0]).expect("connect");
    assert!(client.call(NFS_PROGRAM, 3, 0, &[]).expect("NFS NULL").is_empty(), "NFS NULL has no results");
    let root = client.mount("/export").unwrap_or_else(|e| panic!("MNT /export: {e}"));
    assert!(!root.is_empty());
    drop(client);

    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("exit");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}, stderr: {stderr}", output.status);
    assert!(stdout.contains("MNT"), "stats name the MOUNT call: {stdout}");
    assert!(stdout.contains("NULL"), "stats name the NULL call: {stdout}");
    assert!(stdout.contains("tcp: connections accepted 1"), "transport stats: {stdout}");
    assert!(!ready.exists(), "the ready file is removed on exit");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rdma_flags_without_rdma_exit_2_naming_them() {
    let output = serve_fails(&["--rdma-listen", "127.0.0.1:20049"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--rdma-listen") && stderr.contains("--rdma"), "{stderr}");
}

#[test]
fn the_verbs_provider_without_an_rdma_device_exits_1_naming_it() {
    if std::fs::read_dir("/sys/class/infiniband").is_ok_and(|mut d| d.next().is_some()) {
        return; // this machine has an RDMA device: the verbs provider opens
    }
    let output = serve_fails(&["--listen", "127.0.0.1:0", "--rdma", "--rdma-provider", "verbs"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--rdma-provider verbs"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
}

#[test]
fn a_bad_backend_exits_2_naming_it() {
    let output = serve_fails(&["--export", "/x=floppy"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("floppy") && stderr.contains("--export"), "{stderr}");
}

#[test]
fn an_unknown_config_key_exits_2_naming_the_key_and_line() {
    let dir = scratch("config");
    let config = dir.join("serve.toml");
    std::fs::write(&config, "listeners = [\"127.0.0.1:0\"]\n[limits]\nmax_inflight = 3\n").expect("write");
    let output = serve_fails(&["--config", config.to_str().expect("utf-8 path")]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("max_inflight") && stderr.contains("serve.toml:3:"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_address_in_use_exits_1_naming_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr").to_string();
    let output = serve_fails(&["--listen", &addr]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&addr), "{stderr}");
}
