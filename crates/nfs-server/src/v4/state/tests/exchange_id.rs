//! EXCHANGE_ID's case table (RFC 8881 §18.35.4) and the life of client records.

use super::*;

fn args<'a>(owner: &'a [u8], verifier: u8, principal: Principal, update: bool) -> ExchangeIdArgs<'a> {
    ExchangeIdArgs { owner, verifier: [verifier; 8], update, principal, peer: None }
}

const OTHER: Principal = Principal::Sys { uid: 1000, gid: 1000 };

#[test]
fn a_new_owner_gets_an_unconfirmed_client_id_with_sequence_one() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ok = exchange(&mut st, b"host-a", 1, now);
    assert_eq!((ok.sequenceid, ok.confirmed), (1, false));
    assert_eq!(ok.clientid.epoch(), 7, "the server epoch is in the client id");
    assert_eq!((st.totals().unconfirmed_clients, st.totals().confirmed_clients), (1, 0));
}

#[test]
fn case_2_the_same_owner_verifier_and_principal_get_the_confirmed_record_again() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (client, _) = mount(&mut st, b"host-a", now);
    let again = exchange(&mut st, b"host-a", 1, now);
    assert_eq!((again.clientid, again.confirmed, again.sequenceid), (client, true, 2));
}

#[test]
fn case_3_another_principal_is_refused_while_the_owners_state_lives() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (client, _) = mount(&mut st, b"host-a", now);
    open(&mut st, client, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    assert_eq!(st.exchange_id(&args(b"host-a", 1, OTHER, false), now), Err(StateError::ClidInUse));
}

#[test]
fn case_3_another_principal_gets_a_new_record_when_the_old_one_holds_no_state() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (old, _) = mount(&mut st, b"host-a", now);
    let new = st.exchange_id(&args(b"host-a", 1, OTHER, false), now).expect("collision without state");
    assert!(new.clientid != old && !new.confirmed);
    let create = CreateSessionArgs { principal: OTHER, ..create_args(new.clientid, new.sequenceid, 2) };
    st.create_session(&create, now).expect("confirm");
    assert_eq!(st.destroy_clientid(old), Err(StateError::StaleClientId), "the old record went at confirmation");
}

#[test]
fn case_4_a_new_verifier_replaces_the_record_and_its_state_only_at_confirmation() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (old, _) = mount(&mut st, b"host-a", now);
    open(&mut st, old, b"o", file(1), SHARE_ACCESS_BOTH, SHARE_DENY_BOTH).expect("open");
    let rebooted = exchange(&mut st, b"host-a", 2, now);
    assert!(rebooted.clientid != old && !rebooted.confirmed);
    let (other, _) = mount(&mut st, b"host-b", now);
    assert_eq!(
        open(&mut st, other, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE),
        Err(StateError::ShareDenied),
        "the old incarnation's state stands until the new one is confirmed"
    );
    st.create_session(&create_args(rebooted.clientid, rebooted.sequenceid, 3), now).expect("confirm");
    open(&mut st, other, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("the old state is gone");
    assert_eq!(st.totals().confirmed_clients, 2);
}

#[test]
fn case_5_a_second_exchange_id_replaces_an_unconfirmed_record() {
    let now = Instant::now();
    let mut st = new_state(now);
    let first = exchange(&mut st, b"host-a", 1, now);
    let second = exchange(&mut st, b"host-a", 2, now);
    assert_ne!(first.clientid, second.clientid);
    assert_eq!(st.totals().unconfirmed_clients, 1);
    assert_eq!(
        st.create_session(&create_args(first.clientid, first.sequenceid, 1), now),
        Err(StateError::StaleClientId)
    );
    st.create_session(&create_args(second.clientid, second.sequenceid, 1), now).expect("the new record confirms");
}

#[test]
fn auth_none_and_auth_sys_are_different_principals() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (client, _) = mount(&mut st, b"host-a", now);
    open(&mut st, client, b"o", file(1), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    assert_eq!(st.exchange_id(&args(b"host-a", 1, Principal::None, false), now), Err(StateError::ClidInUse));
}

#[test]
fn updates_need_a_confirmed_record_of_the_same_principal_and_verifier() {
    let now = Instant::now();
    let mut st = new_state(now);
    assert_eq!(st.exchange_id(&args(b"host-a", 1, ROOT, true), now), Err(StateError::NoEnt));
    let (client, _) = mount(&mut st, b"host-a", now);
    assert_eq!(st.exchange_id(&args(b"host-a", 1, OTHER, true), now), Err(StateError::Perm));
    assert_eq!(st.exchange_id(&args(b"host-a", 9, ROOT, true), now), Err(StateError::NotSame));
    let ok = st.exchange_id(&args(b"host-a", 1, ROOT, true), now).expect("update");
    assert_eq!((ok.clientid, ok.confirmed), (client, true));
}

#[test]
fn a_client_id_from_an_earlier_server_instance_is_stale() {
    let now = Instant::now();
    let mut before = new_state(now);
    let ex = exchange(&mut before, b"host-a", 1, now);
    let mut after = V4State::new(StateConfig::default(), 8, now, None);
    exchange(&mut after, b"host-a", 1, now);
    assert_eq!(after.create_session(&create_args(ex.clientid, ex.sequenceid, 1), now), Err(StateError::StaleClientId));
}

#[test]
fn unconfirmed_records_are_bounded_and_the_oldest_goes() {
    let now = Instant::now();
    let mut config = StateConfig::default();
    config.limits.max_unconfirmed_clients = 4;
    let mut st = V4State::new(config, 7, now, None);
    let first = exchange(&mut st, b"owner-0", 1, now);
    for i in 1..100u32 {
        exchange(&mut st, format!("owner-{i}").as_bytes(), 1, now + Duration::from_millis(u64::from(i)));
    }
    assert_eq!(st.totals().unconfirmed_clients, 4);
    assert_eq!(
        st.create_session(&create_args(first.clientid, 1, 1), now),
        Err(StateError::StaleClientId),
        "the oldest was evicted"
    );
}

#[test]
fn an_over_long_owner_is_refused() {
    let now = Instant::now();
    let mut st = new_state(now);
    let long = vec![b'x'; 1025];
    assert!(matches!(st.exchange_id(&args(&long, 1, ROOT, false), now), Err(StateError::Resource(_))));
}

#[test]
fn destroy_clientid_is_refused_while_sessions_exist_and_then_forgets_the_client() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (client, session) = mount(&mut st, b"host-a", now);
    assert_eq!(st.destroy_clientid(client), Err(StateError::ClientIdBusy));
    st.destroy_session(&session, None).expect("destroy session");
    st.destroy_clientid(client).expect("no sessions, no state");
    assert_eq!(st.destroy_clientid(client), Err(StateError::StaleClientId));
    assert_eq!(st.totals().confirmed_clients, 0);
    let unconfirmed = exchange(&mut st, b"host-b", 1, now);
    st.destroy_clientid(unconfirmed.clientid).expect("an unconfirmed record can be destroyed");
    assert_eq!(st.totals().unconfirmed_clients, 0);
}
