//! The caps against hostile clients: RESOURCE past each, other clients unaffected, memory-relevant counts
//! staying at the caps.

use super::*;

fn capped(f: impl FnOnce(&mut StateLimits)) -> V4State {
    let mut config = StateConfig::default();
    f(&mut config.limits);
    V4State::new(config, 7, Instant::now(), None)
}

fn resource<T: std::fmt::Debug>(result: Result<T, StateError>) -> bool {
    matches!(result, Err(StateError::Resource(_)))
}

#[test]
fn a_client_opening_two_hundred_thousand_files_stays_at_its_cap_and_another_client_still_opens() {
    let now = Instant::now();
    let mut st = capped(|l| l.max_stateids_per_client = 10_000);
    let (hostile, _) = mount(&mut st, b"hostile", now);
    let (good, _) = mount(&mut st, b"good", now);
    let mut refused = 0;
    for n in 0..200_000u64 {
        match open(&mut st, hostile, b"o", file(n), SHARE_ACCESS_READ, SHARE_DENY_NONE) {
            Ok(_) => {}
            Err(StateError::Resource(_)) => refused += 1,
            Err(other) => panic!("open {n}: {other:?}"),
        }
    }
    assert_eq!(refused, 190_000);
    let totals = st.totals();
    assert_eq!((totals.stateids, totals.files, totals.owners), (10_000, 10_000, 1));
    open(&mut st, good, b"o", file(1_000_000), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("the good client opens");
    open(&mut st, good, b"o", file(5), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("even a file the other holds");
}

#[test]
fn open_owners_are_capped_per_client_and_in_total() {
    let now = Instant::now();
    let mut st = capped(|l| {
        l.max_open_owners_per_client = 100;
        l.max_owners_total = 150;
    });
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    for n in 0..100u64 {
        open(&mut st, a, format!("owner-{n}").as_bytes(), file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    }
    assert!(resource(open(&mut st, a, b"one more", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE)));
    open(&mut st, a, b"owner-7", file(2), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("a known owner opens more");
    for n in 0..50u64 {
        open(&mut st, b, format!("owner-{n}").as_bytes(), file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    }
    assert!(resource(open(&mut st, b, b"over the total", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE)));
    assert_eq!(st.totals().owners, 150);
}

#[test]
fn lock_owners_and_locked_ranges_are_capped_per_client() {
    let now = Instant::now();
    let mut st = capped(|l| {
        l.max_lock_owners_per_client = 10;
        l.max_locks_per_client = 100;
    });
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    let oa = open(&mut st, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    for n in 0..10u64 {
        lock_new(&mut st, a, file(1), oa, format!("l{n}").as_bytes(), LockType::Read, n * 10, 1, now).expect("lock");
    }
    assert!(resource(lock_new(&mut st, a, file(1), oa, b"eleventh", LockType::Read, 500, 1, now)));
    let mut la = lock_new(&mut st, a, file(1), oa, b"l0", LockType::Read, 1000, 1, now).expect("a known owner");
    for n in 0..89u64 {
        la = lock_more(&mut st, a, file(1), la, LockType::Read, 2000 + n * 2, 1).expect("lock");
    }
    assert_eq!(st.totals().locks, 100);
    assert!(resource(lock_more(&mut st, a, file(1), la, LockType::Read, 9000, 1)));
    la = lock_more(&mut st, a, file(1), la, LockType::Read, 2001, 1).expect("merging three ranges needs no room");
    assert_eq!(st.totals().locks, 99);
    la = lock_more(&mut st, a, file(1), la, LockType::Read, 9000, 2).expect("room for one");
    assert!(resource(st.locku(a, file(1), &la, 2001, 1)), "splitting 2000..=2002 would pass the cap");
    la = st.locku(a, file(1), &la, 9001, 1).expect("trimming the end of a range needs no room");
    st.locku(a, file(1), &la, 2000, 10_000).expect("unlocking a span frees its ranges");
    assert_eq!(st.totals().locks, 11);
    let ob = open(&mut st, b, b"o", file(2), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    lock_new(&mut st, b, file(2), ob, b"l", LockType::Write, 0, 1, now).expect("another client still locks");
}

#[test]
fn sessions_and_clients_are_capped() {
    let now = Instant::now();
    let mut st = capped(|l| {
        l.max_clients = 2;
        l.max_sessions_per_client = 2;
    });
    let (a, _) = mount(&mut st, b"host-a", now);
    st.create_session(&create_args(a, 2, 1), now).expect("second session");
    assert!(resource(st.create_session(&create_args(a, 3, 1), now)));
    let (b, _) = mount(&mut st, b"host-b", now);
    for client in [a, b] {
        open(&mut st, client, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    }
    let args = ExchangeIdArgs { owner: b"host-c", verifier: [1; 8], update: false, principal: ROOT, peer: None };
    assert!(resource(st.exchange_id(&args, now)), "a third owner cannot take the place of clients with state");
    let rebooted = exchange(&mut st, b"host-a", 2, now);
    st.create_session(&create_args(rebooted.clientid, rebooted.sequenceid, 1), now)
        .expect("a reboot replaces a record");
    assert_eq!(st.totals().confirmed_clients, 2);
    let later = now + secs(200);
    assert!(st.exchange_id(&args, later).is_ok(), "lapsed clients make room");
}

#[test]
fn over_long_owners_are_refused() {
    let now = Instant::now();
    let mut st = capped(|l| l.max_owner_len = 64);
    let (a, _) = mount(&mut st, b"host-a", now);
    assert!(resource(open(&mut st, a, &[7; 65], file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE)));
    let oa = open(&mut st, a, &[7; 64], file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    assert!(resource(lock_new(&mut st, a, file(1), oa, &[1; 65], LockType::Read, 0, 1, now)));
    assert_eq!(st.totals().owners, 1);
}
