//! NFSv4 recovery against the fake server: connections cut mid-run, replies lost after the server did
//! the work, a server restart with reclaim, state lost to an expired lease, an idle mount kept alive
//! by lease renewal, and the server's slot target obeyed.

mod v4_support;

use std::time::Duration;

use bytes::Bytes;
use nfs_client::{Access, CreateHow, NfsClient, OpenFile, StableHow};
use v4_support::{Config, FakeV4};

const LEASE: Duration = Duration::from_secs(30);

async fn open(client: &NfsClient, name: &str) -> OpenFile {
    let how = Some((CreateHow::Unchecked, 0o644));
    client.open(client.root(), name, Access::ReadWrite, how).await.expect("open").0
}

fn block(i: u64) -> Bytes {
    Bytes::from(vec![i as u8; 4096])
}

/// Waits until `done` holds, at most 10 s.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test]
async fn a_connection_cut_mid_run_is_rebound_and_its_calls_complete() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1,nconnect=2").await.expect("mount");
    let file = open(&client, "cut").await;
    let writes: Vec<_> = (0..32).map(|i| client.submit_write(&file, i * 4096, block(i), StableHow::FileSync)).collect();
    server.kill_connections();
    // All 32 are in flight already; waiting in order changes nothing.
    for (i, w) in writes.into_iter().enumerate() {
        assert_eq!(w.await.unwrap_or_else(|e| panic!("write {i}: {e}")).count, 4096);
    }
    let data = server.file("cut").expect("file");
    assert!((0..32).all(|i| data[i * 4096] == i as u8), "every block landed");
    // One bind at the mount (the second connection), then both again after the cut.
    eventually("the connections bound again", || server.count("BIND_CONN_TO_SESSION") >= 3).await;
    assert_eq!(server.count("CREATE_SESSION"), 1, "the session survived");
    assert!(client.stats().reconnects >= 1);
}

#[tokio::test]
async fn a_lost_reply_is_answered_from_the_reply_cache_on_the_same_slot() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let file = open(&client, "cached").await;
    server.lose_replies(1);
    let w = client.write(&file, 0, block(7), StableHow::FileSync).await.expect("write");
    assert_eq!(w.count, 4096);
    assert_eq!((server.count("WRITE"), server.count("REPLAY")), (1, 1), "done once, answered twice");
    let next = client.write(&file, 4096, block(8), StableHow::FileSync).await.expect("the slot moved on");
    assert_eq!(next.count, 4096);
}

#[tokio::test]
async fn a_lost_reply_the_server_did_not_cache_is_sent_again_as_a_new_request() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let file = open(&client, "uncached").await;
    server.cache_replies(false);
    server.lose_replies(1);
    let w = client.write(&file, 0, block(7), StableHow::FileSync).await.expect("write");
    assert_eq!(w.count, 4096);
    assert_eq!(server.count("UNCACHED REPLAY"), 1, "the resend met knfsd's NFS4ERR_RETRY_UNCACHED_REP");
    assert_eq!(server.count("WRITE"), 2, "then went again on a new sequence id");
    assert_eq!(server.file("uncached").expect("file")[..4096], block(7)[..]);
}

#[tokio::test]
async fn a_server_restart_is_recovered_by_reclaiming_the_open_files() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let file = open(&client, "kept").await;
    client.write(&file, 0, block(1), StableHow::FileSync).await.expect("before");
    server.restart();
    let after = client.write(&file, 4096, block(2), StableHow::FileSync).await.expect("after the restart");
    assert_eq!(after.count, 4096);
    let read = client.read(&file, 0, 8192).await.expect("read");
    assert_eq!((read.data[0], read.data[4096]), (1, 2));
    assert_eq!(server.count("EXCHANGE_ID"), 2, "a new client ID");
    assert_eq!(server.count("RECLAIM_COMPLETE"), 2, "reclaim ended the grace period");
    assert_eq!((server.count("CLAIM_PREVIOUS"), server.count("CLAIM_FH")), (1, 0), "reclaimed, not opened anew");
    assert_eq!(server.open_count(), 1);
    client.close(&file).await.expect("close after the restart");
    assert_eq!(server.open_count(), 0);
}

#[tokio::test]
async fn state_lost_to_an_expired_lease_is_opened_again_when_used() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let file = open(&client, "expired").await;
    client.write(&file, 0, block(3), StableHow::FileSync).await.expect("before");
    server.expire_clients();
    let w = client.write(&file, 4096, block(4), StableHow::FileSync).await.expect("after expiry");
    assert_eq!(w.count, 4096);
    assert_eq!(server.count("CLAIM_FH"), 1, "opened again by its handle");
    assert_eq!(server.open_count(), 1);
}

#[tokio::test]
async fn lease_renewal_keeps_an_idle_mount_alive_past_the_lease_time() {
    let server = FakeV4::start(Config::default(), Duration::from_secs(2)).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let file = open(&client, "idle").await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(server.renewals() >= 2, "SEQUENCE-only renewals: {}", server.renewals());
    client.write(&file, 0, block(5), StableHow::FileSync).await.expect("still open");
    assert_eq!((server.count("EXCHANGE_ID"), server.count("CREATE_SESSION")), (1, 1), "no recovery was needed");
    assert_eq!(server.count("OPEN"), 1);
}

#[tokio::test]
async fn the_servers_slot_target_caps_the_calls_in_flight() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let file = open(&client, "target").await;
    client.write(&file, 0, block(0), StableHow::FileSync).await.expect("write");
    let wide: Vec<_> = (0..12).map(|i| client.submit_read(&file, i * 16, 16)).collect();
    for r in wide {
        r.await.expect("read");
    }
    assert!(server.take_max_slot() >= 4, "with the whole table, calls spread over the slots");
    server.set_target(Some(1));
    client.getattr(client.root()).await.expect("the reply that lowers the target");
    server.take_max_slot();
    let narrow: Vec<_> = (0..12).map(|i| client.submit_read(&file, i * 16, 16)).collect();
    for r in narrow {
        r.await.expect("read");
    }
    assert!(server.take_max_slot() <= 1, "slots 0 and 1 only");
}
