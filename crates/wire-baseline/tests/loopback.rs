//! Both ends of every baseline on loopback: TCP directly, RDMA over the soft provider. Correctness only
//! (bytes arrive and are counted, echoes match, the responder serves again); speed is for `nfsbench
//! compare`. Measurements last 0.2 s; nothing here depends on how fast the machine is.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use wire_baseline::{rdma_ping_pong, rdma_write_bandwidth, serve_rdma, serve_tcp, tcp_ping_pong, tcp_stream};
use wire_baseline::{serve_tcp_over, tcp_ping_pong_over, tcp_stream_over};
use wire_baseline::{WireError, MAX_PING, WRITE_DEPTH, WRITE_SIZE};

const SHORT: Duration = Duration::from_millis(200);

async fn tcp_responder() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(serve_tcp(listener));
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_stream_counts_what_arrived_and_ping_pong_round_trips() {
    let addr = tcp_responder().await;
    let s = tcp_stream(addr, 3, SHORT).await.expect("stream");
    assert!(s.bytes >= 3 << 20, "each connection delivered at least one 1 MiB write: {s:?}");
    assert_eq!(s.bytes % (1 << 20), 0, "whole writes, as counted by the responder: {s:?}");
    assert!(s.seconds >= SHORT.as_secs_f64() && s.mbs() > 0.0, "{s:?}");
    let p = tcp_ping_pong(addr, 64, SHORT).await.expect("ping-pong");
    assert!(p.round_trips > 0 && p.median_us > 0.0 && p.p99_us >= p.median_us, "{p:?}");
    assert!(p.mean_us > 0.0 && p.mean_us.is_finite(), "{p:?}");
    let p = tcp_ping_pong(addr, MAX_PING, SHORT).await.expect("the largest ping-pong message");
    assert!(p.round_trips > 0);
    let s = tcp_stream(addr, 1, Duration::ZERO).await.expect("a zero duration still writes once");
    assert_eq!(s.bytes, 1 << 20);
}

/// Through an emulated link (`serve --wan` on the responder's side, or on the measurer's), the TCP
/// baselines see that path: its round trip and its rate. Bounds are the link's own, loosely.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_baselines_through_a_link_on_either_side_see_its_round_trip_and_rate() {
    let link = || wan::Link::new(mount_options::LinkSpec::parse("rtt=4ms,rate=100mbit").expect("spec"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let far = listener.local_addr().expect("addr");
    tokio::spawn(serve_tcp_over(listener, Some(link())));
    let near = tcp_responder().await;
    let measurer = link();
    for (addr, via) in [(far, None), (near, Some(&measurer))] {
        let p = tcp_ping_pong_over(addr, 64, SHORT, via).await.expect("ping-pong");
        assert!((4000.0..5000.0).contains(&p.median_us), "{p:?}");
        let s = tcp_stream_over(addr, 1, SHORT, via).await.expect("stream");
        // 100 Mbit/s is 12.5 MB/s; the clock stops when the count is back, after the last byte.
        assert!(s.mbs() <= 12.5 * 1.03 && s.bytes >= 1 << 20, "{s:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sizes_outside_the_protocol_fail_before_connecting() {
    let nobody: SocketAddr = "127.0.0.1:9".parse().expect("addr");
    for size in [0, MAX_PING + 1] {
        let e = tcp_ping_pong(nobody, size, SHORT).await.expect_err("refused");
        assert!(matches!(e, WireError::Protocol(_)), "{e}");
        let provider = rdma_soft::SoftProvider::new().expect("soft provider");
        let e = rdma_ping_pong(&provider, nobody, size, SHORT).await.expect_err("refused");
        assert!(matches!(e, WireError::Protocol(_)), "{e}");
    }
}

fn soft() -> Arc<rdma_soft::SoftProvider> {
    Arc::new(rdma_soft::SoftProvider::new().expect("soft provider"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rdma_writes_are_counted_when_placed_and_sends_echo() {
    let provider = soft();
    let listener = rdma::Provider::listen(&*provider, "127.0.0.1:0".parse().expect("addr")).expect("listen");
    let addr = listener.local_addr();
    tokio::spawn(serve_rdma(listener));
    let s = rdma_write_bandwidth(&*provider, addr, 2, SHORT).await.expect("write bandwidth");
    let depth = u64::from(WRITE_DEPTH) * u64::from(WRITE_SIZE);
    assert!(s.bytes >= 2 * depth, "both queue pairs completed their first {WRITE_DEPTH} writes: {s:?}");
    assert_eq!(s.bytes % u64::from(WRITE_SIZE), 0, "whole writes: {s:?}");
    assert!(s.seconds > 0.0 && s.mbs() > 0.0, "{s:?}");
    let p = rdma_ping_pong(&*provider, addr, 64, SHORT).await.expect("ping-pong");
    assert!(p.round_trips > 0 && p.median_us > 0.0 && p.p99_us >= p.median_us, "{p:?}");
    // The responder serves again after both clients left, with the largest message.
    let p = rdma_ping_pong(&*provider, addr, MAX_PING, SHORT).await.expect("again");
    assert!(p.round_trips > 0);
    let s = rdma_write_bandwidth(&*provider, addr, 1, Duration::ZERO).await.expect("zero duration");
    assert_eq!(s.bytes, depth, "exactly the first window");
}
