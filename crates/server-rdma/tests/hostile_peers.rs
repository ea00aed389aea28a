//! Peers that break the rules: each loses its own connection (or gets an RDMA_ERROR), and the server
//! keeps serving every other connection and its listener.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::nfs::{create, inline_header, nfs_call, results, WRITE};
use common::{pattern, segment, Requester, Running};
use nfs3_proto::{NfsErr3, ReadArgs, StableHow, Void, WriteArgs};
use nfs_server::IpNet;
use rdma::RdmaError;
use rdma::{Access, RegBuf};
use rpcrdma_proto::{ChunkLists, RdmaBody, RdmaErrorBody, RdmaHeader, ReadChunk, Segment, WriteChunk};
use server_rdma::RdmaServerConfig;
use xdr::XdrEncode;

/// A NULL call on a fresh connection is answered.
async fn still_serving(running: &Running) {
    let mut req = running.connect().await;
    let (_, rpc) = req.call(&inline_header(99), &nfs_call(99, 0, &Void).inline).await;
    assert!(results(&rpc).is_empty());
}

fn error_of(header: &RdmaHeader) -> Option<RdmaErrorBody> {
    match header.body {
        RdmaBody::Error(e) => Some(e),
        _ => None,
    }
}

#[tokio::test]
async fn version_two_is_answered_with_err_vers() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let mut message = inline_header(5).to_xdr_bytes();
    message[4..8].copy_from_slice(&2u32.to_be_bytes());
    req.send_raw(&message).expect("send");
    let (reply, _) = req.reply().await;
    assert_eq!((reply.xid, error_of(&reply)), (5, Some(RdmaErrorBody::Vers { low: 1, high: 1 })));
    // The connection itself is fine.
    req.call(&inline_header(6), &nfs_call(6, 0, &Void).inline).await;
    assert_eq!(running.stats.snapshot().err_vers_sent, 1);
    running.stop().await;
}

#[tokio::test]
async fn garbage_gets_err_chunk_or_a_close_and_the_server_stays_up() {
    let running = Running::start().await;
    // An xid, version 1, then nonsense: ERR_CHUNK carrying the xid.
    let mut req = running.connect().await;
    let mut junk = vec![0, 0, 0, 42, 0, 0, 0, 1];
    junk.extend([0xa5; 56]);
    req.send_raw(&junk).expect("send");
    let (reply, _) = req.reply().await;
    assert_eq!((reply.xid, error_of(&reply)), (42, Some(RdmaErrorBody::Chunk)));
    // Chunks validate_call refuses: an RDMA_NOMSG without a position-zero Read chunk.
    let nomsg = RdmaHeader::nomsg(43, 64, ChunkLists::default());
    req.send(&nomsg, &[]);
    assert_eq!(error_of(&req.reply().await.0), Some(RdmaErrorBody::Chunk));
    // Fewer bytes than an xid: nothing can be answered, the connection is closed.
    req.send_raw(&[1, 2]).expect("send");
    assert!(req.broken().await, "a message without an xid closes the connection");
    still_serving(&running).await;
    let snap = running.stats.snapshot();
    assert!(snap.err_chunk_sent >= 2 && snap.broken >= 1, "{snap}");
    running.stop().await;
}

#[tokio::test]
async fn a_read_chunk_past_the_clients_registration_breaks_only_that_connection() {
    let running = Running::start().await;
    let mut other = running.connect().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"oob").await;
    let data = pattern(4096, 1);
    let call = nfs_call(2, WRITE, &WriteArgs::new(file, 0, StableHow::FileSync, &data));
    let (position, _) = call.payload.expect("payload");
    let region = req.register(RegBuf::ReadOnly(data.clone().into()), Access::REMOTE_READ);
    let inside = segment(&region, 2048, 2048);
    let past = Segment { length: 4096, ..inside };
    let header = RdmaHeader::msg(
        2,
        64,
        ChunkLists {
            reads: rpcrdma_proto::smallvec![ReadChunk { position, segments: rpcrdma_proto::smallvec![past] }],
            ..Default::default()
        },
    );
    req.send(&header, &call.inline);
    assert!(req.broken().await, "the server's RDMA Read failed and it closed the connection");
    other.call(&inline_header(3), &nfs_call(3, 0, &Void).inline).await;
    still_serving(&running).await;
    assert!(running.stats.snapshot().broken >= 1);
    running.stop().await;
}

