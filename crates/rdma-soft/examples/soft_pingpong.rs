//! Latency and bandwidth of the soft RDMA provider, next to TCP loopback, on this machine.
//!
//! `cargo run --release -p rdma-soft --example soft_pingpong [-- --in-process]`
//!
//! By default the requesting half runs in a second process (this example re-executed), as nfsbench's
//! client and server do; `--in-process` runs both halves on one tokio runtime. Measured:
//! - 4 KiB Send/Recv ping-pong round trip (and the same over a TCP loopback socket);
//! - 4 KiB "NFS READ" round trip: a small Send, the server RDMA-Writes 4 KiB, then Sends a reply;
//! - 1 MiB RDMA Write and RDMA Read bandwidth;
//! - 4 KiB and 1 MiB RDMA Write and Read cost per operation into a plain registration of the peer
//!   (one process_vm_writev/readv each) and into a window of the peer's pool (a memcpy through the
//!   mapping of its pool).

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use rdma::{
    next_completions, Access, Completion, CompletionKind, Provider, QpConfig, QueuePair, RegBuf, RemoteSegment,
};
use rdma_soft::SoftProvider;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SERVE: &str = "--serve";
const TCP_ECHO: &str = "--tcp-echo";
const CREDITS: u32 = 32;
const SMALL: usize = 4096;
const BIG: usize = 1 << 20;
const DEPTH: u32 = 16;

type Qp = Box<dyn QueuePair>;

fn config() -> QpConfig {
    QpConfig {
        recv_size: 8192,
        max_recv: 64,
        max_send: 256,
        initiator_depth: 16,
        responder_resources: 16,
        pool_bytes: 2 * BIG,
        ..QpConfig::default()
    }
}

async fn next(qp: &dyn QueuePair) -> Vec<Completion> {
    let mut out = Vec::new();
    next_completions(qp, &mut out).await.expect("connection up");
    out
}

/// Waits for the next received message, dropping send/read/write completions on the way.
async fn recv(qp: &dyn QueuePair, backlog: &mut Vec<Bytes>) -> Bytes {
    while backlog.is_empty() {
        for c in next(qp).await {
            match c.result {
                Ok(CompletionKind::Recv(bytes)) => backlog.push(bytes),
                Ok(_) => {}
                Err(e) => panic!("work request failed: {e}"),
            }
        }
    }
    backlog.remove(0)
}

/// Completions ready now, without waiting (received messages only are kept).
fn drain_ready(qp: &dyn QueuePair) -> Vec<Bytes> {
    let mut out = Vec::new();
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let mut done = Vec::new();
    while let std::task::Poll::Ready(Ok(())) = qp.poll_completions(&mut cx, &mut done) {
        for c in done.drain(..) {
            if let Ok(CompletionKind::Recv(bytes)) = c.result {
                out.push(bytes);
            }
        }
    }
    out
}

fn request(op: u8, count: u32, seg: RemoteSegment) -> Vec<u8> {
    let mut out = vec![op];
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&seg.handle.to_be_bytes());
    out.extend_from_slice(&seg.offset.to_be_bytes());
    out.extend_from_slice(&seg.length.to_be_bytes());
    out
}

/// The server half: echo (1), write-then-reply (2), bulk writes (3), bulk reads (4), quit (0).
async fn serve(qp: Qp) {
    let buffer = qp.register(RegBuf::Writable(vec![7; BIG]), Access::LOCAL_WRITE).expect("register");
    let mut backlog = Vec::new();
    loop {
        let msg = recv(&*qp, &mut backlog).await;
        qp.post_recvs(1).expect("recv");
        let field = |at: usize, n: usize| msg.get(at..at + n).expect("short request").to_vec();
        let count = u32::from_be_bytes(field(1, 4).try_into().expect("4"));
        let seg = RemoteSegment {
            handle: u32::from_be_bytes(field(5, 4).try_into().expect("4")),
            offset: u64::from_be_bytes(field(9, 8).try_into().expect("8")),
            length: u32::from_be_bytes(field(17, 4).try_into().expect("4")),
        };
        match msg[0] {
            0 => return,
            1 => qp.post_send(0, &[&msg]).expect("send"),
            op => {
                let mut outstanding = 0;
                for _ in 0..count {
                    if outstanding >= 8 {
                        outstanding -= next(&*qp).await.len();
                    }
                    let posted =
                        if op == 4 { qp.post_read(1, &buffer, 0, seg) } else { qp.post_write(1, &buffer, 0, seg) };
                    posted.expect("post");
                    outstanding += 1;
                }
                qp.post_send(0, &[b"done"]).expect("send");
            }
        }
    }
}

