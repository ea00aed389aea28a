//! A peer whose calls are all refused is slowed down over RPC-over-RDMA as over TCP
//! (`server_core::RefusalThrottle`: past 1,000 refused calls in a second, one turn per 50 ms), while the
//! server's other connections are served as before.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::nfs::{inline_header, nfs_call, results};
use common::{Requester, Running};
use nfs3_proto::Void;
use server_rdma::RdmaServerConfig;

/// NFSv3 has no procedure 99: every call is answered PROC_UNAVAIL, a refusal of the RPC layer.
const UNKNOWN_PROC: u32 = 99;
/// Calls the flood keeps outstanding, within the 64 credits granted.
const IN_FLIGHT: u32 = 32;

/// Keeps [`IN_FLIGHT`] refused calls outstanding on `flood` for `period`, sending the next as each reply
/// arrives; the xid of the last call sent.
async fn flood_for(flood: &mut Requester, mut xid: u32, period: Duration) -> u32 {
    let until = Instant::now() + period;
    while Instant::now() < until {
        let (reply, rpc) = flood.reply().await;
        assert!(rpc.len() >= 24 && reply.xid <= xid, "a reply to a call of the flood");
        xid += 1;
        flood.send(&inline_header(xid), &nfs_call(xid, UNKNOWN_PROC, &Void).inline);
    }
    xid
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_whose_calls_are_all_refused_is_throttled_and_costs_little() {
    let running = Running::start_isolated(RdmaServerConfig::default());
    let mut flood = running.connect().await;
    for xid in 1..=IN_FLIGHT {
        flood.send(&inline_header(xid), &nfs_call(xid, UNKNOWN_PROC, &Void).inline);
    }
    let xid = flood_for(&mut flood, IN_FLIGHT, Duration::from_millis(300)).await;
    let before = running.stats.snapshot().calls;
    flood_for(&mut flood, xid, Duration::from_secs(2)).await;
    let during = running.stats.snapshot().calls - before;
    // Another connection is answered at once meanwhile: the pause is the flood's alone.
    let mut good = running.connect().await;
    let started = Instant::now();
    let (_, rpc) = good.call(&inline_header(1), &nfs_call(1, 0, &Void).inline).await;
    assert!(results(&rpc).is_empty());
    assert!(started.elapsed() < Duration::from_secs(1), "a NULL call beside the flood took {:?}", started.elapsed());
    let snap = running.stats.snapshot();
    // At most a window's allowance a second plus one turn (at most the calls in flight) per pause:
    // about 1,000 + 20 × 32 a second. Unthrottled, the soft provider answers several times that.
    assert!(during < 5_000, "the server took {during} refused calls in 2 s: {snap}");
    assert!(snap.refusal_throttles > 0, "the flood was never throttled: {snap}");
    running.stop().await;
}
