//! The call table and the retransmission policy on a virtual clock: instants made by adding to one
//! `Instant`, nothing sleeps.

use std::time::{Duration, Instant};

use super::*;
use crate::retransmit::MAX_TIMEOUT;
use crate::transport::{reply_channel, ReplyReceiver};

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn policy(timeo: u64, retrans: u32, hard: bool) -> RetransmitPolicy {
    RetransmitPolicy { timeo: secs(timeo), retrans, hard }
}

fn call(xid: u32) -> RpcCall {
    RpcCall { xid, proc: "GETATTR", inline: vec![0; 8], payload: None, reply_payload: 0, reply_len: None }
}

/// Inserts call `xid` at `now` and sends it at once; the receiver must be kept for the call to count
/// as waited for.
fn send(table: &mut CallTable<()>, xid: u32, now: Instant) -> ReplyReceiver {
    let (tx, rx) = reply_channel();
    table.insert(call(xid), tx, (), now).expect("inserted");
    table.pop_waiting().expect("waiting").mark_sent();
    rx
}

/// Sends every waiting call; their xids.
fn send_waiting(table: &mut CallTable<()>) -> Vec<u32> {
    let mut xids = Vec::new();
    while let Some(c) = table.pop_waiting() {
        c.mark_sent();
        xids.push(c.call.xid);
    }
    xids
}

/// What a driver ticking every second sees of one sent call, retransmitting it whenever the table
/// says so, until `horizon`: (time since submission in s, major timeouts, given up) at each timeout.
fn schedule(p: RetransmitPolicy, horizon: u64) -> Vec<(u64, u64, bool)> {
    let t0 = Instant::now();
    let mut table = CallTable::new(p, Recovery::Retransmit);
    let _rx = send(&mut table, 7, t0);
    let mut seen = Vec::new();
    for s in 1..=horizon {
        let e = table.expire(t0 + secs(s));
        if !(e.requeued || e.major > 0 || !e.failed.is_empty()) {
            continue;
        }
        seen.push((s, e.major, !e.failed.is_empty()));
        if !e.failed.is_empty() {
            break;
        }
        assert_eq!(send_waiting(&mut table), vec![7], "retransmitted with the same xid");
    }
    seen
}

#[test]
fn the_first_timeout_comes_after_timeo_and_each_retry_waits_timeo_longer() {
    // timeo=60s, retrans=2, hard: 60, +120, +180, then a major timeout and the cycle starts over.
    let seen = schedule(policy(60, 2, true), 720);
    let at: Vec<u64> = seen.iter().map(|(t, _, _)| *t).collect();
    assert_eq!(at, [60, 180, 360, 420, 540, 720]);
    let majors: Vec<u64> = seen.iter().map(|(_, m, _)| *m).collect();
    assert_eq!(majors, [0, 0, 1, 0, 0, 1], "a major timeout every retrans + 1 timeouts");
    assert!(seen.iter().all(|(_, _, failed)| !failed), "a hard mount never fails a call");
}

#[test]
fn waits_are_capped_at_600_seconds() {
    let p = policy(200, 10, true);
    assert_eq!(p.timeout(0), secs(200));
    assert_eq!(p.timeout(1), secs(400));
    assert_eq!(p.timeout(2), MAX_TIMEOUT);
    assert_eq!(p.timeout(9), MAX_TIMEOUT);
    let seen = schedule(p, 2400);
    let gaps: Vec<u64> = seen.windows(2).map(|w| w[1].0 - w[0].0).collect();
    assert_eq!(gaps, [400, 600, 600, 600]);
}

