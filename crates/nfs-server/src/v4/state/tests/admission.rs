//! Room for client records (`admission.rs`, the rule in `config.rs`): a peer hoarding client ids stays at
//! its cap and churns its own records, new clients of other peers are confirmed, records holding state are
//! never taken while their lease lives, and a full table takes from the largest peer only.

use std::net::SocketAddr;

use super::*;

fn limits(max_clients: usize, max_clients_per_peer: usize) -> V4State {
    let mut config = StateConfig::default();
    config.limits.max_clients = max_clients;
    config.limits.max_clients_per_peer = max_clients_per_peer;
    V4State::new(config, 7, Instant::now(), None)
}

fn peer(n: u8) -> Option<SocketAddr> {
    Some(SocketAddr::from(([192, 0, 2, n], 700)))
}

/// EXCHANGE_ID and CREATE_SESSION of `owner` from `from`: the client and its session.
fn confirm(
    st: &mut V4State,
    owner: &str,
    from: Option<SocketAddr>,
    now: Instant,
) -> Result<(ClientId, SessionId), StateError> {
    let args = ExchangeIdArgs { owner: owner.as_bytes(), verifier: [1; 8], update: false, principal: ROOT, peer: from };
    let ex = st.exchange_id(&args, now)?;
    let grant = st.create_session(&create_args(ex.clientid, ex.sequenceid, 1), now)?;
    Ok((ex.clientid, grant.sessionid))
}

fn works(st: &mut V4State, session: SessionId, seqid: u32, now: Instant) -> bool {
    let ok = matches!(sequence(st, session, 0, seqid, now), Ok(Sequenced::Execute(_)));
    if ok {
        st.sequence_done(&session, 0, b"r").expect("done");
    }
    ok
}

#[test]
fn a_peer_confirming_client_ids_without_end_stays_at_its_cap_and_other_peers_still_mount() {
    let now = Instant::now();
    let mut st = limits(64, 16);
    let (early, early_session) = confirm(&mut st, "a client of peer 2", peer(2), now).expect("mount");
    for n in 0..10_000 {
        confirm(&mut st, &format!("hoarded {n}"), peer(1), now).expect("the hoarder churns its own records");
    }
    assert_eq!(st.totals().confirmed_clients, 17, "16 of the hoarder's and the early client");
    assert!(works(&mut st, early_session, 1, now), "another peer's client keeps its record");
    for p in 3..50 {
        confirm(&mut st, &format!("a client of peer {p}"), peer(p), now).expect("new peers mount");
    }
    assert_eq!(st.destroy_clientid(early), Err(StateError::ClientIdBusy), "the early client is still there");
}

#[test]
fn a_client_sharing_the_hoarders_peer_that_has_sent_a_sequence_outlives_the_never_used_records() {
    let now = Instant::now();
    let mut st = limits(1024, 16);
    for n in 0..100 {
        confirm(&mut st, &format!("hoarded {n}"), peer(1), now).expect("hoard");
    }
    let (_, session) = confirm(&mut st, "a neighbour", peer(1), now).expect("the neighbour mounts at the cap");
    assert!(works(&mut st, session, 1, now));
    for n in 100..10_000 {
        confirm(&mut st, &format!("hoarded {n}"), peer(1), now + secs(1)).expect("hoard");
    }
    assert!(works(&mut st, session, 2, now + secs(1)), "the hoarder's never-used records went first");
}

#[test]
fn records_holding_state_are_not_taken_while_their_lease_lives() {
    let now = Instant::now();
    let mut st = limits(1024, 4);
    for n in 0..4u64 {
        let (client, _) = confirm(&mut st, &format!("holder {n}"), peer(1), now).expect("mount");
        open(&mut st, client, b"o", file(n), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    }
    let refused = confirm(&mut st, "one more", peer(1), now);
    assert!(matches!(refused, Err(StateError::Resource(_))), "{refused:?}");
    confirm(&mut st, "another peer's", peer(2), now).expect("another peer is not affected");
    let later = now + secs(91);
    confirm(&mut st, "one more", peer(1), later).expect("a lapsed record makes room");
    assert_eq!(st.totals().confirmed_clients, 5);
    assert_eq!(st.totals().stateids, 3, "the lapsed client's open went with it");
}

#[test]
fn a_full_table_gives_up_a_record_of_the_largest_peer_only_if_it_holds_two_more_than_the_newcomers() {
    let now = Instant::now();
    let mut st = limits(8, 8);
    for n in 0..6 {
        confirm(&mut st, &format!("a{n}"), peer(1), now).expect("peer 1");
    }
    for n in 0..2 {
        confirm(&mut st, &format!("b{n}"), peer(2), now).expect("peer 2");
    }
    confirm(&mut st, "c0", peer(3), now).expect("6 > 0 + 1: peer 1 gives one up");
    confirm(&mut st, "b2", peer(2), now).expect("5 > 2 + 1: peer 1 gives another");
    let refused = confirm(&mut st, "b3", peer(2), now);
    assert!(matches!(refused, Err(StateError::Resource(_))), "4 is not more than 3 + 1: {refused:?}");
    assert_eq!(st.totals().confirmed_clients, 8);
}

#[test]
fn a_new_owner_that_could_not_be_confirmed_is_refused_at_exchange_id() {
    let now = Instant::now();
    let mut st = limits(2, 2);
    for n in 0..2u64 {
        let (client, _) = confirm(&mut st, &format!("holder {n}"), None, now).expect("mount");
        open(&mut st, client, b"o", file(n), SHARE_ACCESS_READ, SHARE_DENY_NONE).expect("open");
    }
    let args = ExchangeIdArgs { owner: b"late", verifier: [1; 8], update: false, principal: ROOT, peer: None };
    assert!(matches!(st.exchange_id(&args, now), Err(StateError::Resource(_))));
    assert_eq!(st.totals().unconfirmed_clients, 0, "no record was made");
}
