//! verbs_check: proves the verbs provider on a real (or Soft-RoCE) RDMA device, client and server in
//! one process, over `ADDR:PORT` (default 10.99.0.1:20079, the lab VM's rxe0):
//!
//! 1. private data (8 bytes) seen exactly by each side, Read depths negotiated;
//! 2. Send/receive both ways, up to the full receive size;
//! 3. RDMA Read and RDMA Write of 1 MiB and 4 KiB (at offsets), contents checked byte for byte;
//! 4. an orderly disconnect flushes the posted receives on both sides, then reports Disconnected;
//! 5. an RDMA Write with an R_key invalidated after a successful one fails with RemoteAccess;
//! 6. a Send without a posted receive at the peer fails with ReceiverNotReady (rnr_retry 0);
//! 7. a Send longer than the peer's receive buffer fails with Length;
//! 8. connecting where nothing listens is Refused;
//! 9. pools and windows: an RDMA Write and Read through a window into the peer's pool, a gather
//!    RDMA Write (more sources than one work request takes), registrations unchanged over many
//!    windows (memory windows when the device has them), and a closed window's R_key refused with
//!    RemoteAccess even once its bytes are open again under a new window.
//!
//! Prints one `PASS`/`FAIL` line per check and exits non-zero if any failed.
//!
//! ```sh
//! lab/vm/run.sh -- bash -c '. lab/vm/guest/rxe.sh; target/debug/examples/verbs_check 10.99.0.1'
//! ```

use std::error::Error;
use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use rdma::{
    next_completions, Access, Completion, CompletionKind, Listener, MemoryRegion, Provider, QpConfig, QueuePair,
    RdmaError, RegBuf, WcError, Window,
};
use rdma_verbs::VerbsProvider;

type Res<T> = Result<T, Box<dyn Error>>;

/// Each wait's limit: everything is ~50x slower under TCG.
const STEP: Duration = Duration::from_secs(90);
const CLIENT_PD: [u8; 8] = [0xf6, 0xab, 0x0e, 0x18, 1, 0, 3, 3];
// RFC 8797: 4 KiB each way (code 3), like the receive buffers; the server also sets the remote-invalidation flag.
const SERVER_PD: [u8; 8] = [0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 3];
const CLIENT: QpConfig = QpConfig {
    recv_size: 4096,
    max_recv: 16,
    max_send: 32,
    initiator_depth: 0,
    responder_resources: 11,
    pool_bytes: 0,
    comp_vector: 0,
};
const SERVER: QpConfig = QpConfig {
    recv_size: 4096,
    max_recv: 16,
    max_send: 32,
    initiator_depth: 16,
    responder_resources: 16,
    // Its pool serves check 9 (the other checks leave it unused).
    pool_bytes: 1 << 20,
    // The device's second completion vector (modulo its vectors): completions arrive all the same.
    comp_vector: 1,
};

#[derive(Default)]
struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    fn check(&mut self, name: &str, ok: bool, detail: impl std::fmt::Display) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        println!("{} {name}: {detail}", if ok { "PASS" } else { "FAIL" });
    }
}

/// Waits for `n` completions (or the end of the connection).
async fn completions(qp: &dyn QueuePair, n: usize) -> Res<Vec<Completion>> {
    let mut out = Vec::new();
    while out.len() < n {
        match tokio::time::timeout(STEP, next_completions(qp, &mut out)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("after {} of {n} completions: {e}", out.len()).into()),
            Err(_) => return Err(format!("timed out after {} of {n} completions: {out:?}", out.len()).into()),
        }
    }
    Ok(out)
}

/// Collects completions until the connection reports Disconnected.
async fn until_disconnected(qp: &dyn QueuePair) -> Res<Vec<Completion>> {
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(STEP, next_completions(qp, &mut out)).await {
            Ok(Ok(())) => {}
            Ok(Err(RdmaError::Disconnected)) => return Ok(out),
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => return Err(format!("no Disconnected in time; completions so far: {out:?}").into()),
        }
    }
}

struct Pair {
    client: Box<dyn QueuePair>,
    server: Box<dyn QueuePair>,
    seen_by_server: Vec<u8>,
    peer_responder_resources: u8,
}

