//! Session and slot misuse (RFC 8881 §2.10.6, §18.36, §18.46), each answered with the error the RFC names
//! and nothing changed: after every refused request the slot takes its next sequence id as before.

use std::net::SocketAddr;

use nfs4_proto::{
    BindConnToSessionArgs, ChannelAttrs4, ChannelDirFromClient4, Compound4Args, CreateSessionResOk,
    DestroyClientidArgs, DestroySessionArgs, NfsArgOp, NfsErr4, NfsResOp, NfsStat4, OpNum4, SessionId4,
};

use super::compound::owner;
use super::Verdicts;
use crate::rpc::RpcFailure;
use crate::v4::answer::{Answer, Outcome};
use crate::v4::conn::{compound_body, V4Conn};
use crate::v4::session::{create_session, exchange_id, Session, SessionAsk};

/// The fore-channel maxima of the server under test: what CREATE_SESSION must clamp a greedy request to
/// (the defaults are nfs-server's `ChannelLimits` and the back channel's 16 slots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Maxima {
    pub request_size: u32,
    pub response_size: u32,
    pub response_size_cached: u32,
    pub operations: u32,
    pub slots: u32,
    pub back_slots: u32,
    /// Sessions one client id may hold.
    pub sessions_per_client: u32,
    /// Unconfirmed client records kept at once.
    pub unconfirmed_clients: u32,
}

impl Default for Maxima {
    fn default() -> Self {
        Maxima {
            request_size: (1 << 20) + 4096,
            response_size: (1 << 20) + 4096,
            response_size_cached: 4096,
            operations: 64,
            slots: 128,
            back_slots: 16,
            sessions_per_client: 4,
            unconfirmed_clients: 128,
        }
    }
}

fn seq_then_putrootfh() -> Outcome {
    Outcome::results(&[(OpNum4::Sequence, NfsStat4::Ok), (OpNum4::Putrootfh, NfsStat4::Ok)])
}

fn sequence_fails(err: NfsErr4) -> Outcome {
    Outcome::fails_at(&[], OpNum4::Sequence, err)
}

/// The slot misuse cases on one session.
pub fn slot_misuse(addr: SocketAddr) -> Result<Verdicts, RpcFailure> {
    let mut v = Verdicts::default();
    let mut s = Session::establish(addr, owner("slots").as_bytes())?;
    let slots = s.slots();
    for slotid in [slots, slots + 1000, u32::MAX] {
        let sequence = nfs4_proto::SequenceArgs { slotid, ..s.sequence(0) };
        let got = s.call_with(sequence, &[NfsArgOp::Putrootfh])?.outcome();
        v.outcome(format!("slot {slotid} of a table of {slots}"), &sequence_fails(NfsErr4::BadSlot), &got);
    }
    // Sequence ids out of order: RFC 8881 §2.10.6.1 — anything but the last (a retry) or the next.
    s.call_ok(&[])?;
    s.call_ok(&[])?;
    let last = s.seqid(0);
    for (what, seqid) in
        [("two ahead", last + 2), ("1000 ahead", last + 1000), ("one behind", last - 1), ("2^32-1", u32::MAX)]
    {
        let sequence = nfs4_proto::SequenceArgs { sequenceid: seqid, ..s.sequence(0) };
        let got = s.call_with(sequence, &[NfsArgOp::Putrootfh])?.outcome();
        v.outcome(format!("sequence id {what}"), &sequence_fails(NfsErr4::SeqMisordered), &got);
    }
    // A slot never used starts at sequence id 1; 0 is no retry of anything.
    let fresh = nfs4_proto::SequenceArgs { slotid: 1, sequenceid: 0, ..s.sequence(1) };
    let got = s.call_with(fresh, &[NfsArgOp::Putrootfh])?.outcome();
    v.outcome("sequence id 0 on a slot never used", &sequence_fails(NfsErr4::SeqMisordered), &got);
    // A retry of a request whose reply was not cached (sa_cachethis false): RFC 8881 §2.10.6.1.3.
    let uncached = s.sequence(0);
    let first = s.call_with(uncached, &[NfsArgOp::Putrootfh])?.outcome();
    v.outcome("a request not cached", &seq_then_putrootfh(), &first);
    let retry = s.call_with(uncached, &[NfsArgOp::Putrootfh])?.outcome();
    v.outcome("its retry", &sequence_fails(NfsErr4::RetryUncachedRep), &retry);
    // A retry of a cached one gets the very reply again (RFC 8881 §2.10.6.1.2).
    let cached = nfs4_proto::SequenceArgs { cachethis: true, ..s.sequence(0) };
    let reply = s.call_with(cached, &[NfsArgOp::Putrootfh, NfsArgOp::Getfh])?;
    let replay = s.call_with(cached, &[NfsArgOp::Putrootfh, NfsArgOp::Getfh])?;
    v.that(
        "a retry of a cached request",
        "the cached reply, byte for byte",
        if replay == reply { "the same reply".to_string() } else { replay.outcome().to_string() },
        replay == reply && reply.outcome().last_status() == Some(NfsStat4::Ok),
    );
    // None of that moved the slot.
    let after = s.call(0, &[NfsArgOp::Putrootfh])?.outcome();
    v.outcome("the next request on the slot after the misuse", &seq_then_putrootfh(), &after);
    s.destroy();
    Ok(v)
}