fn report(what: &str, iterations: u32, elapsed: Duration) {
    let us = elapsed.as_secs_f64() * 1e6 / f64::from(iterations);
    println!("{what:<46} {us:>8.2} µs round trip ({:.0} per second)", 1e6 / us);
}

async fn client(qp: Qp) {
    qp.post_recvs(CREDITS).expect("recvs");
    let sink =
        qp.register(RegBuf::Writable(vec![0; BIG]), Access::LOCAL_WRITE | Access::REMOTE_WRITE | Access::REMOTE_READ);
    let sink = sink.expect("register");
    let mut backlog = Vec::new();
    let mut call = request(1, 0, sink.segment(0, 0).expect("seg"));
    call.resize(SMALL, 0);
    let rounds = 20_000;
    let started = Instant::now();
    for _ in 0..rounds {
        qp.post_send(0, &[&call]).expect("send");
        recv(&*qp, &mut backlog).await;
        qp.post_recvs(1).expect("recv");
    }
    report("soft: 4 KiB Send/Recv ping-pong", rounds, started.elapsed());
    let call = request(2, 1, sink.segment(0, SMALL as u32).expect("seg"));
    let started = Instant::now();
    for _ in 0..rounds {
        qp.post_send(0, &[&call]).expect("send");
        recv(&*qp, &mut backlog).await;
        qp.post_recvs(1).expect("recv");
    }
    report("soft: small Send + 4 KiB RDMA Write + reply", rounds, started.elapsed());
    // The same with DEPTH requests in flight (as fio's iodepth): throughput, not latency.
    let started = Instant::now();
    for _ in 0..DEPTH {
        qp.post_send(0, &[&call]).expect("send");
    }
    for i in 0..rounds {
        recv(&*qp, &mut backlog).await;
        qp.post_recvs(1).expect("recv");
        if i + DEPTH < rounds {
            qp.post_send(0, &[&call]).expect("send");
        }
        if i % 128 == 0 {
            // Send completions pile up otherwise (nothing else drains them here).
            backlog.extend(drain_ready(&*qp));
        }
    }
    let per_second = f64::from(rounds) / started.elapsed().as_secs_f64();
    println!("soft: same, {DEPTH} in flight {:>27.0} per second", per_second);
    for (op, name) in [(3u8, "RDMA Write"), (4, "RDMA Read")] {
        let count = 2048;
        let call = request(op, count, sink.segment(0, BIG as u32).expect("seg"));
        let started = Instant::now();
        qp.post_send(0, &[&call]).expect("send");
        recv(&*qp, &mut backlog).await;
        qp.post_recvs(1).expect("recv");
        let secs = started.elapsed().as_secs_f64();
        println!("soft: 1 MiB {name:<35} {:>8.2} GB/s", f64::from(count) * BIG as f64 / secs / 1e9);
    }
    // Per operation: the server posts `count` RDMA Writes (Reads) of one size to one target.
    let pool = qp.pool().expect("pool");
    let window = qp.open_window(&pool, 0, BIG, Access::REMOTE_WRITE | Access::REMOTE_READ).expect("window");
    for size in [SMALL, BIG] {
        let count = if size == SMALL { 200_000 } else { 2048 };
        let targets = [("registration", sink.segment(0, size as u32)), ("pool window", window.segment(0, size as u32))];
        for (target, seg) in targets {
            for (op, name) in [(3u8, "Write"), (4, "Read")] {
                let call = request(op, count, seg.expect("seg"));
                let started = Instant::now();
                qp.post_send(0, &[&call]).expect("send");
                recv(&*qp, &mut backlog).await;
                qp.post_recvs(1).expect("recv");
                let ns = started.elapsed().as_secs_f64() * 1e9 / f64::from(count);
                let what = format!("{} KiB RDMA {name} into a {target}", size / 1024);
                println!("soft: {what:<44} {ns:>9.0} ns per operation");
            }
        }
    }
    qp.post_send(0, &[&request(0, 0, sink.segment(0, 0).expect("seg"))]).expect("send");
    let _ = tokio::time::timeout(Duration::from_millis(200), next(&*qp)).await;
}

