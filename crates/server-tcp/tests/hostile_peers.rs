//! Peers that hold the server's connections or memory without using them: trickling or idle
//! connections at the connection cap, records trickled in forever, replies never read. Short timeouts
//! keep these fast; the timing checks are generous lower and upper bounds, never tight ones.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{eventually, framed_call, Client, Running, TestProgram, PROC_NULL, PROC_READ};
use onc_rpc::record_marker;
use server_core::ConnectionLimits;
use server_tcp::TransportStats;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::{TcpSocket, TcpStream};
use tokio::task::JoinHandle;

const MS: Duration = Duration::from_millis(1);

/// True when the server closed the connection (EOF or reset) within 10 s; whatever it sent is dropped.
async fn closed(reader: &mut OwnedReadHalf) -> bool {
    let mut buf = vec![0u8; 64 << 10];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), reader.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
        }
    }
}

/// A connection that begins a record of `claimed` bytes and then sends one byte of it every `every`,
/// for 20 s at most or until the server closes it. Returns its read half and the trickling task.
async fn trickler(addr: SocketAddr, claimed: u32, every: Duration) -> (OwnedReadHalf, JoinHandle<()>) {
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let (reader, mut writer) = stream.into_split();
    let task = tokio::spawn(async move {
        if writer.write_all(&record_marker(claimed, true)).await.is_err() {
            return;
        }
        let stop = Instant::now() + Duration::from_secs(20);
        while Instant::now() < stop {
            tokio::time::sleep(every).await;
            if writer.write_all(&[0x5a]).await.is_err() {
                return;
            }
        }
    });
    (reader, task)
}

