//! Peers that break the protocol or vanish: the responder turns each away (or lets it go) and serves
//! the next client. TCP on loopback, RDMA over the soft provider.

use bytes::Bytes;
use rdma::{next_completions, Access, CompletionKind, Provider, QpConfig, QueuePair, RegBuf, RemoteSegment};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use wire_baseline::{rdma_ping_pong, rdma_write_bandwidth, serve_rdma, serve_tcp, tcp_ping_pong, tcp_stream};
use wire_baseline::{Hello, Mode};

const SHORT: Duration = Duration::from_millis(200);

/// True once the responder has closed `conn` (within 5 s).
async fn closed(conn: &mut TcpStream) -> bool {
    let mut buf = [0u8; 64];
    let read = tokio::time::timeout(Duration::from_secs(5), conn.read(&mut buf)).await.expect("closed in time");
    matches!(read, Ok(0) | Err(_))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tcp_peers_with_bad_hellos_are_dropped_and_vanishing_ones_let_go() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(serve_tcp(listener));
    let mut http = TcpStream::connect(addr).await.expect("connect");
    http.write_all(b"GET / HTTP/1.1\r\n\r\n").await.expect("write");
    assert!(closed(&mut http).await, "not a hello");
    let mut huge = TcpStream::connect(addr).await.expect("connect");
    let mut hello = Hello { mode: Mode::PingPong, size: 64 }.encode();
    hello[12..16].copy_from_slice(&u32::MAX.to_be_bytes());
    huge.write_all(&hello).await.expect("write");
    assert!(closed(&mut huge).await, "a 4 GiB ping-pong message is refused, not allocated");
    // Half a hello, then gone; a stream client that leaves mid-stream; a ping-pong one mid-message.
    let mut half = TcpStream::connect(addr).await.expect("connect");
    half.write_all(b"NFSBW").await.expect("write");
    drop(half);
    let mut gone = TcpStream::connect(addr).await.expect("connect");
    gone.write_all(&Hello { mode: Mode::Stream, size: 1 << 20 }.encode()).await.expect("hello");
    gone.write_all(&[0u8; 100_000]).await.expect("some data");
    drop(gone);
    let mut mid = TcpStream::connect(addr).await.expect("connect");
    mid.write_all(&Hello { mode: Mode::PingPong, size: 4096 }.encode()).await.expect("hello");
    mid.write_all(&[1u8; 1000]).await.expect("part of a message");
    drop(mid);
    let p = tcp_ping_pong(addr, 512, SHORT).await.expect("still serving");
    assert!(p.round_trips > 0);
    let s = tcp_stream(addr, 2, SHORT).await.expect("still serving streams");
    assert!(s.bytes >= 2 << 20, "{s:?}");
}

async fn rdma_responder(provider: &rdma_soft::SoftProvider) -> SocketAddr {
    let listener = provider.listen("127.0.0.1:0".parse().expect("addr")).expect("listen");
    let addr = listener.local_addr();
    tokio::spawn(serve_rdma(listener));
    addr
}

/// The next received message on `qp`, or None once the connection is down (within 5 s).
async fn next_recv(qp: &dyn QueuePair) -> Option<Bytes> {
    let wait = async {
        loop {
            let mut out = Vec::new();
            next_completions(qp, &mut out).await.ok()?;
            for c in out {
                match c.result {
                    Ok(CompletionKind::Recv(bytes)) => return Some(bytes),
                    Ok(_) => {}
                    Err(_) => return None,
                }
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), wait).await.expect("an answer or the end in time")
}

fn config() -> QpConfig {
    QpConfig {
        recv_size: 64,
        max_recv: 4,
        max_send: 20,
        initiator_depth: 0,
        responder_resources: 0,
        ..QpConfig::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rdma_peers_with_bad_hellos_are_refused_and_the_next_one_served() {
    let provider = rdma_soft::SoftProvider::new().expect("soft provider");
    let addr = rdma_responder(&provider).await;
    let mut huge = Hello { mode: Mode::Stream, size: 1 << 20 }.encode();
    huge[12..16].copy_from_slice(&(1u32 << 30).to_be_bytes());
    for private_data in [&b"not a hello at all"[..], &[], &huge] {
        let refused = provider.connect(addr, config(), private_data).await;
        assert!(refused.is_err(), "{private_data:?} is rejected");
    }
    // A good hello, then something else than "ready": that connection ends, the responder goes on.
    let qp = provider.connect(addr, config(), &Hello { mode: Mode::Stream, size: 4096 }.encode()).await.expect("ok");
    qp.post_recvs(1).expect("recv");
    qp.post_send(0, &[b"steady"]).expect("send");
    assert!(next_recv(&*qp).await.is_none(), "the responder disconnects");
    let p = rdma_ping_pong(&provider, addr, 64, SHORT).await.expect("still serving");
    assert!(p.round_trips > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rdma_writer_vanishing_mid_stream_does_not_stop_the_responder() {
    let provider = rdma_soft::SoftProvider::new().expect("soft provider");
    let addr = rdma_responder(&provider).await;
    let size = 1u32 << 20;
    let qp = provider.connect(addr, config(), &Hello { mode: Mode::Stream, size }.encode()).await.expect("connect");
    qp.post_recvs(1).expect("recv");
    qp.post_send(0, &[b"ready"]).expect("ready");
    let seg = next_recv(&*qp).await.expect("the segment");
    assert_eq!(seg.len(), 16);
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let offset = u64::from_be_bytes(seg[4..12].try_into().expect("8 bytes"));
    let remote = RemoteSegment { handle: be32(&seg[..4]), offset, length: be32(&seg[12..]) };
    assert_eq!(remote.length, size);
    let local = qp.register(RegBuf::ReadOnly(Bytes::from(vec![7u8; size as usize])), Access::NONE).expect("register");
    for _ in 0..4 {
        qp.post_write(1, &local, 0, remote).expect("write");
    }
    // No "done": gone with Writes in flight.
    drop(qp);
    // A ping-pong client that leaves without a word.
    let quiet = provider.connect(addr, config(), &Hello { mode: Mode::PingPong, size: 64 }.encode()).await;
    drop(quiet.expect("connect"));
    let s = rdma_write_bandwidth(&provider, addr, 2, SHORT).await.expect("still serving");
    assert!(s.bytes > 0, "{s:?}");
    let p = rdma_ping_pong(&provider, addr, 64, SHORT).await.expect("still serving");
    assert!(p.round_trips > 0);
}
