//! CREATE_SESSION (RFC 8881 §18.36): the client id's slot, confirmation, channel attributes, binding.

use super::*;

#[test]
fn the_first_create_session_confirms_the_record() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let grant = st.create_session(&create_args(ex.clientid, ex.sequenceid, 1), now).expect("create");
    assert_eq!(grant.sequence, ex.sequenceid);
    assert_eq!((st.totals().confirmed_clients, st.totals().unconfirmed_clients, st.totals().sessions), (1, 0, 1));
    assert!(exchange(&mut st, b"host-a", 1, now).confirmed);
}

#[test]
fn a_replayed_create_session_returns_the_cached_result_without_a_second_session() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let first = st.create_session(&create_args(ex.clientid, ex.sequenceid, 1), now).expect("create");
    let replay = st.create_session(&create_args(ex.clientid, ex.sequenceid, 1), now).expect("replay");
    assert_eq!(first, replay);
    assert_eq!(st.totals().sessions, 1);
    let next = st.create_session(&create_args(ex.clientid, ex.sequenceid + 1, 1), now).expect("next");
    assert_ne!(next.sessionid, first.sessionid);
    assert_eq!(st.totals().sessions, 2);
}

#[test]
fn a_failed_create_session_is_replayed_with_its_error() {
    let now = Instant::now();
    let mut config = StateConfig::default();
    config.limits.max_sessions_per_client = 1;
    let mut st = V4State::new(config, 7, now, None);
    let (client, _) = mount(&mut st, b"host-a", now);
    let refused = st.create_session(&create_args(client, 2, 1), now);
    assert!(matches!(refused, Err(StateError::Resource(_))), "{refused:?}");
    assert_eq!(st.create_session(&create_args(client, 2, 1), now), refused, "the slot caches errors too");
}

#[test]
fn a_misordered_create_session_sequence_is_refused() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    assert_eq!(st.create_session(&create_args(ex.clientid, 5, 1), now), Err(StateError::SeqMisordered));
    assert_eq!(
        st.create_session(&create_args(ex.clientid, ex.sequenceid - 1, 1), now),
        Err(StateError::SeqMisordered),
        "nothing cached yet to replay"
    );
    st.create_session(&create_args(ex.clientid, ex.sequenceid, 1), now).expect("the right one still works");
}

#[test]
fn only_the_principal_that_sent_exchange_id_may_confirm() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let intruder = CreateSessionArgs { principal: Principal::Sys { uid: 5, gid: 5 }, ..create_args(ex.clientid, 1, 1) };
    assert_eq!(st.create_session(&intruder, now), Err(StateError::ClidInUse));
    assert_eq!(st.totals().confirmed_clients, 0);
}

#[test]
fn session_ids_carry_the_epoch_and_differ_across_restarts() {
    let now = Instant::now();
    let mut a = new_state(now);
    let mut b = V4State::new(StateConfig::default(), 8, now, None);
    let (_, first) = mount(&mut a, b"host-a", now);
    let (_, second) = mount(&mut b, b"host-a", now);
    assert_eq!(first.0[..4], 7u32.to_be_bytes());
    assert_ne!(first, second, "the same client, counters and all, gets another id from another instance");
}

#[test]
fn channel_attributes_are_clamped_and_padding_refused() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let greedy = ChannelAttrs { headerpadsize: 64, maxrequestsize: u32::MAX, maxrequests: 10_000, ..fore_attrs() };
    let args = CreateSessionArgs { fore: greedy, ..create_args(ex.clientid, 1, 1) };
    let grant = st.create_session(&args, now).expect("create");
    let limits = ChannelLimits::default();
    assert_eq!(grant.fore.headerpadsize, 0);
    assert_eq!(grant.fore.maxrequestsize, limits.max_request_size);
    assert_eq!(grant.fore.maxrequests, limits.max_requests);
}

#[test]
fn slots_shrink_when_the_reply_cache_budget_is_short_but_never_to_zero() {
    let now = Instant::now();
    let mut config = StateConfig::default();
    config.limits.reply_cache_bytes = 3 * 4096;
    let mut st = V4State::new(config, 7, now, None);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let first = st.create_session(&create_args(ex.clientid, 1, 1), now).expect("create");
    assert_eq!(first.fore.maxrequests, 3, "8 asked, 3 fit the budget");
    let second = st.create_session(&create_args(ex.clientid, 2, 1), now).expect("create");
    assert_eq!(second.fore.maxrequests, 1, "an empty budget still gives one slot");
    st.destroy_session(&first.sessionid, None).expect("destroy");
    assert_eq!(st.totals().reply_cache_bytes, 4096, "the budget is given back");
}

#[test]
fn conn_back_chan_binds_the_connection_both_ways() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let grant = st.create_session(&create_args(ex.clientid, 1, 42), now).expect("create");
    assert_eq!(grant.flags, CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
    let back = st.backchannel(&grant.sessionid).expect("session");
    assert_eq!(back.conns, vec![conn(42)]);
    assert_eq!(back.backchannel.program, 0x4000_0000);
    assert_eq!(back.backchannel.state, BackchannelState::Unknown);
    let flags = CREATE_SESSION4_FLAG_PERSIST | CREATE_SESSION4_FLAG_CONN_RDMA;
    let fore_only = CreateSessionArgs { flags, ..create_args(ex.clientid, 2, 43) };
    let grant: SessionGrant = st.create_session(&fore_only, now).expect("create");
    assert_eq!(grant.flags, 0, "neither PERSIST nor CONN_RDMA is granted");
    let info: BackchannelInfo = st.backchannel(&grant.sessionid).expect("session");
    assert!(info.conns.is_empty());
}

#[test]
fn callbacks_need_auth_none_or_auth_sys() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let gss_only = CreateSessionArgs { cb_security: &[CallbackSecurity::Other(6)], ..create_args(ex.clientid, 1, 1) };
    assert_eq!(st.create_session(&gss_only, now), Err(StateError::EncrAlgUnsupp));
    st.create_session(&create_args(ex.clientid, 1, 1), now).expect("the slot was not used up by the refusal");
}