/// Echoes 4 KiB blocks on a TCP connection to `addr` until it closes.
async fn tcp_echo(addr: SocketAddr) {
    let mut sock = tokio::net::TcpStream::connect(addr).await.expect("connect");
    sock.set_nodelay(true).expect("nodelay");
    let mut buf = vec![0u8; SMALL];
    while sock.read_exact(&mut buf).await.is_ok() {
        sock.write_all(&buf).await.expect("write");
    }
}

/// The same 4 KiB ping-pong over TCP loopback, for comparison, with the echo in a second process or
/// on the same runtime.
async fn tcp_pingpong(in_process: bool) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let mut child = None;
    if in_process {
        tokio::spawn(tcp_echo(addr));
    } else {
        let exe = std::env::current_exe().expect("exe");
        child = Some(std::process::Command::new(exe).args([TCP_ECHO, &addr.to_string()]).spawn().expect("spawn"));
    }
    let (mut sock, _) = listener.accept().await.expect("accept");
    sock.set_nodelay(true).expect("nodelay");
    let mut buf = vec![0u8; SMALL];
    let rounds = 20_000;
    let started = Instant::now();
    for _ in 0..rounds {
        sock.write_all(&buf).await.expect("write");
        sock.read_exact(&mut buf).await.expect("read");
    }
    report("tcp loopback: 4 KiB ping-pong", rounds, started.elapsed());
    let started = Instant::now();
    let (mut reader, mut writer) = sock.split();
    let out = vec![0u8; SMALL];
    let writing = async {
        for _ in 0..rounds {
            writer.write_all(&out).await.expect("write");
        }
    };
    let reading = async {
        for _ in 0..rounds {
            reader.read_exact(&mut buf).await.expect("read");
        }
    };
    tokio::join!(writing, reading);
    let per_second = f64::from(rounds) / started.elapsed().as_secs_f64();
    println!("tcp loopback: 4 KiB blocks streamed both ways {:>14.0} per second", per_second);
    drop(sock);
    if let Some(mut child) = child {
        let _ = child.wait();
    }
}

/// The requesting half: connects (posting its receives before its first Send, as an RPC client
/// does), measures, and prints.
async fn run_client(provider: SoftProvider, addr: SocketAddr) {
    let qp = provider.connect(addr, config(), b"").await.expect("connect");
    client(qp).await;
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let provider = SoftProvider::new().expect("provider");
    if let Some(at) = args.iter().position(|a| a == SERVE) {
        run_client(provider, args[at + 1].parse().expect("address")).await;
        return;
    }
    if let Some(at) = args.iter().position(|a| a == TCP_ECHO) {
        tcp_echo(args[at + 1].parse().expect("address")).await;
        return;
    }
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let in_process = args.iter().any(|a| a == "--in-process");
    let where_ = if in_process { "both halves on one current-thread runtime" } else { "two processes" };
    println!("(figures of this machine only: {cores} cores; {where_})");
    let mut listener = provider.listen("127.0.0.1:0".parse().expect("addr")).expect("listen");
    let addr = listener.local_addr();
    let mut child = None;
    let mut task = None;
    if in_process {
        task = Some(tokio::spawn(run_client(provider.clone(), addr)));
    } else {
        let exe = std::env::current_exe().expect("exe");
        child = Some(std::process::Command::new(exe).args([SERVE, &addr.to_string()]).spawn().expect("spawn"));
    }
    let qp =
        listener.accept().await.expect("incoming").accept_with_recvs(config(), b"", CREDITS).await.expect("accept");
    let before = rdma_soft::cross_memory_copies();
    serve(qp).await;
    println!("(the serving side made {} process_vm_* calls)", rdma_soft::cross_memory_copies() - before);
    if let Some(task) = task {
        task.await.expect("client");
    }
    if let Some(mut child) = child {
        let _ = child.wait();
    }
    tcp_pingpong(in_process).await;
}
