//! The transport over real loopback sockets, with the in-test program of `common`.

mod common;

use std::time::{Duration, Instant};

use common::{call, framed_call, Client, Running, TestProgram, PROC_NULL, PROC_READ, PROC_SLEEP_ECHO};
use onc_rpc::{frame_record, record_marker};
use server_core::{ConnectionLimits, Execution};
use tokio::io::AsyncWriteExt;

fn limits() -> ConnectionLimits {
    ConnectionLimits::default()
}

#[tokio::test]
async fn answers_a_null_ping() {
    let server = Running::start(TestProgram::new(false), limits()).await;
    let mut client = Client::connect(server.addr).await;
    client.send(&framed_call(7, PROC_NULL, &[])).await;
    let (xid, results) = client.success().await;
    assert_eq!((xid, results.len()), (7, 0));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_many_calls_in_flight_as_they_complete_out_of_order() {
    let server = Running::start(TestProgram::new(true), limits()).await;
    let mut client = Client::connect(server.addr).await;
    // Call i sleeps (20 - i) * 15 ms: sent in order, the last ones finish first.
    let mut batch = Vec::new();
    for i in 0..20u32 {
        batch.extend(framed_call(i, PROC_SLEEP_ECHO, &((20 - i) * 15).to_be_bytes()));
    }
    client.send(&batch).await;
    let mut order = Vec::new();
    for _ in 0..20 {
        let (xid, results) = client.success().await;
        assert_eq!(results, ((20 - xid) * 15).to_be_bytes(), "echoed arguments of call {xid}");
        order.push(xid);
    }
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..20).collect::<Vec<_>>(), "every call answered once");
    assert_ne!(order, sorted, "replies left in completion order, not call order");
    assert!(order.first() > order.last(), "a short call overtook a long one: {order:?}");
    server.stop().await;
}

#[tokio::test]
async fn inline_execution_answers_a_pipelined_batch_in_order() {
    let server = Running::start(TestProgram::new(false), limits()).await;
    let mut client = Client::connect(server.addr).await;
    let batch: Vec<u8> = (0..100u32).flat_map(|i| framed_call(i, PROC_READ, &4096u32.to_be_bytes())).collect();
    client.send(&batch).await;
    for i in 0..100u32 {
        let (xid, results) = client.success().await;
        assert_eq!(xid, i);
        assert_eq!(results.len(), 4 + 4096 + 4, "count, payload, trailing word");
        assert!(results[4..4100].iter().all(|&b| b == 0xab));
    }
    server.stop().await;
}