async fn connect(
    provider: &VerbsProvider,
    listener: &mut Box<dyn Listener>,
    addr: SocketAddr,
    client: QpConfig,
    server_recvs: u32,
) -> Res<Pair> {
    let server = async {
        let incoming = listener.accept().await?;
        let seen = incoming.private_data().to_vec();
        let rr = incoming.peer_responder_resources();
        let qp = incoming.accept_with_recvs(SERVER, &SERVER_PD, server_recvs).await?;
        Ok::<_, RdmaError>((qp, seen, rr))
    };
    let client = provider.connect(addr, client, &CLIENT_PD);
    let (server, client) = tokio::time::timeout(STEP, async { tokio::join!(server, client) }).await?;
    let (server, seen_by_server, peer_responder_resources) = server?;
    Ok(Pair { client: client?, server, seen_by_server, peer_responder_resources })
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed) ^ (i >> 8) as u8).collect()
}

fn buffer(region: MemoryRegion) -> Res<Bytes> {
    region.into_buffer().map(RegBuf::into_bytes).map_err(|_| "region still held after its completion".into())
}

async fn private_data_and_messages(checks: &mut Checks, pair: &Pair) -> Res<()> {
    let seen = &pair.seen_by_server;
    checks.check(
        "server sees the client's private data",
        seen.get(..8) == Some(&CLIENT_PD[..]) && seen[8..].iter().all(|&b| b == 0),
        format!("{} bytes arrived, first 8 {:02x?}", seen.len(), seen.get(..8)),
    );
    let info = pair.client.info();
    checks.check(
        "client sees the server's private data",
        info.peer_private_data.get(..8) == Some(&SERVER_PD[..]),
        format!("{} bytes arrived, first 8 {:02x?}", info.peer_private_data.len(), info.peer_private_data.get(..8)),
    );
    let server_info = pair.server.info();
    checks.check(
        "read depths negotiated",
        pair.peer_responder_resources == CLIENT.responder_resources
            && server_info.initiator_depth == 11
            && info.initiator_depth == 0,
        format!(
            "peer responder resources {}, server initiator depth {}, client {} ({} / {})",
            pair.peer_responder_resources,
            server_info.initiator_depth,
            info.initiator_depth,
            info.provider,
            server_info.provider
        ),
    );

    pair.client.post_recvs(2)?;
    pair.client.post_send(1, &[b"hello ", b"server"])?;
    let sent = completions(pair.client.as_ref(), 1).await?;
    let got = completions(pair.server.as_ref(), 1).await?;
    checks.check(
        "client to server Send",
        matches!(&sent[0], Completion { wr_id: 1, result: Ok(CompletionKind::Send) })
            && matches!(&got[0], Completion { wr_id: 0, result: Ok(CompletionKind::Recv(b)) } if b.as_ref() == b"hello server"),
        format!("{:?} / {:?}", sent[0], got[0].result.as_ref().map(|_| "received")),
    );
    pair.server.post_send(2, &[b"hello client"])?;
    let got = completions(pair.client.as_ref(), 1).await?;
    let sent = completions(pair.server.as_ref(), 1).await?;
    checks.check(
        "server to client Send",
        matches!(&sent[0], Completion { wr_id: 2, result: Ok(CompletionKind::Send) })
            && matches!(&got[0], Completion { wr_id: 0, result: Ok(CompletionKind::Recv(b)) } if b.as_ref() == b"hello client"),
        format!("{:?}", sent[0]),
    );
    let full = pattern(4096, 7);
    pair.client.post_send(3, &[&full[..1000], &full[1000..]])?;
    completions(pair.client.as_ref(), 1).await?;
    let got = completions(pair.server.as_ref(), 1).await?;
    checks.check(
        "a message of the full receive size arrives whole",
        matches!(&got[0].result, Ok(CompletionKind::Recv(b)) if b.as_ref() == &full[..]),
        "4096 bytes gathered from two slices",
    );
    let too_long = pair.client.post_send(4, &[&[0u8; 4097][..]]);
    checks.check(
        "a message past the send buffers is refused",
        matches!(too_long, Err(RdmaError::Invalid(_))),
        format!("{too_long:?}"),
    );
    Ok(())
}