/// A connection with a small receive buffer that sends `calls` READs of `reply_len` bytes each and
/// never reads a reply. Returns its read half (kept open) and the sending task (which may block in TCP
/// flow control once the server stops reading).
async fn greedy(addr: SocketAddr, calls: u32, reply_len: u32) -> (OwnedReadHalf, JoinHandle<()>) {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.set_recv_buffer_size(16 << 10).expect("rcvbuf");
    let stream = socket.connect(addr).await.expect("connect");
    let (reader, mut writer) = stream.into_split();
    let batch: Vec<u8> = (0..calls).flat_map(|i| framed_call(i, PROC_READ, &reply_len.to_be_bytes())).collect();
    let task = tokio::spawn(async move {
        let _ = writer.write_all(&batch).await;
        // Keep the write half open: dropping it would send FIN.
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    (reader, task)
}

async fn null_ping(addr: SocketAddr, xid: u32) -> Client {
    let mut client = Client::connect(addr).await;
    client.send(&framed_call(xid, PROC_NULL, &[])).await;
    assert_eq!(client.success().await.0, xid, "a new client gets its NULL reply");
    client
}

#[tokio::test]
async fn trickling_connections_at_the_cap_leave_room_for_new_clients() {
    let limits = ConnectionLimits { max_connections: 8, ..ConnectionLimits::default() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let mut tricklers = Vec::new();
    for _ in 0..8 {
        tricklers.push(trickler(server.addr, 100_000, 50 * MS).await);
    }
    eventually(&server.stats, "eight connections open", |s| s.open == 8).await;
    // Each new client takes the place of a trickler, never of another new client.
    let mut clients = Vec::new();
    for xid in 0..3 {
        clients.push(null_ping(server.addr, xid).await);
    }
    eventually(&server.stats, "three tricklers evicted", |s| s.evicted == 3).await;
    let closed_tricklers = {
        let mut n = 0;
        for (reader, _) in &mut tricklers {
            if tokio::time::timeout(50 * MS, closed(reader)).await.unwrap_or(false) {
                n += 1;
            }
        }
        n
    };
    assert_eq!(closed_tricklers, 3, "the evicted connections are the tricklers");
    for (xid, client) in (10..).zip(&mut clients) {
        client.send(&framed_call(xid, PROC_NULL, &[])).await;
        assert_eq!(client.success().await.0, xid, "the new clients are all still served");
    }
    let snap = server.stats.snapshot();
    assert_eq!(snap.refused, 0, "{snap}");
    for (_, task) in tricklers {
        task.abort();
    }
    server.stop().await;
}

#[tokio::test]
async fn idle_connections_at_the_cap_make_room_the_silent_then_the_oldest_first() {
    let limits = ConnectionLimits { max_connections: 3, ..ConnectionLimits::default() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let mut oldest = null_ping(server.addr, 1).await;
    let mut silent = Client::connect(server.addr).await; // connects and never sends a byte
    let mut third = null_ping(server.addr, 2).await;
    eventually(&server.stats, "three connections open", |s| s.open == 3).await;
    // At the cap: the connection that never completed a call goes first, though it is not the oldest.
    let mut first_new = null_ping(server.addr, 3).await;
    assert!(silent.closed_by_server().await, "the silent connection was evicted");
    oldest.send(&framed_call(4, PROC_NULL, &[])).await;
    assert_eq!(oldest.success().await.0, 4, "the oldest, served, connection was kept");
    // All served and idle now: the oldest goes.
    let mut second_new = null_ping(server.addr, 5).await;
    assert!(oldest.closed_by_server().await, "the oldest idle connection was evicted");
    for (xid, client) in [(6, &mut third), (7, &mut first_new), (8, &mut second_new)] {
        client.send(&framed_call(xid, PROC_NULL, &[])).await;
        assert_eq!(client.success().await.0, xid);
    }
    eventually(&server.stats, "two evictions counted", |s| s.evicted == 2 && s.refused == 0).await;
    server.stop().await;
}

#[tokio::test]
async fn a_record_trickled_byte_by_byte_is_closed_after_the_partial_record_timeout() {
    let timeout = 300 * MS;
    let limits = ConnectionLimits { partial_record_timeout: timeout, ..ConnectionLimits::default() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let started = Instant::now();
    // A byte every 20 ms: never 300 ms without a byte, so an idle timer would never fire.
    let (mut reader, task) = trickler(server.addr, 100_000, 20 * MS).await;
    assert!(closed(&mut reader).await, "the trickling connection is closed");
    let took = started.elapsed();
    assert!(took >= timeout, "closed after {took:?}, before the timeout");
    assert!(took < Duration::from_secs(5), "closed only after {took:?}");
    assert!(!task.is_finished() || took < Duration::from_secs(20), "bytes were still arriving");
    let snap = server.stats.snapshot();
    assert_eq!((snap.partial_record_timeouts, snap.idle_timeouts), (1, 0), "{snap}");
    // A record that arrives in pieces but within the timeout is served as ever.
    let mut client = Client::connect(server.addr).await;
    let call = framed_call(9, PROC_NULL, &[]);
    for piece in call.chunks(8) {
        client.send(piece).await;
        tokio::time::sleep(10 * MS).await;
    }
    assert_eq!(client.success().await.0, 9);
    task.abort();
    server.stop().await;
}

#[tokio::test]
async fn an_idle_connection_is_closed_after_the_idle_timeout_and_a_busy_one_is_not() {
    let timeout = 300 * MS;
    let limits = ConnectionLimits { idle_timeout: timeout, ..ConnectionLimits::default() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let mut idle = null_ping(server.addr, 1).await;
    let went_idle = Instant::now();
    let mut busy = null_ping(server.addr, 2).await;
    // A call every 100 ms for a second: never idle for 300 ms.
    for xid in 3..13 {
        tokio::time::sleep(100 * MS).await;
        busy.send(&framed_call(xid, PROC_NULL, &[])).await;
        assert_eq!(busy.success().await.0, xid, "the busy connection stays open");
    }
    assert!(idle.closed_by_server().await, "the idle connection is closed");
    assert!(went_idle.elapsed() >= timeout);
    let snap = server.stats.snapshot();
    assert_eq!((snap.idle_timeouts, snap.partial_record_timeouts, snap.write_stall_timeouts), (1, 0, 0), "{snap}");
    server.stop().await;
}

/// Eight connections pipeline READs and read no reply: together they hold no more than the server-wide
/// budget, plus one call each (always allowed, so that every client progresses), while a good client is
/// still answered. Inline execution (replies counted as made) and the blocking pool (each call counted
/// at `max_record` until its reply is made).
async fn unread_replies_stay_within_the_server_wide_budget(blocking: bool) {
    // Replies of 1 MiB on 16 connections: each connection's turn on the thread ends after one, so the
    // connections interleave, and each must have counted what it holds before the next one judges.
    let (budget, reply_len, max_record, conns) = (8usize << 20, 1u32 << 20, 1100usize << 10, 16);
    let limits = ConnectionLimits { max_server_in_flight_bytes: budget, max_record, ..ConnectionLimits::default() };
    // The per-connection cap alone would let each hold 16 MiB, 128 MiB together.
    assert!(conns * limits.max_in_flight_bytes >= 32 * budget);
    let server = Running::start(TestProgram::new(blocking), limits).await;
    let mut greedy_conns = Vec::new();
    for _ in 0..conns {
        greedy_conns.push(greedy(server.addr, 100, reply_len).await);
    }
    // Until the server stops making progress: every connection is held back.
    let mut last = u64::MAX;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        tokio::time::sleep(300 * MS).await;
        let calls = server.stats.snapshot().calls;
        if calls == last || Instant::now() > deadline {
            break;
        }
        last = calls;
    }
    let bound = budget + (conns + 1) * max_record;
    let snap = server.stats.snapshot();
    assert!(snap.peak_server_in_flight_bytes >= budget, "the attack reached the budget: {snap}");
    assert!(snap.peak_server_in_flight_bytes <= bound, "held more than the budget allows ({bound}): {snap}");
    assert!(snap.server_in_flight_bytes <= bound, "{snap}");
    assert!(snap.calls < (conns as u64) * 100, "the server stopped taking calls it cannot answer: {snap}");
    // A good client still gets its answers, one call at a time.
    let mut good = Client::connect(server.addr).await;
    for xid in 0..5u32 {
        good.send(&framed_call(1000 + xid, PROC_READ, &4096u32.to_be_bytes())).await;
        assert_eq!(good.success().await.0, 1000 + xid, "the good client is answered");
    }
    if !blocking {
        // Calls whose replies are known to be small start together, within the one record a connection
        // may always hold: the good client keeps its pipeline (the greedy connections hold a few 1 MiB
        // replies each, never 32 calls).
        let pipelined: Vec<u8> =
            (0..32u32).flat_map(|i| framed_call(2000 + i, PROC_READ, &64u32.to_be_bytes())).collect();
        good.send(&pipelined).await;
        for i in 0..32u32 {
            assert_eq!(good.success().await.0, 2000 + i, "the pipelined calls are answered in order");
        }
        let snap = server.stats.snapshot();
        // Their replies are written every 16 (the server's FLUSH_EVERY), so 16 were outstanding together.
        assert!(snap.peak_in_flight_requests >= 16, "the 32 small calls were started together: {snap}");
        assert!(snap.peak_server_in_flight_bytes <= bound, "held more than the budget allows ({bound}): {snap}");
    }
    // Closing the greedy connections gives everything back.
    for (reader, task) in greedy_conns {
        task.abort();
        drop(reader);
    }
    eventually(&server.stats, "the budget given back", |s| s.server_in_flight_bytes == 0).await;
    server.stop().await;
}

#[tokio::test]
async fn unread_replies_stay_within_the_server_wide_budget_inline() {
    unread_replies_stay_within_the_server_wide_budget(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_replies_stay_within_the_server_wide_budget_from_the_blocking_pool() {
    unread_replies_stay_within_the_server_wide_budget(true).await;
}

#[tokio::test]
async fn a_peer_that_reads_no_replies_is_closed_after_the_write_stall_timeout() {
    let timeout = 300 * MS;
    let limits = ConnectionLimits { write_stall_timeout: timeout, ..ConnectionLimits::default() };
    let server = Running::start(TestProgram::new(false), limits).await;
    let started = Instant::now();
    let (mut reader, task) = greedy(server.addr, 64, 256 << 10).await;
    eventually(&server.stats, "replies held for the greedy peer", |s| s.server_in_flight_bytes > 0).await;
    eventually(&server.stats, "the write-stall timeout", |s| s.write_stall_timeouts == 1).await;
    let took = started.elapsed();
    assert!(took >= timeout, "closed after {took:?}, before the timeout");
    assert!(closed(&mut reader).await, "the connection is closed");
    eventually(&server.stats, "its replies freed", |s| s.server_in_flight_bytes == 0 && s.open == 0).await;
    // A client that reads, however slowly, is not stalled: this one reads each reply 100 ms late.
    let mut slow = Client::connect(server.addr).await;
    let batch: Vec<u8> = (0..8u32).flat_map(|i| framed_call(i, PROC_READ, &(256u32 << 10).to_be_bytes())).collect();
    slow.send(&batch).await;
    for xid in 0..8 {
        tokio::time::sleep(100 * MS).await;
        assert_eq!(slow.success().await.0, xid);
    }
    let snap = server.stats.snapshot();
    assert_eq!((snap.write_stall_timeouts, snap.idle_timeouts), (1, 0), "{snap}");
    task.abort();
    server.stop().await;
}

/// A server on a one-thread runtime of its own (as `nfsbench serve` runs by default), in its own thread
/// so that a server that starves its runtime cannot starve the test.
fn isolated_server(limits: ConnectionLimits) -> SocketAddr {
    isolated_server_with_stats(limits).0
}

fn isolated_server_with_stats(limits: ConnectionLimits) -> (SocketAddr, std::sync::Arc<TransportStats>) {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async {
            let running = Running::start(TestProgram::new(false), limits).await;
            tx.send((running.addr, running.stats.clone())).expect("send addr");
            std::future::pending::<()>().await;
        });
    });
    rx.recv().expect("the server's address")
}

#[test]
fn a_peer_flooding_faster_than_the_server_answers_does_not_starve_new_connections() {
    use std::io::{Read, Write};
    let addr = isolated_server(ConnectionLimits::default());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flood = std::net::TcpStream::connect(addr).expect("connect");
    let mut reader = flood.try_clone().expect("clone");
    let batch: Vec<u8> = (0..1024).flat_map(|i| framed_call(i, PROC_NULL, &[])).collect();
    let writer = {
        let (mut flood, stop) = (flood, stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                if flood.write_all(&batch).is_err() {
                    return;
                }
            }
        })
    };
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        while reader.read(&mut buf).is_ok_and(|n| n > 0) {}
    });
    std::thread::sleep(Duration::from_millis(300));
    // A new client, while the flood's socket is never empty.
    let started = Instant::now();
    let mut probe = std::net::TcpStream::connect(addr).expect("connect");
    probe.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
    probe.write_all(&framed_call(7, PROC_NULL, &[])).expect("send");
    let mut reply = [0u8; 4];
    let answered = probe.read_exact(&mut reply).is_ok();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = writer.join();
    assert!(answered, "a new connection got no reply within 5 s beside the flood");
    assert!(started.elapsed() < Duration::from_secs(2), "a new connection waited {:?}", started.elapsed());
}

