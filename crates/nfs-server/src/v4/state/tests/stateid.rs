//! Stateid checks for I/O, TEST_STATEID and FREE_STATEID (RFC 8881 §8.2, §18.38, §18.48).

use super::*;

fn check(st: &mut V4State, client: ClientId, f: FileKey, stateid: &Stateid, io: IoAccess) -> Result<(), StateError> {
    st.check_io(client, f, stateid, io, Instant::now())
}

#[test]
fn special_stateids_anonymous_and_bypass_pass_the_others_are_bad() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    check(&mut st, a, file(1), &Stateid::ANONYMOUS, IoAccess::Write).expect("anonymous");
    check(&mut st, a, file(1), &Stateid::BYPASS, IoAccess::Read).expect("bypass");
    let unresolved_current = check(&mut st, a, file(1), &Stateid::CURRENT, IoAccess::Read);
    assert_eq!(unresolved_current, Err(StateError::BadStateId), "the dispatch resolves the current stateid");
    assert_eq!(check(&mut st, a, file(1), &Stateid::INVALID, IoAccess::Read), Err(StateError::BadStateId));
    let odd = Stateid { seqid: 5, other: [0xff; 12] };
    assert_eq!(check(&mut st, a, file(1), &odd, IoAccess::Read), Err(StateError::BadStateId));
}

#[test]
fn anonymous_io_is_locked_out_by_a_deny_reservation() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_WRITE).expect("open");
    assert_eq!(check(&mut st, b, file(1), &Stateid::ANONYMOUS, IoAccess::Write), Err(StateError::Locked));
    assert_eq!(check(&mut st, b, file(1), &Stateid::BYPASS, IoAccess::Write), Err(StateError::Locked));
    check(&mut st, b, file(1), &Stateid::ANONYMOUS, IoAccess::Read).expect("reads are not denied");
}

#[test]
fn writing_through_a_read_only_open_is_openmode_and_reading_through_any_open_is_allowed() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let ro = open(&mut st, a, b"r", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    let wo = open(&mut st, a, b"w", file(1), SHARE_ACCESS_WRITE, SHARE_DENY_NONE).expect("open");
    assert_eq!(check(&mut st, a, file(1), &ro.stateid, IoAccess::Write), Err(StateError::OpenMode));
    check(&mut st, a, file(1), &ro.stateid, IoAccess::Read).expect("read");
    check(&mut st, a, file(1), &wo.stateid, IoAccess::Write).expect("write");
    check(&mut st, a, file(1), &wo.stateid, IoAccess::Read).expect("a write-only open may read (partial pages)");
}

#[test]
fn a_lock_stateid_carries_the_mode_of_its_open() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let ro = open(&mut st, a, b"r", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    let lock = lock_new(&mut st, a, file(1), ro.stateid, b"l", LockType::Read, 0, 1, now).expect("lock");
    check(&mut st, a, file(1), &lock, IoAccess::Read).expect("read under the lock stateid");
    assert_eq!(check(&mut st, a, file(1), &lock, IoAccess::Write), Err(StateError::OpenMode));
}

#[test]
fn seqid_zero_means_current_an_older_one_is_old_and_a_newer_one_bad() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let first = open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open").stateid;
    let second = open(&mut st, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    let zero = Stateid { seqid: 0, ..first };
    let newer = Stateid { seqid: 3, ..first };
    assert_eq!(
        st.test_stateids(a, &[second, zero, first, newer]),
        vec![Ok(()), Ok(()), Err(StateError::OldStateId), Err(StateError::BadStateId)]
    );
    assert_eq!(check(&mut st, a, file(1), &first, IoAccess::Read), Err(StateError::OldStateId));
}

#[test]
fn a_stateid_is_good_only_for_its_client_its_file_and_this_server_instance() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    let opened = open(&mut st, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    assert_eq!(check(&mut st, b, file(1), &opened, IoAccess::Read), Err(StateError::BadStateId), "another client's");
    assert_eq!(check(&mut st, a, file(2), &opened, IoAccess::Read), Err(StateError::BadStateId), "another file");
    let mut earlier = opened;
    earlier.other[..4].copy_from_slice(&6u32.to_be_bytes());
    assert_eq!(check(&mut st, a, file(1), &earlier, IoAccess::Read), Err(StateError::BadStateId));
    assert_eq!(st.test_stateids(b, &[opened]), vec![Err(StateError::BadStateId)]);
}