/// The server RDMA-Reads the client's `src` and RDMA-Writes the client's `dst` (`len` bytes at `off`).
async fn read_and_write(checks: &mut Checks, pair: &Pair, len: usize, off: usize) -> Res<()> {
    let (client, server) = (pair.client.as_ref(), pair.server.as_ref());
    let a = pattern(len, 1);
    let b = pattern(len, 2);
    let mut src = vec![0u8; off + len];
    src[off..].copy_from_slice(&a);
    let src = client.register(RegBuf::ReadOnly(Bytes::from(src)), Access::REMOTE_READ)?;
    let dst = client.register(RegBuf::Writable(vec![0; off + len + off]), Access::REMOTE_WRITE)?;
    let target = server.register(RegBuf::Writable(vec![0; off + len]), Access::LOCAL_WRITE)?;
    let mut source = vec![0u8; off + len];
    source[off..].copy_from_slice(&b);
    let source = server.register(RegBuf::ReadOnly(Bytes::from(source)), Access::NONE)?;
    let len32 = u32::try_from(len)?;
    let remote_src = src.segment(off, len32).ok_or("segment")?;
    let remote_dst = dst.segment(off, len32).ok_or("segment")?;

    server.post_read(20, &target, off, remote_src)?;
    let done = completions(server, 1).await?;
    let read_ok = matches!(done[0], Completion { wr_id: 20, result: Ok(CompletionKind::Read) });
    let data = buffer(target)?;
    checks.check(
        &format!("RDMA Read of {len} bytes"),
        read_ok && data[off..] == a[..] && data[..off].iter().all(|&x| x == 0),
        format!("{:?}", done[0].result.as_ref().map(|_| "contents compared")),
    );
    server.post_write(21, &source, off, remote_dst)?;
    let done = completions(server, 1).await?;
    let write_ok = matches!(done[0], Completion { wr_id: 21, result: Ok(CompletionKind::Write) });
    let placed = buffer(dst)?;
    let untouched = placed[..off].iter().chain(&placed[off + len..]).all(|&x| x == 0);
    checks.check(
        &format!("RDMA Write of {len} bytes"),
        write_ok && placed[off..off + len] == b[..] && untouched,
        format!("{:?}", done[0].result.as_ref().map(|_| "contents compared, neighbours untouched")),
    );
    drop((src, source));
    Ok(())
}

async fn orderly_disconnect(checks: &mut Checks, pair: Pair) -> Res<()> {
    pair.client.post_recvs(2)?; // 1 left from before + 2
    pair.client.disconnect();
    let client = until_disconnected(pair.client.as_ref()).await?;
    let server = until_disconnected(pair.server.as_ref()).await?;
    let flushed = |c: &[Completion]| c.iter().filter(|c| matches!(c.result, Err(WcError::Flushed))).count();
    checks.check(
        "disconnect flushes posted receives, then Disconnected",
        flushed(&client) == 3 && client.len() == 3 && flushed(&server) == 2 && server.len() == 2,
        format!(
            "client {} flushed of {}, server {} flushed of {}",
            flushed(&client),
            client.len(),
            flushed(&server),
            server.len()
        ),
    );
    let after = pair.client.post_send(9, &[b"late"]);
    checks.check(
        "posting after disconnect is refused",
        matches!(after, Err(RdmaError::Disconnected)),
        format!("{after:?}"),
    );
    Ok(())
}

async fn invalidated_key(checks: &mut Checks, pair: Pair) -> Res<()> {
    let dst = pair.client.register(RegBuf::Writable(vec![0; 4096]), Access::REMOTE_WRITE)?;
    let source = pair.server.register(RegBuf::ReadOnly(Bytes::from(pattern(4096, 3))), Access::NONE)?;
    let segment = dst.segment(0, 4096).ok_or("segment")?;
    pair.server.post_write(30, &source, 0, segment)?;
    let first = completions(pair.server.as_ref(), 1).await?;
    dst.invalidate();
    pair.server.post_write(31, &source, 0, segment)?;
    let late = completions(pair.server.as_ref(), 1).await?;
    checks.check(
        "a late RDMA Write with an invalidated R_key fails",
        matches!(first[0].result, Ok(CompletionKind::Write))
            && matches!(&late[0], Completion { wr_id: 31, result: Err(WcError::RemoteAccess(_)) }),
        format!("before: {:?}; after: {:?}", first[0].result, late[0].result),
    );
    let server = until_disconnected(pair.server.as_ref()).await;
    let client = until_disconnected(pair.client.as_ref()).await;
    checks.check(
        "the broken connection ends on both sides",
        server.is_ok() && client.is_ok(),
        format!("{server:?} / {client:?}"),
    );
    Ok(())
}

