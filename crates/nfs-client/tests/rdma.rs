//! The RPC-over-RDMA transport against a scripted responder over the software provider: chunk
//! placement for WRITE, READ, READDIRPLUS and Long Calls, credits, memory invalidation, RDMA_ERROR,
//! hostile replies, and reconnection.

mod common;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use common::fake::{fattr, reply as tcp_reply, Action, FakeServer};
use common::rdma_fake::{body, raw_reply, reply, FakeError, RdmaAction, RdmaCall, RdmaFake, RdmaScript};
use mount_options::{MountConfig, MountSpec, RdmaSettings};
use nfs3_proto::{
    GetattrRes, GetattrResOk, Nfs3Proc, ReadArgs, StableHow as Stable3, WriteArgs, WriteRes, WriteResOk, WriteVerf3,
};
use nfs_client::{ClientError, NfsClient, StableHow};
use rpcrdma_proto::{RdmaBody, RdmaErrorBody};
use xdr::{XdrDecode, XdrEncode, XdrReader};

fn provider() -> Arc<rdma_soft::SoftProvider> {
    Arc::new(rdma_soft::SoftProvider::new().expect("soft provider"))
}

fn getattr_ok() -> Vec<u8> {
    GetattrRes::Ok(GetattrResOk { obj_attributes: fattr(4096) }).to_xdr_bytes()
}

/// Answers GETATTR, WRITE (with the count received) and READ (with `count` bytes of 0x5A, or fewer
/// when the offset says so) after `delay`.
fn nfs_script(delay: Duration) -> RdmaScript {
    Arc::new(move |c: &RdmaCall| {
        let results = match c.proc {
            p if p == Nfs3Proc::Write as u32 => {
                let args = WriteArgs::decode(&mut XdrReader::new(&c.args)).expect("WRITE args");
                let ok = WriteResOk {
                    file_wcc: Default::default(),
                    count: args.data.len() as u32,
                    committed: Stable3::FileSync,
                    verf: WriteVerf3([1; 8]),
                };
                WriteRes::Ok(ok).to_xdr_bytes()
            }
            p if p == Nfs3Proc::Read as u32 => {
                let args = ReadArgs::decode(&mut XdrReader::new(&c.args)).expect("READ args");
                let len = args.count.saturating_sub(args.offset as u32) as usize;
                let mut results = Vec::new();
                for word in [0u32, 0, len as u32, 1, len as u32] {
                    results.extend(word.to_be_bytes());
                }
                let placed = Some(vec![0x5A; len]);
                return vec![RdmaAction::Reply { results, placed, delay }];
            }
            _ => getattr_ok(),
        };
        vec![RdmaAction::Reply { results, placed: None, delay }]
    })
}

