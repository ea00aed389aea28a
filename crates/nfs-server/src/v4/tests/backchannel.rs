//! The backchannel with a fake transport contract: the CB_NULL probe after CREATE_SESSION, the path
//! marked up by the reply (matched by xid) and down by a timeout or a refused send, as SEQUENCE's status
//! flags say; the CB_SEQUENCE that follows an answered probe and the back-channel slot it advances;
//! BIND_CONN_TO_SESSION probing again.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use nfs4_proto::callback::{CbSequenceResOk, CB_COMPOUND, CB_NULL};
use nfs4_proto::*;
use onc_rpc::{OpaqueAuth, ReplyBody, RpcMessage};

use super::*;
use crate::{BackChannelError, BackwardCalls, BackwardReply, ConnectionId};

/// Keeps the calls it is given; refuses them all when `refuse`.
#[derive(Debug, Default)]
struct FakeBackChannel {
    sent: Mutex<Vec<(ConnectionId, Vec<u8>)>>,
    refuse: bool,
}

impl BackwardCalls for FakeBackChannel {
    fn send_call(&self, conn: ConnectionId, record: Vec<u8>) -> Result<(), BackChannelError> {
        if self.refuse {
            return Err(BackChannelError::NoSuchConnection(conn));
        }
        self.sent.lock().expect("lock").push((conn, record));
        Ok(())
    }
}

impl FakeBackChannel {
    fn take(&self) -> Vec<(ConnectionId, Vec<u8>)> {
        std::mem::take(&mut *self.sent.lock().expect("lock"))
    }
}

/// (xid, program, procedure) of a call record.
fn call_of(record: &[u8]) -> (u32, u32, u32) {
    let (msg, _) = RpcMessage::decode(record).expect("a call");
    let call = msg.as_call().expect("a call");
    (msg.xid, call.prog, call.proc)
}

/// The CB_SEQUENCE arguments of a CB_COMPOUND call record.
fn cb_sequence_of(record: &[u8]) -> callback::CbSequenceArgs {
    let (_, body) = RpcMessage::decode(record).expect("a call");
    let mut ops = CompoundDecoder::new_callback(body, 8).expect("CB_COMPOUND");
    match ops.next() {
        Some(Ok(CbArgOp::CbSequence(args))) => args,
        other => panic!("not CB_SEQUENCE first: {other:?}"),
    }
}

fn null_reply(xid: u32) -> Vec<u8> {
    RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(0).into_vec()
}

fn cb_sequence_reply(xid: u32, args: &callback::CbSequenceArgs) -> Vec<u8> {
    let ok = CbSequenceResOk {
        sessionid: args.sessionid,
        sequenceid: args.sequenceid,
        slotid: 0,
        highest_slotid: 0,
        target_highest_slotid: 0,
    };
    let res = CbCompound4Res::new(b"", vec![CbResOp::CbSequence(Nfs4Result::Ok(ok))]);
    let mut w = RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).header_writer(64);
    xdr::XdrEncode::encode(&res, &mut w);
    w.into_vec()
}

/// SEQUENCE's status flags now.
fn flags(c: &Client<'_>) -> u32 {
    let answer = c.seq(vec![]);
    let res = answer.res();
    match res.resarray.first() {
        Some(NfsResOp::Sequence(Nfs4Result::Ok(ok))) => ok.status_flags,
        other => panic!("SEQUENCE: {other:?}"),
    }
}

const DOWN: u32 = SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION;

fn setup(refuse: bool) -> (Server, Arc<FakeBackChannel>) {
    let server = server();
    let fake = Arc::new(FakeBackChannel { refuse, ..FakeBackChannel::default() });
    assert!(server.set_backchannel(fake.clone()));
    (server, fake)
}