#[tokio::test]
async fn a_pipeline_deeper_than_the_caps_is_answered_in_full() {
    for limits in [
        ConnectionLimits { max_in_flight_requests: 3, ..limits() },
        ConnectionLimits { max_in_flight_bytes: 10_000, ..limits() },
    ] {
        let server = Running::start(TestProgram::new(false), limits).await;
        let mut client = Client::connect(server.addr).await;
        let batch: Vec<u8> = (0..500u32).flat_map(|i| framed_call(i, PROC_READ, &4096u32.to_be_bytes())).collect();
        client.send(&batch).await;
        for i in 0..500u32 {
            assert_eq!(client.success().await.0, i);
        }
        let snap = server.stats.snapshot();
        assert!(snap.peak_in_flight_requests <= limits.max_in_flight_requests, "{snap}");
        assert!(snap.peak_in_flight_bytes <= limits.max_in_flight_bytes + 4096 + 64, "{snap}");
        server.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pipeline_deeper_than_the_caps_is_answered_in_full_from_the_blocking_pool() {
    let limits = ConnectionLimits { max_in_flight_requests: 5, ..limits() };
    let server = Running::start(TestProgram::new(true), limits).await;
    let mut client = Client::connect(server.addr).await;
    let batch: Vec<u8> = (0..300u32).flat_map(|i| framed_call(i, PROC_SLEEP_ECHO, &(i % 3).to_be_bytes())).collect();
    client.send(&batch).await;
    let mut seen: Vec<u32> = Vec::new();
    for _ in 0..300 {
        seen.push(client.success().await.0);
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..300).collect::<Vec<_>>());
    assert!(server.stats.snapshot().peak_in_flight_requests <= 5);
    server.stop().await;
}

#[tokio::test]
async fn task_per_call_execution_answers_every_call() {
    let limits = ConnectionLimits { execution: Execution::TaskPerCall, ..limits() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let mut client = Client::connect(server.addr).await;
    let batch: Vec<u8> = (0..50u32).flat_map(|i| framed_call(i, PROC_NULL, &[])).collect();
    client.send(&batch).await;
    let mut seen: Vec<u32> = Vec::new();
    for _ in 0..50 {
        seen.push(client.success().await.0);
    }
    seen.sort_unstable();
    assert_eq!(seen, (0..50).collect::<Vec<_>>());
    server.stop().await;
}

#[tokio::test]
async fn reassembles_records_split_across_writes_and_fragments() {
    let server = Running::start(TestProgram::new(false), limits()).await;
    let mut client = Client::connect(server.addr).await;
    // One record dribbled a byte at a time, the marker split too.
    for byte in framed_call(1, PROC_SLEEP_ECHO, &[0, 0, 0, 0, 1, 2, 3, 4]) {
        client.stream.write_all(&[byte]).await.expect("send");
        client.stream.flush().await.expect("flush");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(client.success().await, (1, vec![0, 0, 0, 0, 1, 2, 3, 4]));
    // One record in 5-byte fragments, sent in uneven pieces that straddle fragment headers.
    let args: Vec<u8> = [0u8, 0, 0, 0].into_iter().chain(0..200).collect();
    let wire = frame_record(&call(2, PROC_SLEEP_ECHO, &args), 5);
    for piece in wire.chunks(13) {
        client.send(piece).await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    assert_eq!(client.success().await, (2, args));
    // Two records, then half of a third, in one write: the first two are answered at once.
    let mut wire = framed_call(3, PROC_NULL, &[]);
    wire.extend(framed_call(4, PROC_NULL, &[]));
    let third = framed_call(5, PROC_NULL, &[]);
    wire.extend(&third[..10]);
    client.send(&wire).await;
    assert_eq!(client.success().await.0, 3);
    assert_eq!(client.success().await.0, 4);
    client.send(&third[10..]).await;
    assert_eq!(client.success().await.0, 5);
    server.stop().await;
}

#[tokio::test]
async fn an_oversized_record_header_closes_only_that_connection() {
    let limits = ConnectionLimits { max_record: 64 << 10, ..limits() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let mut hostile = Client::connect(server.addr).await;
    let mut good = Client::connect(server.addr).await;
    good.send(&framed_call(1, PROC_NULL, &[])).await;
    assert_eq!(good.success().await.0, 1);
    // A last fragment claiming 2 GiB - 1: refused from its header alone.
    hostile.send(&record_marker(0x7fff_ffff, true)).await;
    assert!(hostile.closed_by_server().await, "the hostile connection is closed");
    // One byte over the limit, in a non-last fragment.
    let mut over = Client::connect(server.addr).await;
    over.send(&record_marker((64 << 10) + 1, false)).await;
    assert!(over.closed_by_server().await);
    good.send(&framed_call(2, PROC_NULL, &[])).await;
    assert_eq!(good.success().await.0, 2, "the other client is still served");
    assert_eq!(server.stats.snapshot().record_errors, 2);
    server.stop().await;
}

#[tokio::test]
async fn garbage_records_get_no_reply_and_the_connection_carries_on() {
    let program = TestProgram::new(false);
    let server = Running::start(program.clone(), limits()).await;
    let mut client = Client::connect(server.addr).await;
    // Well-framed records of junk: the handler declines them, nothing is sent, nothing breaks.
    let mut wire = Vec::new();
    for junk in [&b""[..], b"\x01", b"\xff\xff\xff\xff\xff\xff\xff\xff", &[0x5a; 1000]] {
        wire.extend(frame_record(junk, 1 << 20));
    }
    wire.extend(framed_call(9, PROC_NULL, &[]));
    client.send(&wire).await;
    assert_eq!(client.success().await.0, 9, "the call after the junk is answered");
    assert_eq!(program.handled.load(std::sync::atomic::Ordering::Relaxed), 5);
    // Unframed junk (an absurd marker) ends only this connection.
    let mut other = Client::connect(server.addr).await;
    client.send(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").await;
    assert!(client.closed_by_server().await);
    other.send(&framed_call(10, PROC_NULL, &[])).await;
    assert_eq!(other.success().await.0, 10);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_reads_is_held_back_while_others_are_served() {
    let cap = 1 << 20;
    let reply_len = 64 << 10;
    let limits = ConnectionLimits { max_in_flight_bytes: cap, max_in_flight_requests: 64, ..limits() };
    let server = Running::start(TestProgram::new(false), limits).await;
    // Small socket buffers so that the kernel's share of the backlog stays small.
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(32 << 10).expect("rcvbuf");
    socket.set_send_buffer_size(32 << 10).expect("sndbuf");
    let mut greedy = socket.connect(server.addr).await.expect("connect");
    // 20,000 READs of 64 KiB would be 1.3 GB of replies; the greedy client reads none of them.
    let one = framed_call(0, PROC_READ, &(reply_len as u32).to_be_bytes());
    let mut sent = 0usize;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(2);
    while sent < 20_000 && Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_millis(200), greedy.write_all(&one)).await {
            Ok(Ok(())) => sent += 1,
            Ok(Err(e)) => panic!("send failed: {e}"),
            Err(_) => break, // TCP flow control: the server stopped reading.
        }
    }
    assert!(sent < 20_000, "the server kept reading from a client that reads nothing");
    let mut other = Client::connect(server.addr).await;
    other.send(&framed_call(1, PROC_READ, &4096u32.to_be_bytes())).await;
    assert_eq!(other.success().await.0, 1, "another client is served meanwhile");
    let snap = server.stats.snapshot();
    assert!(snap.read_pauses >= 1, "{snap}");
    assert!(snap.peak_in_flight_bytes <= cap + reply_len + 64, "memory bounded: {snap}");
    assert!(snap.peak_in_flight_requests <= 64, "{snap}");
    drop(greedy);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_past_the_maximum_is_refused_while_every_connection_is_busy() {
    let limits = ConnectionLimits { max_connections: 2, ..limits() };
    let server = Running::start(TestProgram::new(true), limits).await;
    let mut a = Client::connect(server.addr).await;
    let mut b = Client::connect(server.addr).await;
    a.send(&framed_call(1, PROC_SLEEP_ECHO, &1000u32.to_be_bytes())).await;
    b.send(&framed_call(2, PROC_SLEEP_ECHO, &1000u32.to_be_bytes())).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut c = Client::connect(server.addr).await;
    assert!(c.closed_by_server().await, "a third connection is refused: both others have calls in flight");
    assert_eq!(server.stats.snapshot().refused, 1);
    assert_eq!(a.success().await.0, 1, "the busy connections were left alone");
    assert_eq!(b.success().await.0, 2);
    // Both idle now: a new connection is served in place of one of them.
    let mut d = Client::connect(server.addr).await;
    d.send(&framed_call(3, PROC_NULL, &[])).await;
    assert_eq!(d.success().await.0, 3);
    let snap = server.stats.snapshot();
    assert_eq!((snap.refused, snap.accepted), (1, 3), "{snap}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_calls_in_flight_and_closes_connections() {
    let server = Running::start(TestProgram::new(true), limits()).await;
    let mut client = Client::connect(server.addr).await;
    client.send(&framed_call(1, PROC_SLEEP_ECHO, &300u32.to_be_bytes())).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let stopping = tokio::spawn(server.stop());
    assert_eq!(client.success().await, (1, 300u32.to_be_bytes().to_vec()), "the call in flight is answered");
    assert!(client.closed_by_server().await, "then the connection is closed");
    stopping.await.expect("run returned");
}

#[tokio::test]
async fn shutdown_gives_up_on_a_client_that_never_reads_after_the_grace_period() {
    let limits = ConnectionLimits { shutdown_grace: Duration::from_millis(200), ..limits() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(16 << 10).expect("rcvbuf");
    let mut stuck = socket.connect(server.addr).await.expect("connect");
    let batch: Vec<u8> = (0..64u32).flat_map(|i| framed_call(i, PROC_READ, &(256u32 << 10).to_be_bytes())).collect();
    stuck.write_all(&batch).await.expect("send");
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    server.stop().await;
    assert!(started.elapsed() < Duration::from_secs(5), "shutdown bounded by the grace period");
}

#[tokio::test]
async fn serves_every_listener_and_ipv6_when_available() {
    let addrs: Vec<std::net::SocketAddr> = vec!["127.0.0.1:0".parse().unwrap(), "127.0.0.1:0".parse().unwrap()];
    let server = server_tcp::TcpServer::bind(&addrs, TestProgram::new(false), limits()).expect("bind");
    let bound = server.local_addrs().to_vec();
    assert_eq!(bound.len(), 2);
    assert!(bound.iter().all(|a| a.port() != 0));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    for (i, addr) in bound.iter().enumerate() {
        let mut client = Client::connect(*addr).await;
        client.send(&framed_call(i as u32, PROC_NULL, &[])).await;
        assert_eq!(client.success().await.0, i as u32);
    }
    stop.send(()).expect("stop");
    task.await.expect("task").expect("run");
}

#[test]
fn binding_a_busy_address_names_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = taken.local_addr().expect("addr");
    // SO_REUSEADDR does not allow two listeners on one port.
    let err = server_tcp::Listeners::bind(&[addr]).expect_err("address in use");
    assert!(err.to_string().contains(&addr.to_string()), "{err}");
}