/// Sessions, client ids and connections that do not exist.
pub fn unknown_sessions(addr: SocketAddr) -> Result<Verdicts, RpcFailure> {
    let mut v = Verdicts::default();
    let mut conn = V4Conn::connect(addr)?;
    let random = SessionId4(crate::v4::random::bytes());
    let alone = |op: NfsArgOp<'static>| compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![op] });
    let cases: [(&str, NfsArgOp<'static>, Outcome); 4] = [
        (
            "BIND_CONN_TO_SESSION of a random session",
            NfsArgOp::BindConnToSession(BindConnToSessionArgs {
                sessionid: random,
                dir: ChannelDirFromClient4::ForeOrBoth,
                use_conn_in_rdma_mode: false,
            }),
            Outcome::fails_at(&[], OpNum4::BindConnToSession, NfsErr4::BadSession),
        ),
        (
            "DESTROY_SESSION of a random session",
            NfsArgOp::DestroySession(DestroySessionArgs { sessionid: random }),
            Outcome::fails_at(&[], OpNum4::DestroySession, NfsErr4::BadSession),
        ),
        (
            "DESTROY_CLIENTID of a random client id",
            NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid: crate::v4::random::next_u64() }),
            Outcome::fails_at(&[], OpNum4::DestroyClientid, NfsErr4::StaleClientId),
        ),
        (
            "SEQUENCE of a random session with a slot past any table",
            NfsArgOp::Sequence(nfs4_proto::SequenceArgs {
                sessionid: random,
                sequenceid: 1,
                slotid: u32::MAX,
                highest_slotid: u32::MAX,
                cachethis: true,
            }),
            Outcome::fails_at(&[], OpNum4::Sequence, NfsErr4::BadSession),
        ),
    ];
    for (name, op, expected) in cases {
        let got = conn.call_body(&alone(op))?.outcome();
        v.outcome(name, &expected, &got);
    }
    let got = create_session(&mut conn, crate::v4::random::next_u64(), 1, &SessionAsk::default())?.outcome();
    v.outcome(
        "CREATE_SESSION of a random client id",
        &Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::StaleClientId),
        &got,
    );
    Ok(v)
}

fn granted(answer: &Answer) -> Option<CreateSessionResOk> {
    answer.find(|r| match r {
        NfsResOp::CreateSession(res) => res.ok().copied(),
        _ => None,
    })
}

