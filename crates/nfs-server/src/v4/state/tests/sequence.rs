//! SEQUENCE and the slot table (RFC 8881 §2.10.6.1, §18.46), connections and status flags.

use super::*;

fn execute(result: Result<Sequenced, StateError>) -> SequenceOk {
    match result {
        Ok(Sequenced::Execute(ok)) => ok,
        other => panic!("expected a new request, got {other:?}"),
    }
}

#[test]
fn a_new_request_needs_the_next_sequence_id_and_reports_the_slots() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (client, session) = mount(&mut st, b"host-a", now);
    let ok = execute(sequence(&mut st, session, 3, 1, now));
    assert_eq!((ok.clientid, ok.slotid, ok.highest_slotid, ok.target_highest_slotid), (client, 3, 7, 7));
    assert_eq!(ok.cache_limit, Some(4096));
    st.sequence_done(&session, 3, b"reply 1").expect("done");
    execute(sequence(&mut st, session, 3, 2, now));
}

#[test]
fn a_replayed_slot_returns_the_cached_reply() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    execute(sequence(&mut st, session, 0, 1, now));
    st.sequence_done(&session, 0, b"compound reply body").expect("done");
    assert_eq!(sequence(&mut st, session, 0, 1, now), Ok(Sequenced::Replay(b"compound reply body".to_vec())));
    assert_eq!(sequence(&mut st, session, 0, 1, now), Ok(Sequenced::Replay(b"compound reply body".to_vec())));
}

#[test]
fn a_retry_of_a_reply_that_was_not_cached_is_refused() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    let args = SequenceArgs {
        sessionid: session,
        sequenceid: 1,
        slotid: 0,
        highest_slotid: 0,
        cachethis: false,
        ops: 2,
        request_len: 200,
    };
    let ok = execute(st.sequence(&args, conn(1), now));
    assert_eq!(ok.cache_limit, None);
    st.sequence_done(&session, 0, b"not kept").expect("done");
    assert_eq!(st.sequence(&args, conn(1), now), Err(StateError::RetryUncachedRep));
}

#[test]
fn a_retry_while_the_request_executes_gets_delay_and_another_seqid_is_misordered() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    execute(sequence(&mut st, session, 0, 1, now));
    assert_eq!(sequence(&mut st, session, 0, 1, now), Err(StateError::Delay));
    assert_eq!(sequence(&mut st, session, 0, 2, now), Err(StateError::SeqMisordered));
    execute(sequence(&mut st, session, 1, 1, now));
    st.sequence_done(&session, 0, b"r").expect("done");
    execute(sequence(&mut st, session, 0, 2, now));
}

#[test]
fn sequence_ids_other_than_the_last_or_the_next_are_misordered() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    assert_eq!(sequence(&mut st, session, 0, 0, now), Err(StateError::SeqMisordered), "a fresh slot has no reply");
    assert_eq!(sequence(&mut st, session, 0, 2, now), Err(StateError::SeqMisordered));
    execute(sequence(&mut st, session, 0, 1, now));
    st.sequence_done(&session, 0, b"r").expect("done");
    assert_eq!(sequence(&mut st, session, 0, 3, now), Err(StateError::SeqMisordered));
    assert_eq!(sequence(&mut st, session, 0, u32::MAX, now), Err(StateError::SeqMisordered));
}

#[test]
fn a_slot_above_the_highest_is_badslot_and_an_unknown_session_badsession() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    assert_eq!(sequence(&mut st, session, 8, 1, now), Err(StateError::BadSlot));
    assert_eq!(sequence(&mut st, session, u32::MAX, 1, now), Err(StateError::BadSlot));
    assert_eq!(sequence(&mut st, SessionId([9; 16]), 0, 1, now), Err(StateError::BadSession));
}

#[test]
fn a_reply_too_big_to_cache_is_not_kept() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    execute(sequence(&mut st, session, 0, 1, now));
    assert_eq!(st.sequence_done(&session, 0, &[0u8; 4097]), Err(StateError::RepTooBigToCache));
    assert_eq!(sequence(&mut st, session, 0, 1, now), Err(StateError::RetryUncachedRep));
    execute(sequence(&mut st, session, 0, 2, now));
    st.sequence_done(&session, 0, &[0u8; 4096]).expect("exactly the limit fits");
    assert!(matches!(sequence(&mut st, session, 0, 2, now), Ok(Sequenced::Replay(r)) if r.len() == 4096));
}

#[test]
fn destroy_session_waits_for_other_slots_and_then_forgets_the_session() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    execute(sequence(&mut st, session, 0, 1, now));
    execute(sequence(&mut st, session, 1, 1, now));
    assert_eq!(st.destroy_session(&session, Some(0)), Err(StateError::Delay), "slot 1 still executes");
    st.sequence_done(&session, 1, b"r").expect("done");
    st.destroy_session(&session, Some(0)).expect("only its own slot is busy");
    st.sequence_done(&session, 0, b"r").expect("finishing on a destroyed session is no error");
    assert_eq!(sequence(&mut st, session, 2, 1, now), Err(StateError::BadSession));
    assert_eq!(st.destroy_session(&session, None), Err(StateError::BadSession));
    assert_eq!((st.totals().sessions, st.totals().reply_cache_bytes), (0, 0));
}