async fn receiver_not_ready(checks: &mut Checks, pair: Pair) -> Res<()> {
    pair.client.post_send(40, &[b"nobody is listening"])?;
    let sent = completions(pair.client.as_ref(), 1).await?;
    checks.check(
        "a Send without a posted receive fails",
        matches!(&sent[0], Completion { wr_id: 40, result: Err(WcError::ReceiverNotReady) }),
        format!("{:?}", sent[0].result),
    );
    let server = until_disconnected(pair.server.as_ref()).await;
    let client = until_disconnected(pair.client.as_ref()).await;
    checks.check(
        "both sides see the connection end",
        server.is_ok() && client.is_ok(),
        format!("{server:?} / {client:?}"),
    );
    Ok(())
}

async fn too_long_for_the_peer(checks: &mut Checks, pair: Pair) -> Res<()> {
    pair.client.post_send(50, &[&pattern(5000, 4)[..]])?;
    let sent = completions(pair.client.as_ref(), 1).await?;
    checks.check(
        "a Send longer than the peer's receive buffer fails with Length",
        matches!(&sent[0], Completion { wr_id: 50, result: Err(WcError::Length { len: 5000, limit: 4096 }) }),
        format!("{:?}", sent[0].result),
    );
    let server = until_disconnected(pair.server.as_ref()).await;
    let client = until_disconnected(pair.client.as_ref()).await;
    let server_saw_error = server.as_ref().is_ok_and(|c| c.len() == 1 && matches!(c[0].result, Err(WcError::Other(_))));
    checks.check(
        "the receiver sees its receive fail, then the end",
        server_saw_error && client.is_ok(),
        format!("{server:?} / {client:?}"),
    );
    Ok(())
}

