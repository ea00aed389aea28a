//! Leases (RFC 8881 §8.3): renewal by SEQUENCE, expiry releasing state.

use super::*;

/// Client A holds a write lock on file 1, bytes 0..100; returns A's client and session, and B's.
fn a_locks_and_b_waits(st: &mut V4State, now: Instant) -> (ClientId, SessionId, ClientId, SessionId) {
    let (a, session_a) = mount(st, b"host-a", now);
    let (b, session_b) = mount(st, b"host-b", now);
    let opened = open(st, a, b"oa", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open");
    lock_new(st, a, file(1), opened.stateid, b"la", LockType::Write, 0, 100, now).expect("lock");
    (a, session_a, b, session_b)
}

fn b_locks(st: &mut V4State, b: ClientId, now: Instant) -> Result<Stateid, StateError> {
    let opened = open(st, b, b"ob", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open");
    lock_new(st, b, file(1), opened.stateid, b"lb", LockType::Write, 50, 10, now)
}

#[test]
fn an_expired_clients_locks_are_released_so_another_clients_lock_succeeds() {
    let t0 = Instant::now();
    let mut st = new_state(t0);
    let (a, _, b, session_b) = a_locks_and_b_waits(&mut st, t0);
    let conflict = denied(b_locks(&mut st, b, t0));
    assert_eq!(conflict.owner.clientid, a);
    // B keeps renewing; A falls silent for longer than a lease.
    execute_ok(&mut st, session_b, 0, 1, t0 + secs(60));
    let report = st.tick(t0 + secs(91));
    assert_eq!(report, TickReport { expired: vec![a], grace_ended: false });
    assert_eq!(st.totals().locks, 0);
    b_locks(&mut st, b, t0 + secs(92)).expect("A's lock is gone");
}

#[test]
fn a_lapsed_clients_lock_gives_way_without_waiting_for_a_tick() {
    let t0 = Instant::now();
    let mut st = new_state(t0);
    let (_, _, b, session_b) = a_locks_and_b_waits(&mut st, t0);
    execute_ok(&mut st, session_b, 0, 1, t0 + secs(60));
    execute_ok(&mut st, session_b, 0, 2, t0 + secs(95));
    b_locks(&mut st, b, t0 + secs(95)).expect("A's lease ran out: its lock gives way");
    assert_eq!(st.totals().confirmed_clients, 1);
}

#[test]
fn sequence_renews_the_lease() {
    let t0 = Instant::now();
    let mut st = new_state(t0);
    assert_eq!((st.lease_seconds(), st.config().lease), (90, secs(90)), "knfsd's default");
    let (a, session_a, _, _) = a_locks_and_b_waits(&mut st, t0);
    for (i, t) in [60, 120, 180].into_iter().enumerate() {
        execute_ok(&mut st, session_a, 0, i as u32 + 1, t0 + secs(t));
    }
    assert!(st.tick(t0 + secs(240)).expired.iter().all(|c| *c != a), "renewed at 180 s, good until 270 s");
    assert_eq!(st.tick(t0 + secs(271)).expired, vec![a]);
}

#[test]
fn an_expired_client_gets_badsession_then_stale_clientid() {
    let t0 = Instant::now();
    let mut st = new_state(t0);
    let (a, session_a, _, _) = a_locks_and_b_waits(&mut st, t0);
    let later = t0 + secs(100);
    assert_eq!(sequence(&mut st, session_a, 0, 1, later), Err(StateError::BadSession));
    assert_eq!(st.create_session(&create_args(a, 2, 1), later), Err(StateError::StaleClientId));
    assert_eq!(st.totals().locks, 0, "its state went with it");
    let again = exchange(&mut st, b"host-a", 1, later);
    assert!(!again.confirmed && again.clientid != a, "it starts over with a new client id");
}

#[test]
fn unconfirmed_records_expire_after_a_lease() {
    let t0 = Instant::now();
    let mut st = new_state(t0);
    let ex = exchange(&mut st, b"host-a", 1, t0);
    assert!(st.tick(t0 + secs(30)).expired.is_empty());
    assert_eq!(st.tick(t0 + secs(91)).expired, vec![ex.clientid]);
    assert_eq!(st.totals().unconfirmed_clients, 0);
}

fn execute_ok(st: &mut V4State, session: SessionId, slot: u32, seqid: u32, now: Instant) {
    match sequence(st, session, slot, seqid, now) {
        Ok(Sequenced::Execute(_)) => st.sequence_done(&session, slot, b"r").expect("done"),
        other => panic!("SEQUENCE: {other:?}"),
    }
}