#[test]
fn a_connection_whose_calls_are_all_refused_is_throttled_and_costs_little() {
    use std::io::{Read, Write};
    let (addr, stats) = isolated_server_with_stats(ConnectionLimits::default());
    // Procedure 99 of the test program does not exist: every call is answered PROC_UNAVAIL.
    const UNKNOWN_PROC: u32 = 99;
    let flood = std::net::TcpStream::connect(addr).expect("connect");
    flood.set_write_timeout(Some(Duration::from_millis(100))).expect("timeout");
    let mut reader = flood.try_clone().expect("clone");
    let batch: Vec<u8> = (0..256).flat_map(|i| framed_call(i, UNKNOWN_PROC, &[])).collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (mut flood, stop) = (flood, stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                match flood.write(&batch) {
                    Ok(_) => {}
                    Err(e)
                        if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {}
                    Err(_) => return,
                }
            }
        })
    };
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        while reader.read(&mut buf).is_ok_and(|n| n > 0) {}
    });
    std::thread::sleep(Duration::from_millis(500));
    let before = stats.snapshot().calls;
    std::thread::sleep(Duration::from_secs(2));
    let during = stats.snapshot().calls - before;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = writer.join();
    let snap = stats.snapshot();
    assert!(snap.refusal_throttles > 0, "the flood was never throttled: {snap}");
    // At most a window's allowance a second plus one turn per pause: about 2,300 calls a second.
    assert!(during < 10_000, "the server took {during} refused calls in 2 s");
}