/// Polls `qp` (whose window bookkeeping advances with its completion queue) until `window` is idle.
async fn settle(qp: &dyn QueuePair, window: &Window) -> Res<Vec<Completion>> {
    let started = Instant::now();
    let mut out = Vec::new();
    let mut cx = Context::from_waker(Waker::noop());
    while !window.is_idle() {
        if let Poll::Ready(Err(e)) = qp.poll_completions(&mut cx, &mut out) {
            return Err(format!("while closing a window: {e}").into());
        }
        if started.elapsed() > STEP {
            return Err("a closed window never became idle".into());
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    Ok(out)
}

async fn pools_and_windows(checks: &mut Checks, pair: Pair) -> Res<()> {
    let (client, server) = (pair.client.as_ref(), pair.server.as_ref());
    println!("client provider: {}", client.info().provider);
    let (client_pool, server_pool) = (client.pool().ok_or("no client pool")?, server.pool().ok_or("no server pool")?);
    let both = Access::REMOTE_WRITE | Access::REMOTE_READ;
    let window = client.open_window(&client_pool, 4096, 65536, both)?;
    server_pool.write_at(0, &pattern(65536, 5))?;
    server.post_write(60, &server_pool, 0, window.segment(0, 65536).ok_or("segment")?)?;
    server.post_read(61, &server_pool, 65536, window.segment(0, 65536).ok_or("segment")?)?;
    let done = completions(server, 2).await?;
    let (mut landed, mut read_back) = (vec![0; 65536], vec![0; 65536]);
    client_pool.read_at(4096, &mut landed)?;
    server_pool.read_at(65536, &mut read_back)?;
    checks.check(
        "RDMA Write and Read of 64 KiB through a window into the peer's pool",
        done.iter().all(|c| c.result.is_ok()) && landed == pattern(65536, 5) && read_back == landed,
        format!("{:?}", done.iter().map(|c| &c.result).collect::<Vec<_>>()),
    );
    let sources: Vec<Bytes> = (0..40u8).map(|i| Bytes::from(pattern(1000 + usize::from(i), i))).collect();
    let expected: Vec<u8> = sources.iter().flat_map(|s| s.iter().copied()).collect();
    let length = u32::try_from(expected.len())?;
    server.post_write_gather(62, &sources, window.segment(0, length).ok_or("segment")?)?;
    let done = completions(server, 1).await?;
    let mut gathered = vec![0; expected.len()];
    client_pool.read_at(4096, &mut gathered)?;
    checks.check(
        "a gather RDMA Write of 40 sources lands in order",
        matches!(done[0], Completion { wr_id: 62, result: Ok(CompletionKind::Write) }) && gathered == expected,
        format!("{:?}", done[0].result),
    );
    window.close();
    settle(client, &window).await?;
    let before = client.registrations();
    let source = server.register(RegBuf::ReadOnly(Bytes::from(pattern(4096, 6))), Access::NONE)?;
    let mut written = 0;
    for i in 0..200usize {
        let window = client.open_window(&client_pool, (i % 64) * 4096, 4096, Access::REMOTE_WRITE)?;
        server.post_write(63, &source, 0, window.segment(0, 4096).ok_or("segment")?)?;
        written += completions(server, 1).await?.iter().filter(|c| c.result.is_ok()).count();
        window.close();
        settle(client, &window).await?;
    }
    checks.check(
        "200 windows opened, written through and closed: no registration",
        written == 200 && client.registrations() == before,
        format!("{written} writes; registrations {before} before, {} after", client.registrations()),
    );
    let first = client.open_window(&client_pool, 0, 4096, Access::REMOTE_WRITE)?;
    let old = first.segment(0, 4096).ok_or("segment")?;
    server.post_write(64, &source, 0, old)?;
    let ok = completions(server, 1).await?;
    first.close();
    settle(client, &first).await?;
    let second = client.open_window(&client_pool, 0, 4096, Access::REMOTE_WRITE)?;
    server.post_write(65, &source, 0, old)?;
    let late = completions(server, 1).await?;
    checks.check(
        "a closed window's R_key is refused, even with its bytes open again",
        matches!(ok[0].result, Ok(CompletionKind::Write))
            && second.handle() != old.handle
            && matches!(&late[0], Completion { wr_id: 65, result: Err(WcError::RemoteAccess(_)) }),
        format!("before: {:?}; after: {:?}", ok[0].result, late[0].result),
    );
    let server_end = until_disconnected(server).await;
    let client_end = until_disconnected(client).await;
    checks.check(
        "the connection broken by the refused window ends on both sides",
        server_end.is_ok() && client_end.is_ok(),
        format!("{server_end:?} / {client_end:?}"),
    );
    Ok(())
}

async fn run(ip: IpAddr, port: u16, checks: &mut Checks) -> Res<()> {
    let provider = VerbsProvider::open()?;
    println!("provider: {}", provider.name());
    let mut listener = provider.listen(SocketAddr::new(ip, port))?;
    let addr = listener.local_addr();
    println!("listening at {addr}");

    let pair = connect(&provider, &mut listener, addr, CLIENT, 4).await?;
    private_data_and_messages(checks, &pair).await?;
    read_and_write(checks, &pair, 1 << 20, 0).await?;
    read_and_write(checks, &pair, 4096, 512).await?;
    orderly_disconnect(checks, pair).await?;

    invalidated_key(checks, connect(&provider, &mut listener, addr, CLIENT, 0).await?).await?;
    receiver_not_ready(checks, connect(&provider, &mut listener, addr, CLIENT, 0).await?).await?;
    // The client receives 8 KiB, so its send buffers take 8 KiB; the server receives only 4 KiB.
    let big = QpConfig { recv_size: 8192, ..CLIENT };
    too_long_for_the_peer(checks, connect(&provider, &mut listener, addr, big, 1).await?).await?;

    let pooled = QpConfig { pool_bytes: 1 << 20, ..CLIENT };
    pools_and_windows(checks, connect(&provider, &mut listener, addr, pooled, 0).await?).await?;

    let nobody = SocketAddr::new(ip, port.wrapping_add(1));
    let refused = tokio::time::timeout(STEP, provider.connect(nobody, CLIENT, &CLIENT_PD)).await?;
    checks.check(
        "connecting where nothing listens is refused",
        matches!(refused, Err(RdmaError::Refused { .. })),
        format!("{:?}", refused.err()),
    );
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let ip = args.next().unwrap_or_else(|| "10.99.0.1".into());
    let port = args.next().unwrap_or_else(|| "20079".into());
    let (Ok(ip), Ok(port)) = (ip.parse::<IpAddr>(), port.parse::<u16>()) else {
        eprintln!("usage: verbs_check [IP [PORT]]");
        return ExitCode::from(2);
    };
    let mut checks = Checks::default();
    if let Err(e) = run(ip, port, &mut checks).await {
        checks.check("verbs_check ran to the end", false, e);
    }
    println!("{} passed, {} failed", checks.passed, checks.failed);
    if checks.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