#[test]
fn free_stateid_frees_only_a_lock_stateid_without_locks() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let opened = open(&mut st, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    let locked = lock_new(&mut st, a, file(1), opened, b"l", LockType::Write, 0, 10, now).expect("lock");
    assert_eq!(st.free_stateid(a, &opened), Err(StateError::LocksHeld), "an open stateid is not freed");
    assert_eq!(st.free_stateid(a, &locked), Err(StateError::LocksHeld));
    st.locku(a, file(1), &locked, 0, 10).expect("unlock");
    st.free_stateid(a, &locked).expect("no locks left");
    assert_eq!(st.free_stateid(a, &locked), Err(StateError::BadStateId));
    assert_eq!((st.totals().stateids, st.totals().owners), (1, 1), "the lock-owner went with its last stateid");
    st.close(a, file(1), &opened).expect("close");
}

/// RFC 8881 §15.1.16.5: NFS4ERR_STALE_STATEID "MUST NOT be generated by any NFSv4.1 operation" — a
/// restart shows first as BADSESSION on SEQUENCE — so a stateid an earlier instance issued is
/// NFS4ERR_BAD_STATEID on every path that takes one (knfsd alike for sessions, nfsd4_lookup_stateid since
/// Linux commit a8a7c677). Its serial here is one the new instance has issued too: only the epoch tells
/// them apart.
#[test]
fn a_stateid_from_an_earlier_server_instance_is_bad_on_every_path_never_stale() {
    let now = Instant::now();
    let mut before = new_state(now);
    let (a, _) = mount(&mut before, b"host-a", now);
    let old_open = open(&mut before, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    let old_lock = lock_new(&mut before, a, file(1), old_open, b"l", LockType::Write, 0, 10, now).expect("lock");

    let mut st = V4State::new(StateConfig::default(), 8, now, None);
    let (a, _) = mount(&mut st, b"host-a", now);
    let opened = open(&mut st, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open").stateid;
    let locked = lock_new(&mut st, a, file(1), opened, b"l", LockType::Write, 20, 10, now).expect("lock");
    assert_eq!((&old_open.other[4..], &old_lock.other[4..]), (&opened.other[4..], &locked.other[4..]), "same serials");
    assert_ne!(&old_open.other[..4], &opened.other[..4], "another epoch");

    let bad = Err(StateError::BadStateId);
    for stateid in [old_open, Stateid { seqid: 0, ..old_open }, old_lock] {
        assert_eq!(check(&mut st, a, file(1), &stateid, IoAccess::Read), bad, "READ under {stateid:?}");
        assert_eq!(check(&mut st, a, file(1), &stateid, IoAccess::Write), bad, "WRITE under {stateid:?}");
        assert_eq!(st.test_stateids(a, &[stateid]), vec![bad.clone()]);
        assert_eq!(st.free_stateid(a, &stateid), bad);
        assert_eq!(st.locku(a, file(1), &stateid, 20, 10).map(|_| ()), bad);
        assert_eq!(lock_more(&mut st, a, file(1), stateid, LockType::Write, 40, 1).map(|_| ()), bad);
        assert_eq!(lock_new(&mut st, a, file(1), stateid, b"m", LockType::Write, 40, 1, now).map(|_| ()), bad);
        let downgraded = st.open_downgrade(a, file(1), &stateid, SHARE_ACCESS_BOTH, SHARE_DENY_NONE);
        assert_eq!(downgraded.map(|_| ()), bad);
        assert_eq!(st.close(a, file(1), &stateid).map(|_| ()), bad);
    }
    // Nothing of this instance's was touched: its open and its lock are as they were.
    assert_eq!(st.test_stateids(a, &[opened, locked]), vec![Ok(()), Ok(())]);
    assert_eq!((st.totals().stateids, st.totals().locks), (2, 1));
}