/// A mount of the fake over RDMA, MOUNT (MNT and UMNT) answered by a TCP fake.
async fn mount(fake: &RdmaFake, options: &str) -> (NfsClient, FakeServer) {
    let tcp = FakeServer::start(Arc::new(|c: &common::fake::Call| vec![Action::Raw(tcp_reply(c.xid, &[]))])).await;
    let all = format!("proto=rdma,port={},mountport={},{options}", fake.addr.port(), tcp.addr.port());
    let spec = MountSpec::parse("127.0.0.1:/export", Some(all.trim_end_matches(','))).expect("options");
    let config = MountConfig::new(spec);
    let client = NfsClient::builder(&config).rdma_provider(provider()).mount().await.expect("mount over RDMA");
    (client, tcp)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_of_4095_4096_4097_bytes_and_1_mib_are_pulled_from_a_read_chunk_without_padding() {
    let fake = RdmaFake::start(nfs_script(Duration::ZERO), 64).await;
    let (client, _tcp) = mount(&fake, "").await;
    for len in [4095usize, 4096, 4097, 1 << 20] {
        let data = Bytes::from((0..len).map(|i| (i % 251) as u8).collect::<Vec<_>>());
        let written = client.write(client.root(), 0, data.clone(), StableHow::FileSync).await.expect("write");
        assert_eq!(written.count as usize, len);
        let call = fake.calls().pop().expect("the WRITE");
        let args = WriteArgs::decode(&mut XdrReader::new(&call.args)).expect("reassembled WRITE");
        assert_eq!(args.data, &data[..], "{len} bytes placed");
        assert!(matches!(call.header.body, RdmaBody::Msg(_)), "RDMA_MSG with a Read chunk");
        let reads = &body(&call.header).reads;
        assert_eq!(reads.len(), 1);
        assert_eq!(reads[0].byte_len(), len as u64, "the XDR padding is not in the chunk");
        assert!(reads[0].position > 0, "the chunk sits at the data's XDR position");
    }
    let info = &client.connections()[0];
    assert!(info.transport.contains("soft"), "{}", info.transport);
    assert!(info.connected);
    client.unmount().await.expect("unmount");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_data_is_pushed_into_a_write_chunk_and_a_late_write_to_it_fails_after_the_reply() {
    let fake = RdmaFake::start(nfs_script(Duration::ZERO), 64).await;
    let (client, _tcp) = mount(&fake, "").await;
    let read = client.read(client.root(), 0, 65536).await.expect("read");
    assert_eq!(read.data.len(), 65536);
    assert!(read.data.iter().all(|&b| b == 0x5A) && read.eof);
    let short = client.read(client.root(), 3000, 8192).await.expect("short read");
    assert_eq!(short.data.len(), 8192 - 3000, "truncated to the length the server returned");
    let call = fake.calls().pop().expect("the READ");
    let writes = &body(&call.header).writes;
    assert_eq!(writes.len(), 1);
    assert_eq!(writes[0].byte_len(), 8192, "a Write chunk of the READ count");
    // The call is over: its memory was invalidated before the reply was handed over.
    let late = fake.late_write(writes[0].segments[0], 16).await;
    let err = late.expect_err("stale handle");
    assert!(matches!(err, FakeError::Completion(rdma::WcError::RemoteAccess(_))), "RemoteAccess expected: {err}");
    // The broken queue pair is replaced on demand.
    let again = client.read(client.root(), 0, 4096).await.expect("read after reconnection");
    assert_eq!(again.data.len(), 4096);
    assert_eq!(client.stats().reconnects, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_and_writes_borrow_the_queue_pairs_pool_and_register_nothing_after_it() {
    let fake = RdmaFake::start(nfs_script(Duration::ZERO), 64).await;
    let (client, _tcp) = mount(&fake, "rsize=65536,wsize=65536").await;
    let warm = client.stats();
    assert!(warm.registrations >= 1, "the pool is registered when the queue pair is made: {warm:?}");
    let data = Bytes::from(vec![7u8; 65536]);
    for _ in 0..20 {
        client.write(client.root(), 0, data.clone(), StableHow::Unstable).await.expect("write");
        let read = client.read(client.root(), 0, 65536).await.expect("read");
        assert!(read.data.len() == 65536 && read.data.iter().all(|&b| b == 0x5A));
    }
    let after = client.stats();
    assert_eq!(after.registrations, warm.registrations, "no registration per I/O once the pool is there");
    // The same WRITE data is copied into the pool once (the piece keeps it); each READ's data is lent
    // in place, not copied out.
    assert_eq!(after.bytes_copied - warm.bytes_copied, 65536);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_more_calls_are_outstanding_than_the_server_granted() {
    let fake = RdmaFake::start(nfs_script(Duration::from_millis(10)), 2).await;
    let (client, _tcp) = mount(&fake, "").await;
    let calls = (0..16).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.getattr(client.root()).await })
    });
    for call in calls.collect::<Vec<_>>() {
        call.await.expect("task").expect("getattr");
    }
    assert_eq!(fake.max_in_flight(), 2, "the grant is used and never exceeded");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zero_grant_is_read_as_one_and_calls_behind_an_unanswered_one_time_out_on_a_soft_mount() {
    let script: RdmaScript = Arc::new(|c: &RdmaCall| {
        if c.proc == Nfs3Proc::Getattr as u32 && c.args.len() > 4 {
            vec![reply(getattr_ok())]
        } else {
            Vec::new()
        }
    });
    let fake = RdmaFake::start(script, 0).await;
    let (client, _tcp) = mount(&fake, "soft,timeo=2,retrans=1").await;
    let answered = (0..3).map(|_| {
        let client = client.clone();
        tokio::spawn(async move { client.getattr(client.root()).await })
    });
    for call in answered.collect::<Vec<_>>() {
        call.await.expect("task").expect("answered with a zero grant");
    }
    assert_eq!(fake.max_in_flight(), 1);
    // NULL is never answered: the GETATTR queued behind it fails too instead of waiting forever.
    let null = tokio::spawn({
        let client = client.clone();
        async move { client.null().await }
    });
    tokio::time::sleep(Duration::from_millis(20)).await;
    let behind = tokio::time::timeout(Duration::from_secs(10), client.getattr(client.root())).await;
    assert!(matches!(behind, Ok(Err(ClientError::TimedOut { .. })) | Ok(Ok(_))), "{behind:?}");
    let null = tokio::time::timeout(Duration::from_secs(10), null).await.expect("no deadlock").expect("task");
    assert!(matches!(null, Err(ClientError::TimedOut { proc: "NULL", .. })), "{null:?}");
    assert!(client.stats().soft_timeouts >= 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rdma_error_err_chunk_fails_only_that_call_and_hostile_replies_are_dropped() {
    let script: RdmaScript = Arc::new(|c: &RdmaCall| match c.proc {
        p if p == Nfs3Proc::Commit as u32 => vec![RdmaAction::Error(RdmaErrorBody::Chunk)],
        _ => vec![
            RdmaAction::Raw(vec![0xFF; 7]),
            RdmaAction::Raw(raw_reply(c.xid ^ 0x8000_0000, 8, b"unknown xid")),
            reply(getattr_ok()),
        ],
    });
    let fake = RdmaFake::start(script, 8).await;
    let (client, _tcp) = mount(&fake, "").await;
    let err = client.commit(client.root(), 0, 0).await.expect_err("ERR_CHUNK");
    assert!(matches!(err, ClientError::RdmaErrorReply { proc: "COMMIT", body: RdmaErrorBody::Chunk }), "{err}");
    assert!(err.to_string().contains("ERR_CHUNK"), "{err}");
    client.getattr(client.root()).await.expect("the credit came back and the connection still works");
    assert_eq!(client.stats().unknown_replies, 2);
    assert_eq!(client.stats().reconnects, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hard_mount_reconnects_when_the_server_disconnects_mid_call_and_the_call_completes() {
    let inner = nfs_script(Duration::ZERO);
    let script: RdmaScript = Arc::new(move |c: &RdmaCall| {
        if c.proc == Nfs3Proc::Write as u32 && c.transmission == 1 {
            vec![RdmaAction::Disconnect]
        } else {
            inner(c)
        }
    });
    let fake = RdmaFake::start(script, 16).await;
    let (client, _tcp) = mount(&fake, "hard,timeo=600").await;
    let data = Bytes::from(vec![7u8; 100_000]);
    let written =
        client.write(client.root(), 0, data, StableHow::Unstable).await.expect("completed after reconnection");
    assert_eq!(written.count, 100_000);
    let writes: Vec<RdmaCall> = fake.calls().into_iter().filter(|c| c.proc == Nfs3Proc::Write as u32).collect();
    assert_eq!(writes.iter().map(|c| (c.transmission, c.connection)).collect::<Vec<_>>(), [(1, 1), (2, 2)]);
    assert_eq!(writes[0].xid, writes[1].xid, "the xid is kept");
    let stats = client.stats();
    assert_eq!((stats.reconnects, stats.retransmissions), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soft_mount_fails_a_call_after_retrans_timeouts_while_the_server_keeps_dropping_the_connection() {
    let script: RdmaScript = Arc::new(|_: &RdmaCall| vec![RdmaAction::Disconnect]);
    let fake = RdmaFake::start(script, 16).await;
    let (client, _tcp) = mount(&fake, "soft,timeo=1,retrans=1").await;
    let started = std::time::Instant::now();
    let err = client.getattr(client.root()).await.expect_err("never answered");
    assert!(matches!(err, ClientError::TimedOut { proc: "GETATTR", .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    let stats = client.stats();
    assert!(stats.reconnects >= 1 && stats.soft_timeouts == 1, "{stats:?}");
    assert!(fake.calls().iter().all(|c| c.xid == fake.calls()[0].xid), "one call, re-sent on each connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nconnect_spreads_calls_over_queue_pairs_round_robin() {
    let fake = RdmaFake::start(nfs_script(Duration::ZERO), 8).await;
    let (client, _tcp) = mount(&fake, "nconnect=2").await;
    for _ in 0..4 {
        client.getattr(client.root()).await.expect("getattr");
    }
    assert_eq!(fake.connections(), 2);
    let mut on: Vec<usize> = fake.calls().iter().map(|c| c.connection).collect();
    on.sort_unstable();
    assert_eq!(on, [1, 1, 2, 2]);
    assert_eq!(client.connections().len(), 2);
}

#[tokio::test]
async fn proto_rdma_needs_a_provider_and_an_inline_size_in_range() {
    let spec = MountSpec::parse("127.0.0.1:/export", Some("proto=rdma,mountport=9")).expect("options");
    let err = NfsClient::builder(&MountConfig::new(spec.clone())).mount().await.expect_err("no provider");
    assert!(err.to_string().contains("proto=rdma needs an RDMA provider"), "{err}");
    for (credits, inline_size, named) in
        [(128, 1000, "inline_size=1000"), (128, 131072, "inline_size"), (0, 4096, "credits=0")]
    {
        let rdma = RdmaSettings { credits, inline_size, ..RdmaSettings::default() };
        let config = MountConfig { spec: spec.clone(), rdma, link: None };
        let err = NfsClient::builder(&config).rdma_provider(provider()).mount().await.expect_err("out of range");
        assert!(matches!(err, ClientError::Unsupported(_)) && err.to_string().contains(named), "{err}");
    }
}
