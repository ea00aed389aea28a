//! Tests of the v4 state machine that span its files, one file per topic, and the helpers they share: a
//! client that has done EXCHANGE_ID and CREATE_SESSION, and the OPEN and LOCK calls tests make most.

use std::cell::RefCell;
use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::*;
use crate::backend::FileId;
use crate::ConnectionId;

mod admission;
mod bounds;
mod create_session;
mod exchange_id;
mod grace;
mod lease;
mod lock;
mod open;
mod sequence;
mod stateid;

const ROOT: Principal = Principal::Sys { uid: 0, gid: 0 };
const CB_SEC: &[CallbackSecurity] = &[CallbackSecurity::Sys { uid: 0, gid: 0 }];

fn fore_attrs() -> ChannelAttrs {
    ChannelAttrs {
        headerpadsize: 0,
        maxrequestsize: 1 << 20,
        maxresponsesize: 1 << 20,
        maxresponsesize_cached: 4096,
        maxoperations: 16,
        maxrequests: 8,
        rdma_ird: None,
    }
}

fn back_attrs() -> ChannelAttrs {
    ChannelAttrs {
        maxrequestsize: 4096,
        maxresponsesize: 4096,
        maxresponsesize_cached: 0,
        maxrequests: 1,
        ..fore_attrs()
    }
}

thread_local! {
    static CONNECTIONS: RefCell<HashMap<u64, ConnectionId>> = RefCell::new(HashMap::new());
}

/// The connection a test calls `n` (the same id every time in one test; ids are handed out by the process).
fn conn(n: u64) -> ConnectionId {
    CONNECTIONS.with(|c| *c.borrow_mut().entry(n).or_insert_with(ConnectionId::next))
}

fn file(n: u64) -> FileKey {
    FileKey { export: 0, file: FileId { id: n, generation: 1 } }
}

fn secs(n: u64) -> Duration {
    Duration::from_secs(n)
}

fn new_state(now: Instant) -> V4State {
    V4State::new(StateConfig::default(), 7, now, None)
}

fn exchange(st: &mut V4State, owner: &[u8], verifier: u8, now: Instant) -> ExchangeIdOk {
    let args = ExchangeIdArgs { owner, verifier: [verifier; 8], update: false, principal: ROOT, peer: None };
    st.exchange_id(&args, now).expect("EXCHANGE_ID")
}

fn create_args(clientid: ClientId, sequence: u32, connection: u64) -> CreateSessionArgs<'static> {
    CreateSessionArgs {
        clientid,
        sequence,
        flags: CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
        fore: fore_attrs(),
        back: back_attrs(),
        cb_program: 0x4000_0000,
        cb_security: CB_SEC,
        principal: ROOT,
        conn: conn(connection),
    }
}

/// A confirmed client with one session (8 slots), its connection numbered like its first owner byte.
fn mount(st: &mut V4State, owner: &[u8], now: Instant) -> (ClientId, SessionId) {
    let ex = exchange(st, owner, 1, now);
    let grant = st.create_session(&create_args(ex.clientid, ex.sequenceid, u64::from(owner[0])), now).expect("CREATE");
    (ex.clientid, grant.sessionid)
}

fn sequence(
    st: &mut V4State,
    session: SessionId,
    slot: u32,
    seqid: u32,
    now: Instant,
) -> Result<Sequenced, StateError> {
    let args = SequenceArgs {
        sessionid: session,
        sequenceid: seqid,
        slotid: slot,
        highest_slotid: 7,
        cachethis: true,
        ops: 2,
        request_len: 200,
    };
    st.sequence(&args, conn(1), now)
}

fn open(
    st: &mut V4State,
    client: ClientId,
    owner: &[u8],
    f: FileKey,
    access: u32,
    deny: u32,
) -> Result<OpenOk, StateError> {
    let args = OpenArgs { clientid: client, owner, file: f, access, deny, claim: OpenClaim::New };
    st.open(&args, Instant::now())
}

#[allow(clippy::too_many_arguments)]
fn lock_new(
    st: &mut V4State,
    client: ClientId,
    f: FileKey,
    open_stateid: Stateid,
    owner: &[u8],
    kind: LockType,
    offset: u64,
    length: u64,
    now: Instant,
) -> Result<Stateid, StateError> {
    let locker = Locker::New { open_stateid, owner };
    let args = LockArgs { clientid: client, file: f, lock_type: kind, reclaim: false, offset, length, locker };
    st.lock(&args, now)
}

fn lock_more(
    st: &mut V4State,
    client: ClientId,
    f: FileKey,
    lock_stateid: Stateid,
    kind: LockType,
    offset: u64,
    length: u64,
) -> Result<Stateid, StateError> {
    let args = LockArgs {
        clientid: client,
        file: f,
        lock_type: kind,
        reclaim: false,
        offset,
        length,
        locker: Locker::Existing { lock_stateid },
    };
    st.lock(&args, Instant::now())
}

fn denied(result: Result<impl std::fmt::Debug, StateError>) -> LockConflict {
    match result {
        Err(StateError::Denied { conflict }) => conflict,
        other => panic!("expected NFS4ERR_DENIED, got {other:?}"),
    }
}

#[test]
fn the_state_machine_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<V4State>();
}
