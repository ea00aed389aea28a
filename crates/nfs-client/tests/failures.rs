//! Servers that do not answer, answer late, or lose the connection: retransmission with the same xid,
//! soft and hard timeouts, reconnection.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use common::fake::{getattr_ok, Action, FakeServer};
use common::proxy::Proxy;
use common::{spec, TestServer};
use nfs_client::{ClientError, CreateHow, StableHow};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soft_mount_times_out_after_retrans_retransmissions_when_the_server_never_answers() {
    let fake = FakeServer::start(Arc::new(|_| Vec::new())).await;
    let client = common::mount(&spec(fake.addr.port(), "soft,timeo=1,retrans=2")).await.expect("mount");
    let started = Instant::now();
    let err = client.getattr(client.root()).await.expect_err("no answer");
    let elapsed = started.elapsed();
    match err {
        // 100 ms, then 200 ms, then 300 ms: linear backoff, three transmissions.
        ClientError::TimedOut { proc: "GETATTR", after } => assert!(after >= Duration::from_millis(600), "{after:?}"),
        other => panic!("expected TimedOut, got {other}"),
    }
    assert!(elapsed < Duration::from_secs(3), "{elapsed:?}");
    let calls = fake.calls();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|c| c.xid == calls[0].xid), "retransmissions keep the xid");
    assert_eq!(calls.iter().map(|c| c.transmission).collect::<Vec<_>>(), [1, 2, 3]);
    let stats = client.stats();
    assert_eq!((stats.retransmissions, stats.soft_timeouts, stats.major_timeouts), (2, 1, 1));
    assert_eq!(client.connections()[0].in_flight, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hard_mount_retransmits_with_the_same_xid_until_answered() {
    let script = Arc::new(
        |c: &common::fake::Call| {
            if c.transmission == 2 {
                vec![Action::Raw(getattr_ok(c.xid))]
            } else {
                Vec::new()
            }
        },
    );
    let fake = FakeServer::start(script).await;
    let client = common::mount(&spec(fake.addr.port(), "hard,timeo=1,retrans=2")).await.expect("mount");
    let attr = client.getattr(client.root()).await.expect("answered on the retransmission");
    assert_eq!(attr.size, 4096);
    assert_eq!(client.stats().retransmissions, 1);
    assert_eq!(client.stats().major_timeouts, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hard_mount_keeps_trying_after_a_major_timeout() {
    let script = Arc::new(
        |c: &common::fake::Call| {
            if c.transmission == 4 {
                vec![Action::Raw(getattr_ok(c.xid))]
            } else {
                Vec::new()
            }
        },
    );
    let fake = FakeServer::start(script).await;
    let client = common::mount(&spec(fake.addr.port(), "hard,timeo=1,retrans=1")).await.expect("mount");
    client.getattr(client.root()).await.expect("answered eventually");
    let stats = client.stats();
    assert_eq!((stats.retransmissions, stats.major_timeouts, stats.soft_timeouts), (3, 1, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hard_mount_reconnects_after_the_connection_is_killed_and_every_call_completes() {
    let server = TestServer::start().await;
    let proxy = Proxy::start(server.addr).await;
    // timeo=60 s: only the reconnection can bring these calls back.
    let client = common::mount(&spec(proxy.addr.port(), "hard,timeo=600,wsize=4096")).await.expect("mount");
    let (fh, _) = client.create(client.root(), "f", CreateHow::Unchecked, 0o644).await.expect("create");
    let accepted = proxy.accepted();

    proxy.silence(true);
    let writes: Vec<_> = (0..32u64)
        .map(|i| client.submit_write(&fh, i * 4096, Bytes::from(vec![i as u8; 4096]), StableHow::FileSync))
        .collect();
    let gets: Vec<_> = (0..32).map(|_| client.getattr(&fh)).collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(client.connections()[0].in_flight, 32, "the writes are sent and unanswered");
    proxy.kill();
    proxy.silence(false);

    let done = tokio::time::timeout(Duration::from_secs(10), async {
        for w in writes {
            assert_eq!(w.await.expect("write after reconnect").count, 4096);
        }
        for g in gets {
            g.await.expect("getattr after reconnect");
        }
    });
    done.await.expect("calls completed after the reconnection");
    assert_eq!(proxy.accepted(), accepted + 1);
    let stats = client.stats();
    assert_eq!(stats.reconnects, 1);
    assert!(stats.retransmissions >= 32, "{stats:?}");
    assert!(client.connections()[0].connected);
    for i in 0..32u64 {
        let block = client.read(&fh, i * 4096, 4096).await.expect("read");
        assert!(block.data.iter().all(|&b| b == i as u8));
    }
    server.stop().await;
}