#[test]
fn a_soft_mount_fails_the_call_at_its_major_timeout() {
    let t0 = Instant::now();
    let p = policy(1, 2, false);
    let mut table = CallTable::new(p, Recovery::Retransmit);
    let rx = send(&mut table, 9, t0);
    for (at, retransmits) in [(1, true), (3, true)] {
        let e = table.expire(t0 + secs(at));
        assert!(e.requeued == retransmits && e.failed.is_empty() && e.major == 0, "timeout at {at}s");
        assert_eq!(send_waiting(&mut table), vec![9]);
    }
    assert!(table.expire(t0 + secs(5)).failed.is_empty(), "the third wait is 3 s: nothing at 5 s");
    let e = table.expire(t0 + secs(6));
    assert_eq!(e.major, 1);
    let failed: Vec<u32> = e.failed.iter().map(|c| c.call.xid).collect();
    assert_eq!(failed, [9]);
    let error = e.failed[0].timed_out(t0 + secs(6));
    assert!(matches!(error, ClientError::TimedOut { proc: "GETATTR", after } if after == secs(6)), "{error}");
    assert!(table.is_empty(), "given up: out of the table");
    drop(rx);
}

#[test]
fn retrans_zero_makes_every_timeout_a_major_one() {
    let seen = schedule(policy(10, 0, true), 30);
    assert_eq!(seen, [(10, 1, false), (20, 1, false), (30, 1, false)]);
    assert_eq!(schedule(policy(10, 0, false), 30), [(10, 1, true)]);
}

#[test]
fn over_rdma_a_timed_out_sent_call_asks_for_a_new_connection_instead_of_a_resend() {
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(1, 2, true), Recovery::Reconnect);
    let _sent = send(&mut table, 1, t0);
    let (tx, _waiting) = reply_channel();
    table.insert(call(2), tx, (), t0).expect("inserted");
    let e = table.expire(t0 + secs(1));
    assert!(e.reconnect && !e.requeued, "{e:?}");
    let next = table.pop_waiting().map(|c| c.call.xid);
    assert_eq!(next, Some(2), "the sent call is not queued again on the same queue pair");
    table.wait_first(2);
    // The new connection: both wait, oldest first, and the first is a retransmission.
    let mut released = Vec::new();
    table.requeue_all(|c| released.push(c.call.xid));
    assert_eq!(released, [1]);
    let first = table.pop_waiting().expect("waiting");
    assert_eq!(first.call.xid, 1);
    assert!(first.mark_sent(), "sent a second time");
    assert!(!table.pop_waiting().expect("waiting").mark_sent(), "call 2 is sent for the first time");
}

#[test]
fn a_timed_out_call_still_waiting_for_a_credit_asks_for_nothing() {
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(1, 2, false), Recovery::Reconnect);
    let (tx, _rx) = reply_channel();
    table.insert(call(3), tx, (), t0).expect("inserted");
    let e = table.expire(t0 + secs(1));
    assert!(!e.reconnect && !e.requeued && e.failed.is_empty(), "{e:?}");
    // It times out like a sent one, so a soft mount frees a caller behind a server granting no credit.
    assert!(table.expire(t0 + secs(3)).failed.is_empty());
    assert_eq!(table.expire(t0 + secs(6)).failed.len(), 1);
}

#[test]
fn abandoned_calls_are_forgotten_unless_a_sent_one_holds_rdma_resources() {
    let t0 = Instant::now();
    for (recovery, kept) in [(Recovery::Retransmit, 0), (Recovery::Reconnect, 1)] {
        let mut table = CallTable::new(policy(60, 2, true), recovery);
        drop(send(&mut table, 1, t0));
        let (tx, rx) = reply_channel();
        table.insert(call(2), tx, (), t0).expect("inserted");
        drop(rx);
        table.expire(t0);
        assert_eq!(table.len(), kept, "{recovery:?}");
        assert!(!table.has_waiting(), "{recovery:?}: the unsent abandoned call is not sent");
    }
}

