//! `nfsbench serve --baseline-listen` as `nfsbench compare --target` uses it: the built binary with NFS
//! over TCP and over RDMA (soft provider), and the wire-baseline responders listed after them in the
//! ready file, each measured from this process for 0.2 s. Correctness only, not speed.

use std::process::{Command, Stdio};
use std::time::Duration;

mod cli_support;

use cli_support::{scratch, serve};

const SHORT: Duration = Duration::from_millis(200);

#[test]
fn serve_answers_the_four_wire_baselines_listed_last_in_its_ready_file() {
    let dir = scratch("baseline");
    let ready = dir.join("ready");
    let args = ["--listen", "127.0.0.1:0", "--rdma", "--rdma-provider", "soft", "--rdma-listen", "127.0.0.1:0"];
    let (child, addrs) =
        serve(&[&args[..], &["--baseline-listen", "127.0.0.1:0"]].concat(), &ready, Stdio::piped(), Stdio::piped());
    assert_eq!(addrs.len(), 4, "NFS TCP, NFS RDMA, baseline TCP, baseline RDMA: {addrs:?}");
    assert!(addrs.iter().all(|a| a.ip().is_loopback() && a.port() != 0), "bound addresses: {addrs:?}");
    let (nfs_tcp, baseline_tcp, baseline_rdma) = (addrs[0], addrs[2], addrs[3]);
    assert_ne!(baseline_tcp, nfs_tcp);

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let provider = rdma_soft::SoftProvider::new().expect("soft provider");
    let (tcp_stream, tcp_ping, rdma_stream, rdma_ping) = runtime.block_on(async {
        (
            wire_baseline::tcp_stream(baseline_tcp, 2, SHORT).await.expect("TCP stream"),
            wire_baseline::tcp_ping_pong(baseline_tcp, 64, SHORT).await.expect("TCP ping-pong"),
            wire_baseline::rdma_write_bandwidth(&provider, baseline_rdma, 2, SHORT).await.expect("RDMA Writes"),
            wire_baseline::rdma_ping_pong(&provider, baseline_rdma, 64, SHORT).await.expect("RDMA ping-pong"),
        )
    });
    assert!(tcp_stream.bytes >= 2 << 20 && tcp_stream.mbs() > 0.0, "{tcp_stream:?}");
    let window = 2 * u64::from(wire_baseline::WRITE_DEPTH) * u64::from(wire_baseline::WRITE_SIZE);
    assert!(rdma_stream.bytes >= window && rdma_stream.mbs() > 0.0, "{rdma_stream:?}");
    for ping in [tcp_ping, rdma_ping] {
        assert!(ping.round_trips > 0 && ping.median_us > 0.0 && ping.p99_us >= ping.median_us, "{ping:?}");
    }
    drop(runtime);

    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill");
    assert!(status.success());
    let output = child.wait_with_output().expect("exit");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}, stderr: {stderr}", output.status);
    assert!(!ready.exists(), "the ready file is removed on exit");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_rdma_baseline_takes_the_port_after_the_tcp_one() {
    // A TCP port free a moment ago; the soft provider's listeners are abstract socket names, apart.
    let tcp_port = (0..20)
        .filter_map(|_| std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok())
        .map(|a| a.port())
        .find(|&port| port < u16::MAX)
        .expect("a free port");
    let dir = scratch("baseline-port");
    let ready = dir.join("ready");
    let baseline = format!("127.0.0.1:{tcp_port}");
    let args = ["--listen", "127.0.0.1:0", "--rdma", "--rdma-provider", "soft", "--rdma-listen", "127.0.0.1:0"];
    let (mut child, addrs) =
        serve(&[&args[..], &["--baseline-listen", &baseline]].concat(), &ready, Stdio::null(), Stdio::null());
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(addrs.len(), 4, "{addrs:?}");
    assert_eq!(addrs[2].port(), tcp_port, "{addrs:?}");
    assert_eq!(addrs[3].port(), tcp_port + 1, "{addrs:?}");
}
