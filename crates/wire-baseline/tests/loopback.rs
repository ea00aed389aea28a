//! Both ends of every baseline on loopback: TCP directly, RDMA over the soft provider. Correctness only
//! (bytes arrive, echoes match, bad peers are turned away); speed is for `nfsbench compare`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use wire_baseline::{rdma_ping_pong, rdma_write_bandwidth, serve_rdma, serve_tcp, tcp_ping_pong, tcp_stream};

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
    assert!(s.seconds >= SHORT.as_secs_f64() && s.mbs() > 0.0);
    let p = tcp_ping_pong(addr, 64, SHORT).await.expect("ping-pong");
    assert!(p.round_trips > 0 && p.median_us > 0.0 && p.p99_us >= p.median_us, "{p:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tcp_peer_with_a_bad_hello_is_dropped_and_the_next_one_served() {
    let addr = tcp_responder().await;
    let mut bad = tokio::net::TcpStream::connect(addr).await.expect("connect");
    bad.write_all(b"GET / HTTP/1.1\r\n\r\n").await.expect("write");
    let mut buf = [0u8; 16];
    let n = tokio::time::timeout(Duration::from_secs(5), bad.read(&mut buf)).await.expect("closed in time");
    assert!(matches!(n, Ok(0) | Err(_)), "the responder closed the connection: {n:?}");
    // A client that leaves in the middle of a stream.
    let mut gone = tokio::net::TcpStream::connect(addr).await.expect("connect");
    gone.write_all(&wire_baseline::Hello { mode: wire_baseline::Mode::Stream, size: 1 << 20 }.encode())
        .await
        .expect("hello");
    gone.write_all(&[0u8; 4096]).await.expect("some data");
    drop(gone);
    let p = tcp_ping_pong(addr, 512, SHORT).await.expect("still serving");
    assert!(p.round_trips > 0);
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
    assert!(s.bytes >= (2 * 16) << 20, "both queue pairs completed their first 16 writes: {s:?}");
    assert!(s.mbs() > 0.0);
    let p = rdma_ping_pong(&*provider, addr, 64, SHORT).await.expect("ping-pong");
    assert!(p.round_trips > 0 && p.median_us > 0.0, "{p:?}");
    // The responder serves again after both clients left.
    let p = rdma_ping_pong(&*provider, addr, 4096, SHORT).await.expect("again");
    assert!(p.round_trips > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rdma_peer_with_a_bad_hello_is_refused_and_the_next_one_served() {
    let provider = soft();
    let listener = rdma::Provider::listen(&*provider, "127.0.0.1:0".parse().expect("addr")).expect("listen");
    let addr = listener.local_addr();
    tokio::spawn(serve_rdma(listener));
    let refused = rdma::Provider::connect(&*provider, addr, rdma::QpConfig::default(), b"not a hello at all").await;
    assert!(refused.is_err(), "a bad hello is rejected");
    let p = rdma_ping_pong(&*provider, addr, 64, SHORT).await.expect("still serving");
    assert!(p.round_trips > 0);
}