#[test]
fn status_flags_say_when_no_back_channel_is_usable() {
    let now = Instant::now();
    let mut st = new_state(now);
    let ex = exchange(&mut st, b"host-a", 1, now);
    let with_back = st.create_session(&create_args(ex.clientid, 1, 1), now).expect("create").sessionid;
    let fore_only = CreateSessionArgs { flags: 0, ..create_args(ex.clientid, 2, 2) };
    let without = st.create_session(&fore_only, now).expect("create").sessionid;
    assert_eq!(execute(sequence(&mut st, with_back, 0, 1, now)).status_flags, 0, "unprobed counts as up");
    assert_eq!(execute(sequence(&mut st, without, 0, 1, now)).status_flags, SEQ4_STATUS_CB_PATH_DOWN_SESSION);
    st.set_backchannel(&with_back, false);
    assert_eq!(
        execute(sequence(&mut st, with_back, 1, 1, now)).status_flags,
        SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN,
        "the probe failed and no other session has a back channel"
    );
    let fore = st.bind_conn_to_session(&without, conn(2), ChannelDir::ForeOrBoth, now).expect("bind");
    assert_eq!(fore.dir, BoundDir::Both, "either way is granted as both");
    st.set_backchannel(&without, false);
    let bound = st.bind_conn_to_session(&without, conn(2), ChannelDir::BackOrBoth, now).expect("bind");
    assert_eq!(bound, BindOk { dir: BoundDir::Both, probe_backchannel: true });
    assert_eq!(execute(sequence(&mut st, with_back, 2, 1, now)).status_flags, SEQ4_STATUS_CB_PATH_DOWN_SESSION);
    st.connection_closed(conn(2));
    assert_eq!(
        execute(sequence(&mut st, without, 1, 1, now)).status_flags,
        SEQ4_STATUS_CB_PATH_DOWN_SESSION | SEQ4_STATUS_CB_PATH_DOWN,
        "its only back connection closed"
    );
}

#[test]
fn sequence_binds_a_new_connection_to_the_fore_channel_within_the_cap() {
    let now = Instant::now();
    let mut config = StateConfig::default();
    config.limits.max_connections_per_session = 2;
    let mut st = V4State::new(config, 7, now, None);
    let (_, session) = mount(&mut st, b"host-a", now);
    let args = SequenceArgs {
        sessionid: session,
        sequenceid: 1,
        slotid: 0,
        highest_slotid: 0,
        cachethis: false,
        ops: 2,
        request_len: 200,
    };
    execute(st.sequence(&args, conn(500), now));
    let back = st.bind_conn_to_session(&session, conn(501), ChannelDir::Back, now);
    assert!(matches!(back, Err(StateError::Resource(_))), "{back:?}");
    let rebind = st.bind_conn_to_session(&session, conn(500), ChannelDir::Fore, now).expect("a bound one rebinds");
    assert_eq!(rebind, BindOk { dir: BoundDir::Fore, probe_backchannel: false });
    assert_eq!(
        st.bind_conn_to_session(&SessionId([0; 16]), conn(1), ChannelDir::Fore, now),
        Err(StateError::BadSession)
    );
}

#[test]
fn backchannel_ctl_changes_program_and_security() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    st.backchannel_ctl(&session, 7, &[CallbackSecurity::None]).expect("ctl");
    let info = st.backchannel(&session).expect("session");
    assert_eq!((info.backchannel.program, info.backchannel.security), (7, CallbackSecurity::None));
    assert_eq!(st.backchannel_ctl(&session, 7, &[CallbackSecurity::Other(6)]), Err(StateError::EncrAlgUnsupp));
}

#[test]
fn a_compound_past_the_fore_channel_limits_is_refused_before_its_slot_is_looked_at() {
    let now = Instant::now();
    let mut st = new_state(now);
    let (_, session) = mount(&mut st, b"host-a", now);
    let args = |ops, request_len| SequenceArgs {
        sessionid: session,
        sequenceid: 1,
        slotid: 0,
        highest_slotid: 0,
        cachethis: false,
        ops,
        request_len,
    };
    // fore_attrs(): 16 operations, 1 MiB requests.
    assert_eq!(st.sequence(&args(17, 200), conn(1), now), Ok(Sequenced::Refused(ForeLimit::TooManyOps)));
    assert_eq!(st.sequence(&args(2, (1 << 20) + 1), conn(1), now), Ok(Sequenced::Refused(ForeLimit::ReqTooBig)));
    // The slot still expects sequence id 1.
    let ok = execute(st.sequence(&args(16, 1 << 20), conn(1), now));
    assert_eq!((ok.sequenceid, ok.max_response), (1, fore_attrs().maxresponsesize));
}