/// CREATE_SESSION asking for everything (millions of slots, 4 GiB requests, a huge reply cache, a million
/// operations per COMPOUND) is clamped to the server's maxima (RFC 8881 §18.36.3: the server may lower
/// what the client asks, never raise it); a client id gets at most `maxima.sessions_per_client` sessions
/// (NFS4ERR_RESOURCE after, knfsd answers alike when it runs out); csa_sequence is checked as a slot.
pub fn greedy_sessions(addr: SocketAddr, maxima: Maxima) -> Result<Verdicts, RpcFailure> {
    let mut v = Verdicts::default();
    let mut conn = V4Conn::connect(addr)?;
    let (clientid, mut sequence) = exchange_id(&mut conn, owner("greedy").as_bytes(), crate::v4::random::bytes())?;
    let everything = ChannelAttrs4 {
        headerpadsize: u32::MAX,
        maxrequestsize: u32::MAX,
        maxresponsesize: u32::MAX,
        maxresponsesize_cached: u32::MAX,
        maxoperations: u32::MAX,
        maxrequests: 10_000_000,
        rdma_ird: Some(u32::MAX),
    };
    let ask = SessionAsk { fore: everything, back: everything, flags: 0 };
    let answer = create_session(&mut conn, clientid, sequence, &ask)?;
    match granted(&answer) {
        Some(g) => {
            let f = g.fore_chan_attrs;
            let clamped = f.maxrequests <= maxima.slots
                && f.maxrequests >= 1
                && f.maxrequestsize <= maxima.request_size
                && f.maxresponsesize <= maxima.response_size
                && f.maxresponsesize_cached <= maxima.response_size_cached
                && f.maxoperations <= maxima.operations
                && f.headerpadsize == 0
                && f.rdma_ird.is_none()
                && g.back_chan_attrs.maxrequests <= maxima.back_slots;
            v.that(
                "a CREATE_SESSION asking for everything",
                format!("clamped to {maxima:?}"),
                format!("{g:?}"),
                clamped,
            );
        }
        None => {
            v.that("a CREATE_SESSION asking for everything", "a clamped grant", answer.outcome().to_string(), false)
        }
    }
    // The same csa_sequence again: the cached result (RFC 8881 §18.36.4), the same session.
    let again = create_session(&mut conn, clientid, sequence, &ask)?;
    let same = granted(&again).map(|g| g.sessionid) == granted(&answer).map(|g| g.sessionid);
    v.that("CREATE_SESSION replayed", "the same session again", again.outcome().to_string(), same);
    let skipped = create_session(&mut conn, clientid, sequence + 2, &ask)?.outcome();
    v.outcome(
        "CREATE_SESSION skipping a csa_sequence",
        &Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::SeqMisordered),
        &skipped,
    );
    // More sessions on the one client id than it may have.
    let mut created = 1;
    let mut refusal = None;
    for _ in 0..maxima.sessions_per_client * 4 {
        sequence += 1;
        let answer = create_session(&mut conn, clientid, sequence, &SessionAsk::default())?;
        if granted(&answer).is_some() {
            created += 1;
        } else {
            refusal = Some(answer.outcome());
            break;
        }
    }
    v.that(
        "sessions of one client id",
        format!("{} then NFS4ERR_RESOURCE", maxima.sessions_per_client),
        format!("{created} then {}", refusal.as_ref().map_or("nothing".to_string(), |o| o.to_string())),
        created == maxima.sessions_per_client
            && refusal == Some(Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::Resource)),
    );
    Ok(v)
}

/// Thousands of EXCHANGE_IDs with random owners, never confirmed: the server keeps a bounded number of
/// unconfirmed records (the oldest go first), so the first client id is gone by the end while the last
/// one can still be confirmed. `count` should be well past `maxima.unconfirmed_clients`.
pub fn unconfirmed_flood(addr: SocketAddr, count: u32, maxima: Maxima) -> Result<Verdicts, RpcFailure> {
    let mut v = Verdicts::default();
    let mut conn = V4Conn::connect(addr)?;
    let mut first = None;
    let mut last = (0, 0);
    for _ in 0..count {
        let owner = crate::v4::random::bytes::<24>();
        last = exchange_id(&mut conn, &owner, crate::v4::random::bytes())?;
        first.get_or_insert(last);
    }
    let (first_id, first_seq) = first.unwrap_or_default();
    let gone = create_session(&mut conn, first_id, first_seq, &SessionAsk::default())?.outcome();
    v.outcome(
        format!(
            "CREATE_SESSION of the first of {count} unconfirmed client ids (at most {} kept)",
            maxima.unconfirmed_clients
        ),
        &Outcome::fails_at(&[], OpNum4::CreateSession, NfsErr4::StaleClientId),
        &gone,
    );
    let kept = create_session(&mut conn, last.0, last.1, &SessionAsk::default())?;
    v.that(
        format!("CREATE_SESSION of the last of {count} unconfirmed client ids"),
        "a session",
        kept.outcome().to_string(),
        granted(&kept).is_some(),
    );
    Ok(v)
}