#[tokio::test]
async fn a_write_chunk_with_a_stale_handle_breaks_only_that_connection() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"stale").await;
    common::nfs::write_by_read_chunk(&mut req, 2, file, &pattern(8192, 2), 8192).await;
    let region = req.register(RegBuf::Writable(vec![0; 8192]), Access::LOCAL_WRITE | Access::REMOTE_WRITE);
    let chunk = WriteChunk { segments: rpcrdma_proto::smallvec![segment(&region, 0, 8192)] };
    region.invalidate();
    let header = RdmaHeader::msg(3, 64, ChunkLists { writes: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    req.send(&header, &nfs_call(3, common::nfs::READ, &ReadArgs { file, offset: 0, count: 8192 }).inline);
    assert!(req.broken().await, "the server's RDMA Write failed and it closed the connection");
    still_serving(&running).await;
    running.stop().await;
}

#[tokio::test]
async fn a_payload_longer_than_the_write_chunk_is_err_chunk() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"short-chunk").await;
    common::nfs::write_by_read_chunk(&mut req, 2, file, &pattern(8192, 2), 8192).await;
    let region = req.register(RegBuf::Writable(vec![0; 4096]), Access::LOCAL_WRITE | Access::REMOTE_WRITE);
    let chunk = WriteChunk { segments: rpcrdma_proto::smallvec![segment(&region, 0, 4096)] };
    let header = RdmaHeader::msg(3, 64, ChunkLists { writes: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    let call = nfs_call(3, common::nfs::READ, &ReadArgs { file, offset: 0, count: 8192 });
    let (reply, _) = req.call(&header, &call.inline).await;
    assert_eq!(error_of(&reply), Some(RdmaErrorBody::Chunk));
    req.call(&inline_header(4), &nfs_call(4, 0, &Void).inline).await;
    running.stop().await;
}

#[tokio::test]
async fn sending_past_the_granted_credits_breaks_only_that_connection() {
    let running = Running::start_with(RdmaServerConfig { credits: 8, ..Default::default() });
    let mut req = running.connect().await;
    let (reply, _) = req.call(&inline_header(1), &nfs_call(1, 0, &Void).inline).await;
    assert_eq!(reply.credits, 8, "the grant is the configured credits");
    // Eleven Sends before the server's task can run again: only eight receives are posted for calls
    // and two for replies to backward calls (RFC 8167).
    assert_eq!(server_rdma::DEFAULT_BACKWARD_CREDITS, 2);
    let sent = (10..21).map(|xid| {
        let mut message = inline_header(xid).to_xdr_bytes();
        message.extend(nfs_call(xid, 0, &Void).inline);
        req.send_raw(&message)
    });
    let refused = sent.filter(Result::is_err).count();
    assert!(refused <= 1);
    assert!(req.broken().await, "the eleventh Send met no posted receive");
    assert!(req.errors.iter().any(|e| e.contains("receiver not ready")), "RNR: {:?}", req.errors);
    still_serving(&running).await;
    running.stop().await;
}

/// How a client walks away from its 1 MiB WRITE.
#[derive(Debug, Clone, Copy)]
enum Leave {
    /// Disconnects right after the Send: the server may never see the call.
    BeforeTheRead,
    /// Invalidates the data's registration first: the server's RDMA Reads fail.
    InvalidatingItsMemory,
    /// Disconnects once the server has posted its RDMA Reads, before the reply.
    OnceTheReadsArePosted,
}

#[tokio::test]
async fn a_client_leaving_while_its_megabyte_is_being_read_leaves_the_server_serving() {
    let running = Running::start().await;
    for (i, leave) in
        [Leave::BeforeTheRead, Leave::InvalidatingItsMemory, Leave::OnceTheReadsArePosted].into_iter().enumerate()
    {
        let mut req = running.connect().await;
        let file = create(&mut req, 1, running.root(), format!("leave{i}").as_bytes()).await;
        let data = pattern(1 << 20, 9);
        let call = nfs_call(2, WRITE, &WriteArgs::new(file, 0, StableHow::FileSync, &data));
        let (position, len) = call.payload.expect("payload");
        let region = req.register(RegBuf::ReadOnly(data.into()), Access::REMOTE_READ);
        let chunk = ReadChunk { position, segments: common::segments(&region, len, 64 << 10) };
        let header =
            RdmaHeader::msg(2, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() });
        let read_before = running.stats.snapshot().bytes_rdma_read;
        req.send(&header, &call.inline);
        match leave {
            Leave::BeforeTheRead => {}
            Leave::InvalidatingItsMemory => {
                region.invalidate();
                assert!(req.broken().await, "the server's RDMA Read of invalidated memory broke the connection");
            }
            Leave::OnceTheReadsArePosted => {
                let posted = async {
                    while running.stats.snapshot().bytes_rdma_read < read_before + (1 << 20) {
                        tokio::task::yield_now().await;
                    }
                };
                tokio::time::timeout(common::STEP, posted).await.expect("the server reads the payload");
            }
        }
        req.qp.disconnect();
        drop((region, req));
        still_serving(&running).await;
    }
    assert!(running.stats.snapshot().broken >= 1);
    running.stop().await;
}

