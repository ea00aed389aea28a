//! Pools and windows: one-sided operations into or out of the peer's pool are a memcpy through our
//! mapping of it (no system call), a window's handle dies with the window, a gather write lands in
//! order, windows are not registrations, and a peer's pool that could fault our mapping is refused.

mod support;

use bytes::Bytes;
use rdma::{Access, CompletionKind, Provider, QpConfig, RegBuf, WcError};
use rdma_soft::hostile::{connect_with_pool_fault, PoolFault};
use rdma_soft::{cross_memory_copies, SoftProvider};
use support::{error, localhost, next, pair_with, until_disconnected, DEADLINE};

/// The system-call counter is per process: tests that copy take turns.
static COPYING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const POOL: usize = 1 << 20;

fn pooled() -> QpConfig {
    QpConfig { pool_bytes: POOL, ..QpConfig::default() }
}

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

#[tokio::test]
async fn writes_and_reads_into_the_peers_pool_copy_without_a_system_call() {
    let _turn = COPYING.lock().await;
    let (client, server) = pair_with(pooled(), pooled(), 0).await;
    let (client_pool, server_pool) = (client.pool().expect("pool"), server.pool().expect("pool"));
    assert!(client_pool.len() >= POOL && client_pool.access() == Access::LOCAL_WRITE);
    let window = client.open_window(&client_pool, 8192, 8192, Access::REMOTE_WRITE | Access::REMOTE_READ).expect("w");
    // From a plain registration into the peer's pool, and from our pool back out of it.
    let source = server.register(RegBuf::Writable(pattern(4096, 1)), Access::NONE).expect("reg");
    server_pool.write_at(0, &pattern(4096, 2)).expect("fill");
    let before = cross_memory_copies();
    server.post_write(1, &source, 0, window.segment(0, 4096).expect("seg")).expect("write");
    server.post_write(2, &server_pool, 0, window.segment(4096, 4096).expect("seg")).expect("write");
    server.post_read(3, &server_pool, 65536, window.segment(0, 8192).expect("seg")).expect("read");
    let done = support::take(&*server, 3).await;
    assert!(done.iter().all(|c| c.result.is_ok()), "{done:?}");
    assert_eq!(cross_memory_copies(), before, "no process_vm_* call for the pool");
    let mut landed = vec![0; 8192];
    client_pool.read_at(8192, &mut landed).expect("read_at");
    assert_eq!((&landed[..4096], &landed[4096..]), (&pattern(4096, 1)[..], &pattern(4096, 2)[..]));
    let mut read_back = vec![0; 8192];
    server_pool.read_at(65536, &mut read_back).expect("read_at");
    assert_eq!(read_back, landed);
    // The same Write into a plain registration of the peer still works, by one system call.
    let plain = client.register(RegBuf::Writable(vec![0; 4096]), Access::REMOTE_WRITE).expect("reg");
    server.post_write(4, &source, 0, plain.segment(0, 4096).expect("seg")).expect("write");
    assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Write)));
    assert_eq!(cross_memory_copies(), before + 1);
    drop(window);
    assert_eq!(plain.into_buffer().expect("owner").into_bytes(), pattern(4096, 1));
}

#[tokio::test]
async fn a_closed_windows_handle_is_refused_even_once_its_bytes_are_open_again() {
    let (client, server) = pair_with(pooled(), QpConfig::default(), 0).await;
    let pool = client.pool().expect("pool");
    let source = server.register(RegBuf::Writable(vec![7; 4096]), Access::NONE).expect("reg");
    let first = client.open_window(&pool, 0, 4096, Access::REMOTE_WRITE).expect("window");
    let old = first.segment(0, 4096).expect("seg");
    server.post_write(1, &source, 0, old).expect("write");
    assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Write)));
    first.close();
    assert!(first.is_idle(), "no access under way: idle at once");
    let second = client.open_window(&pool, 0, 4096, Access::REMOTE_WRITE).expect("window");
    assert_ne!(second.handle(), old.handle);
    assert_eq!(second.segment(0, 4096).expect("seg").offset, old.offset, "the same bytes");
    server.post_write(2, &source, 0, old).expect("post");
    let done = until_disconnected(&*server).await;
    assert!(matches!(error(&done[0]), Some(WcError::RemoteAccess(_))) && done[0].wr_id == 2, "{done:?}");
    until_disconnected(&*client).await;
}