#[test]
fn replies_match_by_xid_and_over_rdma_only_calls_sent_on_this_connection() {
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(60, 2, true), Recovery::Retransmit);
    let _a = send(&mut table, 10, t0);
    let (tx, _b) = reply_channel();
    table.insert(call(11), tx, (), t0).expect("inserted");
    assert!(table.take(11, true).is_none(), "not sent yet");
    assert_eq!(table.take(11, false).map(|c| c.call.xid), Some(11));
    assert_eq!(table.take(10, true).map(|c| c.call.xid), Some(10));
    assert!(table.take(10, false).is_none(), "a duplicate reply matches nothing");
    assert!(!table.has_waiting(), "an answered call is not sent");
}

#[test]
fn a_lost_connection_requeues_every_call_in_submission_order() {
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(60, 2, true), Recovery::Retransmit);
    let _r: Vec<ReplyReceiver> = (1..=3).map(|xid| send(&mut table, xid, t0)).collect();
    let (tx, _w) = reply_channel();
    table.insert(call(4), tx, (), t0).expect("inserted");
    table.take(2, false);
    table.requeue_all(|_| {});
    assert_eq!(send_waiting(&mut table), [1, 3, 4]);
}

#[test]
fn duplicate_xids_and_calls_after_close_are_refused() {
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(60, 2, true), Recovery::Retransmit);
    let _r = send(&mut table, 5, t0);
    let (tx, _rx) = reply_channel();
    let refused = table.insert(call(5), tx, (), t0).expect_err("duplicate");
    assert!(matches!(refused.error, ClientError::InvalidArgument { .. }), "{}", refused.error);
    assert_eq!(table.close().len(), 1);
    let (tx, _rx) = reply_channel();
    let refused = table.insert(call(6), tx, (), t0).expect_err("closed");
    assert!(matches!(refused.error, ClientError::Closed { proc: "GETATTR" }));
}

#[test]
fn a_call_not_sent_for_want_of_a_connection_keeps_its_place() {
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(60, 2, true), Recovery::Reconnect);
    let mut receivers = Vec::new();
    for xid in [1, 2] {
        let (tx, rx) = reply_channel();
        table.insert(call(xid), tx, (), t0).expect("inserted");
        receivers.push(rx);
    }
    let xid = table.pop_waiting().expect("waiting").call.xid;
    table.wait_first(xid);
    assert_eq!(send_waiting(&mut table), [1, 2]);
}

#[test]
fn deadlines_are_checked_ten_times_per_timeo_within_bounds() {
    let tick = |ms| RetransmitPolicy { timeo: Duration::from_millis(ms), retrans: 2, hard: true }.tick();
    assert_eq!(tick(100), Duration::from_millis(10));
    assert_eq!(tick(10), Duration::from_millis(5));
    assert_eq!(tick(60_000), secs(1));
}

#[test]
fn a_hard_mount_keeps_going_past_its_major_timeouts_and_says_not_responding_once() {
    use crate::responsiveness::Responsiveness;
    let server = "127.0.0.1:2049".parse().expect("address");
    let t0 = Instant::now();
    let mut table = CallTable::new(policy(1, 1, true), Recovery::Retransmit);
    let _rx = send(&mut table, 4, t0);
    let responsiveness = Responsiveness::default();
    let (mut said, mut majors) = (Vec::new(), Vec::new());
    for s in 1..=10 {
        let e = table.expire(t0 + secs(s));
        assert!(e.failed.is_empty(), "a hard mount fails nothing");
        if e.major > 0 {
            majors.push(s);
        }
        if let Some(notice) = responsiveness.major_timeouts(e.major, server, true) {
            said.push((s, notice.to_string()));
        }
        send_waiting(&mut table);
    }
    // timeo=1s, retrans=1: timeouts at 1, 3 (major), 4, 6 (major), 7, 9 (major).
    assert_eq!(majors, [3, 6, 9]);
    assert_eq!(said, [(3, "nfs: server 127.0.0.1:2049 not responding, still trying".to_string())]);
    assert_eq!(table.len(), 1, "still outstanding");
}