#[test]
fn a_session_with_a_back_channel_is_probed_on_its_connection_after_the_reply() {
    let (server, fake) = setup(false);
    let c = Client::new(&server, "cb");
    c.session_only(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
    assert!(fake.take().is_empty(), "nothing before the CREATE_SESSION reply went out");
    c.seq(vec![]);
    let sent = fake.take();
    let [(conn, record)] = &sent[..] else { panic!("one probe: {sent:?}") };
    assert_eq!(*conn, c.conn.id);
    let (xid, prog, proc) = call_of(record);
    assert_eq!((prog, proc), (0x4000_0000, CB_NULL), "CB_NULL to the client's callback program");
    assert_eq!(server.handle_reply(&null_reply(xid), &c.conn), BackwardReply::Matched);
    assert_eq!(flags(&c) & DOWN, 0);
    // The answered probe is followed by CB_SEQUENCE on back-channel slot 0, sequence id 1.
    let sent = fake.take();
    let [(_, record)] = &sent[..] else { panic!("one CB_COMPOUND: {sent:?}") };
    let (xid, _, proc) = call_of(record);
    assert_eq!(proc, CB_COMPOUND);
    let args = cb_sequence_of(record);
    assert_eq!((args.sessionid, args.sequenceid, args.slotid), (c.session.get(), 1, 0));
    assert_eq!(server.handle_reply(&cb_sequence_reply(xid, &args), &c.conn), BackwardReply::Matched);
    assert_eq!(server.v4.callbacks.outstanding(), 0);
}

#[test]
fn the_back_channel_slot_advances_only_when_the_client_answers() {
    let (server, fake) = setup(false);
    let c = Client::new(&server, "slot");
    c.session_only(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
    let session = crate::v4::context::session_id(&c.session.get());
    let callbacks = &server.v4.callbacks;
    let now = Instant::now();
    let first = callbacks.send_cb_sequence(&server.v4, session, now).expect("sent");
    assert!(matches!(
        callbacks.send_cb_sequence(&server.v4, session, now),
        Err(crate::v4::callback::CallbackError::SlotBusy)
    ));
    let sent = fake.take();
    let args = cb_sequence_of(&sent.last().expect("sent").1);
    assert_eq!(args.sequenceid, 1);
    assert_eq!(server.handle_reply(&cb_sequence_reply(first, &args), &c.conn), BackwardReply::Matched);
    callbacks.send_cb_sequence(&server.v4, session, now).expect("sent");
    let next = cb_sequence_of(&fake.take().last().expect("sent").1);
    assert_eq!(next.sequenceid, 2);
    // Unanswered: the next call after the timeout retries the same sequence id.
    server.tick(now + Duration::from_secs(60));
    callbacks.send_cb_sequence(&server.v4, session, now).expect("sent");
    let retry = cb_sequence_of(&fake.take().last().expect("sent").1);
    assert_eq!(retry.sequenceid, 2);
}

#[test]
fn an_unanswered_probe_marks_the_path_down_and_bind_conn_to_session_probes_again() {
    let (server, fake) = setup(false);
    let c = Client::new(&server, "silent");
    c.session_only(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
    c.seq(vec![]);
    assert_eq!(fake.take().len(), 1);
    server.tick(Instant::now() + Duration::from_secs(60));
    assert_eq!(flags(&c) & DOWN, DOWN, "the only session's back channel is down");
    let bind = c.compound(vec![NfsArgOp::BindConnToSession(BindConnToSessionArgs {
        sessionid: c.session.get(),
        dir: ChannelDirFromClient4::BackOrBoth,
        use_conn_in_rdma_mode: false,
    })]);
    let res = bind.res();
    let [NfsResOp::BindConnToSession(Nfs4Result::Ok(ok))] = &res.resarray[..] else { panic!("{res:?}") };
    assert_eq!(ok.dir, ChannelDirFromServer4::Both);
    assert_eq!(flags(&c) & DOWN, 0, "rebound: assumed up until the probe says");
    let sent = fake.take();
    let [(_, record)] = &sent[..] else { panic!("a new probe: {sent:?}") };
    assert_eq!(call_of(record).2, CB_NULL);
}

#[test]
fn a_refused_probe_marks_the_path_down_at_once() {
    let (server, _fake) = setup(true);
    let c = Client::new(&server, "refused");
    c.session_only(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
    c.seq(vec![]);
    assert_eq!(flags(&c) & DOWN, DOWN);
}

#[test]
fn replies_to_no_outstanding_call_are_unknown() {
    let (server, _fake) = setup(false);
    let c = Client::new(&server, "stray");
    assert_eq!(server.handle_reply(&null_reply(12345), &c.conn), BackwardReply::Unknown);
    assert_eq!(server.handle_reply(b"junk", &c.conn), BackwardReply::Unknown);
}

#[test]
fn a_session_without_a_back_channel_is_never_probed_and_says_so() {
    let (server, fake) = setup(false);
    let c = Client::new(&server, "fore-only");
    c.mount();
    assert!(fake.take().is_empty());
    assert_eq!(flags(&c) & DOWN, DOWN);
}

#[test]
fn callbacks_carry_the_minor_version_of_their_session() {
    let (server, fake) = setup(false);
    let c = Client::new(&server, "v42-cb").minor(2);
    c.session_only(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
    c.seq(vec![]);
    let probe = fake.take();
    let (xid, _, _) = call_of(&probe[0].1);
    assert_eq!(server.handle_reply(&null_reply(xid), &c.conn), BackwardReply::Matched);
    let sent = fake.take();
    let (_, body) = RpcMessage::decode(&sent[0].1).expect("a call");
    let decoder = CompoundDecoder::new_callback(body, 8).expect("CB_COMPOUND");
    assert_eq!(decoder.minorversion(), 2, "the Linux client matches callbacks by minor version");
}