#[tokio::test]
async fn a_client_without_private_data_gets_1024_byte_inline_replies() {
    let running = Running::start().await;
    let mut req = Requester::connect(&*running.provider, running.addr, &[]).await;
    let private = req.server_private().expect("the server's private data");
    assert_eq!(private.recv_size(), 4096);
    let file = create(&mut req, 1, running.root(), b"f").await;
    common::nfs::write_by_read_chunk(&mut req, 2, file, &pattern(2000, 4), 2000).await;
    // 2000 bytes of READ data do not fit 1024 bytes inline and no chunk is offered: ERR_CHUNK.
    let call = nfs_call(3, common::nfs::READ, &ReadArgs { file, offset: 0, count: 2000 });
    let (reply, _) = req.call(&inline_header(3), &call.inline).await;
    assert_eq!(error_of(&reply), Some(RdmaErrorBody::Chunk));
    running.stop().await;
}

#[tokio::test]
async fn a_client_offering_no_rdma_read_gets_err_chunk_for_read_chunks_and_inline_service() {
    let running = Running::start().await;
    let private = rpcrdma_proto::ConnectPrivate::new(4096, 4096, false).encode();
    let mut req = Requester::connect_offering(&*running.provider, running.addr, &private, 0).await;
    let file = create(&mut req, 1, running.root(), b"no-reads").await;
    let data = pattern(8192, 5);
    let call = nfs_call(2, WRITE, &WriteArgs::new(file, 0, StableHow::FileSync, &data));
    let (position, len) = call.payload.expect("payload");
    let region = req.register(RegBuf::ReadOnly(data.into()), Access::REMOTE_READ);
    let chunk = ReadChunk { position, segments: common::segments(&region, len, 8192) };
    let header = RdmaHeader::msg(2, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    let (reply, _) = req.call(&header, &call.inline).await;
    assert_eq!(error_of(&reply), Some(RdmaErrorBody::Chunk), "no RDMA Read may be issued");
    req.call(&inline_header(3), &nfs_call(3, 0, &Void).inline).await;
    running.stop().await;
}

#[tokio::test]
async fn connections_past_max_connections_are_rejected_until_one_ends() {
    let running = Running::start_with(RdmaServerConfig { max_connections: 1, ..Default::default() });
    let mut first = running.connect().await;
    first.call(&inline_header(1), &nfs_call(1, 0, &Void).inline).await;
    let private = rpcrdma_proto::ConnectPrivate::new(4096, 4096, false).encode();
    let refused = running.provider.connect(running.addr, rdma::QpConfig::default(), &private).await;
    assert!(matches!(refused, Err(rdma::RdmaError::Refused { .. })), "{refused:?}");
    first.qp.disconnect();
    drop(first);
    let freed = async {
        while running.stats.snapshot().open > 0 {
            tokio::task::yield_now().await;
        }
    };
    tokio::time::timeout(common::STEP, freed).await.expect("the first connection ends");
    still_serving(&running).await;
    let snap = running.stats.snapshot();
    assert_eq!((snap.refused, snap.accepted), (1, 2), "{snap}");
    running.stop().await;
}

/// The worst time a NULL call on `req` takes over `period`, or `None` when one got no reply within
/// `limit` (the server stalled).
async fn worst_null_call(req: &mut Requester, period: Duration, limit: Duration) -> Option<Duration> {
    let (mut worst, until) = (Duration::ZERO, Instant::now() + period);
    let mut xid = 1000;
    while Instant::now() < until {
        xid += 1;
        let started = Instant::now();
        tokio::time::timeout(limit, req.call(&inline_header(xid), &nfs_call(xid, 0, &Void).inline)).await.ok()?;
        worst = worst.max(started.elapsed());
    }
    Some(worst)
}

/// One attack beside `good`: a peer holds every counter the server checks before it frees a
/// registration of this connection, then sends a WRITE whose 16 KiB the server pulls with an RDMA
/// Read into a buffer it registers (the server's pool holds 4 KiB: a call past it gets a registration
/// of its own). The worst NULL call of `good` meanwhile (`None`: it stalled
/// past 500 ms), once the hostile connection is broken.
async fn busy_counter_attack(running: &Running, good: &mut Requester, name: &[u8]) -> Option<Duration> {
    let private = rpcrdma_proto::ConnectPrivate::new(4096, 4096, false).encode();
    let (qp, counters) = rdma_soft::hostile::connect(running.addr, Requester::config(16), &private)
        .await
        .expect("the hostile peer connects");
    let mut bad = Requester::new(qp);
    let file = create(&mut bad, 1, running.root(), name).await;
    counters.raise_all();
    let data = pattern(16 << 10, 3);
    let call = nfs_call(2, WRITE, &WriteArgs::new(file, 0, StableHow::FileSync, &data));
    let (position, len) = call.payload.expect("payload");
    let region = bad.register(RegBuf::ReadOnly(data.into()), Access::REMOTE_READ);
    let chunk = ReadChunk { position, segments: common::segments(&region, len, len) };
    bad.send(
        &RdmaHeader::msg(2, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() }),
        &call.inline,
    );
    let worst = worst_null_call(good, Duration::from_millis(300), Duration::from_millis(500)).await?;
    assert!(bad.broken().await, "a peer holding a busy counter past the bound loses its connection");
    Some(worst)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_peer_holding_every_busy_counter_neither_stalls_the_server_nor_keeps_its_connection() {
    // The server's network thread is a one-thread runtime of its own, as a listener's is.
    let running = Running::start_isolated(RdmaServerConfig { max_read_target_bytes: 4096, ..Default::default() });
    let mut good = running.connect().await;
    good.call(&inline_header(1), &nfs_call(1, 0, &Void).inline).await;
    // Up to three attacks: a server that waits for the peer stalls in each, while a loaded machine
    // deschedules the good client past 50 ms only now and then.
    let mut worst = Vec::new();
    for attack in 0..3u8 {
        let got = busy_counter_attack(&running, &mut good, &[b'h', b'0' + attack]).await;
        worst.push(got.expect("the good client is served while the hostile peer holds its counters"));
        if worst.last().is_some_and(|w| *w < Duration::from_millis(50)) {
            break;
        }
    }
    assert!(worst.iter().any(|w| *w < Duration::from_millis(50)), "the good client's worst NULL calls: {worst:?}");
    still_serving(&running).await;
    running.stop().await;
}

/// The status of a GETATTR of the export's root.
async fn getattr_status(req: &mut Requester, xid: u32, running: &Running) -> u32 {
    let (_, rpc) = req.call(&inline_header(xid), &nfs_call(xid, 1, &running.root()).inline).await;
    u32::from_be_bytes(results(&rpc)[..4].try_into().expect("a status"))
}

#[tokio::test]
async fn a_client_claiming_an_address_it_does_not_have_gets_no_access_its_export_rules_deny() {
    let claimed: std::net::IpAddr = "10.9.9.9".parse().expect("ip");
    let only_claimed = vec![IpNet { addr: claimed, prefix_len: 32 }];
    // A wildcard listener: the claim is one it would answer to, were the address this host's.
    let running = Running::start_exporting(RdmaServerConfig::default(), only_claimed, "0.0.0.0:0");
    let target = SocketAddr::new("127.0.0.1".parse().expect("ip"), running.addr.port());
    let private = rpcrdma_proto::ConnectPrivate::new(4096, 4096, false).encode();
    match rdma_soft::hostile::connect_claiming(target, claimed, Requester::config(16), &private).await {
        Err(RdmaError::Refused { reason, .. }) => {
            assert!(reason.is_some_and(|r| r.contains("10.9.9.9")), "the refusal says why");
        }
        Err(err) => panic!("unexpected error: {err}"),
        Ok(qp) => {
            let mut liar = Requester::new(qp);
            let status = getattr_status(&mut liar, 1, &running).await;
            panic!("a client claiming 10.9.9.9 was accepted and its GETATTR got status {status}");
        }
    }
    // An honest local client is known as 127.0.0.1, which the export's rules refuse.
    let mut honest = Requester::connect(&*running.provider, target, &private).await;
    assert_eq!(getattr_status(&mut honest, 2, &running).await, NfsErr3::Acces.as_u32());
    running.stop().await;
}

/// NULL-call latencies of `req` over `period`, sorted.
async fn null_latencies(req: &mut Requester, period: Duration) -> Vec<Duration> {
    let (mut out, until) = (Vec::new(), Instant::now() + period);
    let mut xid = 5000;
    while Instant::now() < until {
        xid += 1;
        let started = Instant::now();
        req.call(&inline_header(xid), &nfs_call(xid, 0, &Void).inline).await;
        out.push(started.elapsed());
    }
    out.sort();
    out
}

/// Measurement (`cargo test -p server-rdma --release --test hostile_peers -- --ignored --nocapture`):
/// a good client's NULL calls undisturbed and beside a peer that reconnects in a loop, each time
/// holding every busy counter and sending a WRITE whose 8 bytes the server RDMA-Reads (with
/// `CHURN_ONLY` set the counters stay down: the same connections from an honest client, to compare).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement"]
async fn measure_a_good_client_beside_a_reconnecting_busy_counter_attack() {
    let running = Running::start_isolated(RdmaServerConfig::default());
    let mut good = running.connect().await;
    let root = running.root();
    let cpu = running.thread_cpu();
    let base = null_latencies(&mut good, Duration::from_secs(1)).await;
    let base_cpu = running.thread_cpu().zip(cpu).map(|(b, a)| b - a);
    let cpu = running.thread_cpu();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let attacker = {
        let (addr, stop) = (running.addr, stop.clone());
        // A runtime and thread of its own, as another process would have.
        let attack = async move {
            let private = rpcrdma_proto::ConnectPrivate::new(4096, 4096, false).encode();
            let mut attacks = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let Ok((qp, counters)) = rdma_soft::hostile::connect(addr, Requester::config(16), &private).await
                else {
                    continue;
                };
                let mut bad = Requester::new(qp);
                if std::env::var_os("CHURN_ONLY").is_none() {
                    counters.raise_all();
                }
                let data = pattern(8, 3);
                let call = nfs_call(2, WRITE, &WriteArgs::new(root, 0, StableHow::Unstable, &data));
                let (position, len) = call.payload.expect("payload");
                let region = bad.register(RegBuf::ReadOnly(data.into()), Access::REMOTE_READ);
                let chunk = ReadChunk { position, segments: common::segments(&region, len, 8) };
                let header =
                    RdmaHeader::msg(2, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() });
                bad.send(&header, &call.inline);
                let _ = tokio::time::timeout(Duration::from_millis(20), bad.recv()).await;
                attacks += 1;
            }
            attacks
        };
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime").block_on(attack)
        })
    };
    let attacked = null_latencies(&mut good, Duration::from_secs(1)).await;
    let attacked_cpu = running.thread_cpu().zip(cpu).map(|(b, a)| b - a);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let attacks = attacker.join().expect("attacker");
    let p = |v: &[Duration], q: f64| v[((v.len() - 1) as f64 * q) as usize];
    println!(
        "undisturbed: {} calls/s, p50 {:?}, p99 {:?}, server thread CPU {base_cpu:?}; beside {attacks} attacks: \
         {} calls/s, p50 {:?}, p99 {:?}, server thread CPU {attacked_cpu:?}",
        base.len(),
        p(&base, 0.5),
        p(&base, 0.99),
        attacked.len(),
        p(&attacked, 0.5),
        p(&attacked, 0.99)
    );
    // The attacker's own work competes for the same cores here: the hard requirement is that no
    // call of the good client waits for the attacker's connections.
    let worst = attacked.last().copied().unwrap_or_default();
    assert!(worst < Duration::from_millis(50), "a NULL call of the good client took {worst:?}");
    running.stop().await;
}
