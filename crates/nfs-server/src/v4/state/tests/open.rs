//! OPEN, OPEN_DOWNGRADE, CLOSE and share reservations (RFC 8881 §9.7, §18.16, §18.18, §18.2).

use super::*;

#[test]
fn opens_by_one_owner_of_one_file_share_a_stateid_whose_seqid_grows() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let first = open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    let second = open(&mut st, a, b"o", file(1), SHARE_ACCESS_WRITE, SHARE_DENY_WRITE).expect("open");
    assert_eq!(first.stateid.other, second.stateid.other);
    assert_eq!((first.stateid.seqid, second.stateid.seqid), (1, 2));
    assert_eq!((second.access, second.deny), (SHARE_ACCESS_BOTH, SHARE_DENY_WRITE), "modes accumulate");
    let other_owner = open(&mut st, a, b"p", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    assert_ne!(other_owner.stateid.other, first.stateid.other, "another owner, another stateid");
    assert_eq!(st.totals().stateids, 2);
}

#[test]
fn share_reservations_deny_other_clients_and_owners() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_WRITE).expect("open");
    assert_eq!(open(&mut st, b, b"o", file(1), SHARE_ACCESS_WRITE, SHARE_DENY_NONE), Err(StateError::ShareDenied));
    assert_eq!(open(&mut st, a, b"p", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE), Err(StateError::ShareDenied));
    assert_eq!(
        open(&mut st, b, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_READ),
        Err(StateError::ShareDenied),
        "denying what someone already has"
    );
    open(&mut st, b, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("reading is not denied");
    open(&mut st, b, b"o", file(2), SHARE_ACCESS_WRITE, SHARE_DENY_BOTH).expect("another file is free");
}

#[test]
fn an_owner_upgrading_its_open_is_not_denied_by_itself() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_BOTH).expect("open");
    let up = open(&mut st, a, b"o", file(1), SHARE_ACCESS_WRITE, SHARE_DENY_NONE).expect("upgrade");
    assert_eq!((up.access, up.deny), (SHARE_ACCESS_BOTH, SHARE_DENY_BOTH));
}

#[test]
fn share_values_outside_the_rfc_are_invalid() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    assert!(matches!(open(&mut st, a, b"o", file(1), 0, 0), Err(StateError::Inval(_))));
    assert!(matches!(open(&mut st, a, b"o", file(1), 4, 0), Err(StateError::Inval(_))));
    assert!(matches!(open(&mut st, a, b"o", file(1), 1, 4), Err(StateError::Inval(_))));
    assert_eq!(st.totals().owners, 0, "nothing was made for a refused OPEN");
}

#[test]
fn open_downgrade_goes_only_to_a_union_of_modes_that_were_opened() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    let both = open(&mut st, a, b"o", file(1), SHARE_ACCESS_WRITE, SHARE_DENY_WRITE).expect("open");
    let down = |st: &mut V4State, access, deny| st.open_downgrade(a, file(1), &both.stateid, access, deny);
    assert!(matches!(down(&mut st, SHARE_ACCESS_READ, SHARE_DENY_WRITE), Err(StateError::Inval(_))), "never opened so");
    assert!(matches!(down(&mut st, SHARE_ACCESS_WRITE, SHARE_DENY_NONE), Err(StateError::Inval(_))));
    let read_only = down(&mut st, SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("back to the first OPEN's modes");
    assert_eq!(read_only.seqid, 3);
    open(&mut st, b, b"o", file(1), SHARE_ACCESS_WRITE, SHARE_DENY_NONE).expect("the deny went with the downgrade");
    assert!(
        matches!(
            st.open_downgrade(a, file(1), &read_only, SHARE_ACCESS_BOTH, SHARE_DENY_NONE),
            Err(StateError::Inval(_))
        ),
        "a downgrade cannot upgrade"
    );
    assert_eq!(
        st.open_downgrade(a, file(1), &both.stateid, SHARE_ACCESS_READ, SHARE_DENY_NONE),
        Err(StateError::OldStateId)
    );
}

#[test]
fn close_releases_the_reservation_and_the_stateid() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let (b, _) = mount(&mut st, b"host-b", now);
    let opened = open(&mut st, a, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_BOTH).expect("open");
    assert_eq!(st.close(a, file(2), &opened.stateid), Err(StateError::BadStateId), "another file's stateid");
    assert_eq!(st.close(a, file(1), &opened.stateid), Ok(Stateid::INVALID));
    assert_eq!(st.close(a, file(1), &opened.stateid), Err(StateError::BadStateId), "closed already");
    open(&mut st, b, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("free again");
    assert_eq!((st.totals().stateids, st.totals().owners, st.totals().files), (1, 1, 1));
}

#[test]
fn close_with_locks_held_is_refused_and_after_unlocking_takes_the_lock_stateid_along() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (a, _) = mount(&mut st, b"host-a", now);
    let opened = open(&mut st, a, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_NONE).expect("open");
    let locked = lock_new(&mut st, a, file(1), opened.stateid, b"l", LockType::Write, 0, 10, now).expect("lock");
    assert_eq!(st.close(a, file(1), &opened.stateid), Err(StateError::LocksHeld));
    let unlocked = st.locku(a, file(1), &locked, 0, 10).expect("unlock");
    st.close(a, file(1), &opened.stateid).expect("close");
    assert_eq!(st.test_stateids(a, &[unlocked]), vec![Err(StateError::BadStateId)], "the lock stateid went too");
    assert_eq!(
        st.totals(),
        Totals { confirmed_clients: 1, sessions: 1, reply_cache_bytes: 8 * 4096, ..Totals::default() }
    );
}