#[tokio::test]
async fn a_window_gives_only_its_own_bytes_and_rights() {
    let (client, server) = pair_with(pooled(), QpConfig::default(), 0).await;
    let pool = client.pool().expect("pool");
    let window = client.open_window(&pool, 4096, 4096, Access::REMOTE_READ).expect("window");
    let local = server.register(RegBuf::Writable(vec![0; 8192]), Access::LOCAL_WRITE).expect("reg");
    let past = rdma::RemoteSegment { length: 4097, ..window.segment(0, 4096).expect("seg") };
    server.post_read(1, &local, 0, past).expect("post");
    let done = until_disconnected(&*server).await;
    assert!(matches!(error(&done[0]), Some(WcError::RemoteAccess(why)) if why.contains("leave the region")));
    let (client, server) = pair_with(pooled(), QpConfig::default(), 0).await;
    let pool = client.pool().expect("pool");
    let window = client.open_window(&pool, 0, 4096, Access::REMOTE_READ).expect("window");
    let source = server.register(RegBuf::Writable(vec![1; 4096]), Access::NONE).expect("reg");
    server.post_write(1, &source, 0, window.segment(0, 4096).expect("seg")).expect("post");
    let done = until_disconnected(&*server).await;
    assert!(matches!(error(&done[0]), Some(WcError::RemoteAccess(why)) if why.contains("remote write")));
    // Windows open only into this connection's regions, inside them, with a remote right.
    assert!(client.open_window(&pool, POOL - 10, 11, Access::REMOTE_READ).is_err());
    assert!(client.open_window(&pool, 0, 10, Access::LOCAL_WRITE).is_err());
    let ro = client.register(RegBuf::ReadOnly(Bytes::from_static(&[0; 64])), Access::NONE).expect("reg");
    assert!(client.open_window(&ro, 0, 64, Access::REMOTE_WRITE).is_err());
    assert!(client.register(RegBuf::Pool(std::sync::Arc::new(Fake)), Access::NONE).is_err(), "pools are ours");
}

/// Memory posing as a pool, which registration must refuse (its address could be anything).
#[derive(Debug)]
struct Fake;
impl rdma::PoolMemory for Fake {
    fn start_addr(&self) -> usize {
        8
    }
    fn len(&self) -> usize {
        4096
    }
    fn read(&self, _: usize, _: &mut [u8]) {}
    fn write(&self, _: usize, _: &[u8]) {}
}

#[tokio::test]
async fn a_gather_write_lands_its_sources_in_order_in_the_pool_and_in_a_registration() {
    let _turn = COPYING.lock().await;
    let (client, server) = pair_with(pooled(), QpConfig::default(), 0).await;
    let pool = client.pool().expect("pool");
    let sources = [Bytes::from(pattern(1000, 3)), Bytes::new(), Bytes::from(pattern(3096, 4)), Bytes::from(vec![9])];
    let expected: Vec<u8> = sources.iter().flat_map(|s| s.iter().copied()).collect();
    let window = client.open_window(&pool, 100, 4097, Access::REMOTE_WRITE).expect("window");
    let plain = client.register(RegBuf::Writable(vec![0; 4097]), Access::REMOTE_WRITE).expect("reg");
    let before = cross_memory_copies();
    server.post_write_gather(1, &sources, window.segment(0, 4097).expect("seg")).expect("gather");
    assert_eq!(cross_memory_copies(), before);
    server.post_write_gather(2, &sources, plain.segment(0, 4097).expect("seg")).expect("gather");
    assert_eq!(cross_memory_copies(), before + 1, "one process_vm_writev for all the sources");
    let done = support::take(&*server, 2).await;
    assert!(done.iter().all(|c| matches!(c.result, Ok(CompletionKind::Write))), "{done:?}");
    let mut landed = vec![0; 4097];
    pool.read_at(100, &mut landed).expect("read_at");
    assert_eq!(landed, expected);
    assert_eq!(plain.into_buffer().expect("owner").into_bytes(), expected);
    let short = window.segment(0, 4096).expect("seg");
    assert!(server.post_write_gather(3, &sources, short).is_err(), "lengths must add up");
}

#[tokio::test]
async fn windows_are_not_registrations() {
    let (client, server) = pair_with(pooled(), QpConfig::default(), 0).await;
    assert_eq!(client.registrations(), 1, "the pool, once");
    assert_eq!(server.registrations(), 0);
    let pool = client.pool().expect("pool");
    let source = server.register(RegBuf::Writable(vec![5; 4096]), Access::NONE).expect("reg");
    let mut completions = 0;
    // More windows than the key table has slots: closed ones are reused.
    for i in 0..20_000usize {
        let window = client.open_window(&pool, (i % 256) * 4096, 4096, Access::REMOTE_WRITE).expect("window");
        if i % 64 == 0 {
            server.post_write(i as u64, &source, 0, window.segment(0, 4096).expect("seg")).expect("write");
            completions += next(&*server).await.len();
        }
        drop(window);
    }
    assert_eq!(completions, 313);
    assert_eq!((client.registrations(), server.registrations()), (1, 1));
}

/// A listener that reports how each request it accepts ends.
async fn refused_with(fault: PoolFault) -> String {
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen(localhost()).expect("listen");
    let addr = listener.local_addr();
    let serving = tokio::spawn(async move {
        let incoming = listener.accept().await.expect("incoming");
        incoming.accept(pooled(), b"").await.map(drop)
    });
    let refused = tokio::time::timeout(DEADLINE, connect_with_pool_fault(addr, pooled(), b"", fault))
        .await
        .expect("in time")
        .expect_err("refused");
    let server_side = serving.await.expect("task").expect_err("the server refuses it too");
    assert!(server_side.to_string().contains("pool"), "{server_side}");
    refused.to_string()
}

#[tokio::test]
async fn a_peers_pool_that_could_shrink_or_is_shorter_than_announced_is_refused() {
    let unsealed = refused_with(PoolFault::Unsealed).await;
    assert!(unsealed.contains("pool") && unsealed.contains("not sealed against shrinking"), "{unsealed}");
    let short = refused_with(PoolFault::Short).await;
    assert!(short.contains("pool") && short.contains("bytes, expected"), "{short}");
}
