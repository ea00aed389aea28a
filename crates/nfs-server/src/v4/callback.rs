//! The backchannel (RFC 8881 §2.10.3.1, §20): calls from this server to a client on a connection the
//! client bound for it, sent through the transports' [`BackwardCalls`] (server-core's contract), and the
//! client's replies, matched by xid.
//!
//! - After CREATE_SESSION with a back channel, or BIND_CONN_TO_SESSION that binds one, the session's back
//!   channel is probed with CB_NULL — sent at the next chance after the reply that bound it (the next call
//!   or housekeeping), on the newest back connection. A reply marks the path up; no reply within a tenth
//!   of the lease (at least a second, as knfsd's max_cb_time), a refused send or an RPC error marks it down,
//!   and SEQUENCE then says SEQ4_STATUS_CB_PATH_DOWN(_SESSION), to which the Linux client answers with
//!   BIND_CONN_TO_SESSION (and so a new probe).
//! - CB_COMPOUND always starts with CB_SEQUENCE (§20.9) on back-channel slot 0: one call at a time; the
//!   sequence id advances when the client answers, and a call that timed out is retried with the same id
//!   (the client's slot cache answers it if it had run). No state change here needs a callback (nothing is
//!   ever delegated), so the only CB_COMPOUND is a CB_SEQUENCE alone, sent when a probe is answered: it
//!   checks the client knows the session and keeps the slot logic in use. Its RPC failing marks the path
//!   down; a CB_SEQUENCE error (the slot out of step) does not.
//! - Without a [`BackwardCalls`] (a server embedded without transports' back channel) nothing is sent and
//!   back channels keep the state machine's "unknown" (assumed up).
//!
//! Memory: at most one probe and one CB_COMPOUND outstanding per session, and one slot per session;
//! probes scheduled (a list without repeats) are bounded by the sessions too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use nfs4_proto::callback::{CbSequenceArgs, CB_COMPOUND, CB_NULL, NFS4_CALLBACK_VERSION};
use nfs4_proto::{CbArgOp, CbCompound4Args, CbCompound4Res, CbOpNum4, CbResOp, NfsStat4};
use onc_rpc::{AcceptStat, AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use tracing::{debug, info};
use xdr::{XdrEncode, XdrWriter};

use super::context::wire_session;
use super::state::{CallbackSecurity, SessionId};
use super::{lock, V4Service};
use crate::{BackwardCalls, BackwardReply, ConnectionInfo};

/// The machine name in the AUTH_SYS credential of callbacks.
const MACHINE_NAME: &[u8] = b"nfsbench";

/// What a backward call was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    /// CB_COMPOUND with CB_SEQUENCE of this sequence id on slot 0.
    Sequence(u32),
}

#[derive(Debug)]
struct Outstanding {
    session: SessionId,
    kind: Kind,
    deadline: Instant,
}

/// Back-channel slot 0 of a session.
#[derive(Debug, Default, Clone, Copy)]
struct BackSlot {
    /// The last sequence id the client answered.
    done: u32,
    busy: bool,
}

#[derive(Debug, Default)]
struct Inner {
    /// Sessions to probe at the next chance.
    due: Vec<SessionId>,
    outstanding: HashMap<u32, Outstanding>,
    slots: HashMap<SessionId, BackSlot>,
    next_xid: u32,
}

/// Why [`Callbacks::send_cb_sequence`] sent nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CallbackError {
    #[error("no back channel is configured")]
    NoSender,
    #[error("the session has no back channel")]
    NoBackChannel,
    #[error("the back-channel slot is busy")]
    SlotBusy,
    #[error(transparent)]
    Refused(#[from] crate::BackChannelError),
}

/// The backchannel of one server.
pub(crate) struct Callbacks {
    sender: OnceLock<Arc<dyn BackwardCalls>>,
    /// Probes are scheduled: every call looks at this, and takes the lock only when it is set.
    due: AtomicBool,
    inner: Mutex<Inner>,
    timeout: Duration,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callbacks")
            .field("sender", &self.sender.get().is_some())
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Callbacks {
    pub(crate) fn new(lease: Duration) -> Self {
        let xid = crate::handle::random_u64() as u32;
        Callbacks {
            sender: OnceLock::new(),
            due: AtomicBool::new(false),
            inner: Mutex::new(Inner { next_xid: xid, ..Inner::default() }),
            timeout: (lease / 10).max(Duration::from_secs(1)),
        }
    }

    /// Where backward calls go; the first one given stays.
    pub(crate) fn set_sender(&self, sender: Arc<dyn BackwardCalls>) -> bool {
        self.sender.set(sender).is_ok()
    }

    /// Probes `session`'s back channel at the next chance.
    pub(crate) fn schedule_probe(&self, session: SessionId) {
        let mut inner = lock(&self.inner);
        if !inner.due.contains(&session) {
            inner.due.push(session);
        }
        self.due.store(true, Ordering::Release);
    }

    /// Forgets a destroyed session.
    pub(crate) fn forget(&self, session: &SessionId) {
        let mut inner = lock(&self.inner);
        inner.due.retain(|s| s != session);
        inner.slots.remove(session);
        inner.outstanding.retain(|_, o| o.session != *session);
    }

    /// Sends the probes scheduled so far.
    pub(crate) fn send_due(&self, svc: &V4Service, now: Instant) {
        if !self.due.swap(false, Ordering::AcqRel) {
            return;
        }
        let due = std::mem::take(&mut lock(&self.inner).due);
        for session in due {
            self.probe(svc, session, now);
        }
    }

    fn next_xid(&self) -> u32 {
        let mut inner = lock(&self.inner);
        inner.next_xid = inner.next_xid.wrapping_add(1);
        inner.next_xid
    }

    /// Sends CB_NULL on `session`'s newest back connection, unless a probe of it is still unanswered
    /// (one at a time: rebinding over and over cannot pile them up).
    fn probe(&self, svc: &V4Service, session: SessionId, now: Instant) {
        let Some(sender) = self.sender.get() else { return };
        let probing = lock(&self.inner).outstanding.values().any(|o| o.session == session && o.kind == Kind::Null);
        if probing {
            return;
        }
        let Some(info) = svc.state().backchannel(&session) else { return };
        let Some(&conn) = info.conns.last() else {
            svc.state().set_backchannel(&session, false);
            return;
        };
        let xid = self.next_xid();
        let record = call_record(xid, info.backchannel.program, CB_NULL, &info.backchannel.security, None);
        match sender.send_call(conn, record) {
            Ok(()) => {
                let deadline = now + self.timeout;
                lock(&self.inner).outstanding.insert(xid, Outstanding { session, kind: Kind::Null, deadline });
            }
            Err(e) => {
                info!(error = %e, "NFSv4 back channel probe not sent: path down");
                let mut state = svc.state();
                if let crate::BackChannelError::NoSuchConnection(gone) = e {
                    // The transport closed it: it serves no session any more.
                    state.connection_closed(gone);
                }
                state.set_backchannel(&session, false);
            }
        }
    }

    /// Sends a CB_COMPOUND holding CB_SEQUENCE alone on `session`'s back channel; the xid it went under.
    pub(crate) fn send_cb_sequence(
        &self,
        svc: &V4Service,
        session: SessionId,
        now: Instant,
    ) -> Result<u32, CallbackError> {
        let sender = self.sender.get().ok_or(CallbackError::NoSender)?;
        let info = svc.state().backchannel(&session).ok_or(CallbackError::NoBackChannel)?;
        let conn = *info.conns.last().ok_or(CallbackError::NoBackChannel)?;
        let (xid, seq) = {
            let mut inner = lock(&self.inner);
            let slot = inner.slots.entry(session).or_default();
            if slot.busy {
                return Err(CallbackError::SlotBusy);
            }
            slot.busy = true;
            let seq = slot.done.wrapping_add(1);
            inner.next_xid = inner.next_xid.wrapping_add(1);
            (inner.next_xid, seq)
        };
        let args = CbCompound4Args {
            tag: b"",
            // The Linux client matches a callback to its client by minor version too.
            minorversion: svc.session_minor(&session),
            callback_ident: 0,
            argarray: vec![CbArgOp::CbSequence(CbSequenceArgs {
                sessionid: wire_session(&session),
                sequenceid: seq,
                slotid: 0,
                highest_slotid: 0,
                cachethis: false,
                referring_call_lists: Vec::new(),
            })],
        };
        let record = call_record(xid, info.backchannel.program, CB_COMPOUND, &info.backchannel.security, Some(&args));
        if let Err(e) = sender.send_call(conn, record) {
            if let Some(slot) = lock(&self.inner).slots.get_mut(&session) {
                slot.busy = false;
            }
            let mut state = svc.state();
            if let crate::BackChannelError::NoSuchConnection(gone) = e {
                state.connection_closed(gone);
            }
            state.set_backchannel(&session, false);
            return Err(e.into());
        }
        let deadline = now + self.timeout;
        lock(&self.inner).outstanding.insert(xid, Outstanding { session, kind: Kind::Sequence(seq), deadline });
        Ok(xid)
    }

    /// A reply the client sent on `conn`: matched by xid to an outstanding call, or unknown.
    pub(crate) fn reply(&self, svc: &V4Service, record: &[u8], conn: &ConnectionInfo) -> BackwardReply {
        let Ok((msg, body)) = RpcMessage::decode(record) else { return BackwardReply::Unknown };
        let Some(reply) = msg.as_reply() else { return BackwardReply::Unknown };
        let Some(call) = lock(&self.inner).outstanding.remove(&msg.xid) else {
            debug!(xid = msg.xid, peer = %conn.peer, "reply to no outstanding backward call dropped");
            return BackwardReply::Unknown;
        };
        let accepted = matches!(reply, ReplyBody::Accepted(a) if a.stat == AcceptStat::Success);
        let up = match call.kind {
            Kind::Null => {
                if accepted {
                    // The client answers its port; CB_SEQUENCE then checks it knows the session and
                    // puts the back-channel slot to use.
                    if let Err(e) = self.send_cb_sequence(svc, call.session, Instant::now()) {
                        debug!(error = %e, "CB_SEQUENCE after the probe not sent");
                    }
                }
                accepted
            }
            Kind::Sequence(seq) => {
                let answered = accepted && sequence_ok(body);
                let mut inner = lock(&self.inner);
                if let Some(slot) = inner.slots.get_mut(&call.session) {
                    slot.busy = false;
                    if answered {
                        slot.done = seq;
                    }
                }
                // An RPC-level failure is a broken path; a CB_SEQUENCE error (a slot out of step) is not.
                accepted
            }
        };
        debug!(xid = msg.xid, up, "NFSv4 backward call answered");
        svc.state().set_backchannel(&call.session, up);
        BackwardReply::Matched
    }

    /// Calls unanswered past their deadline: their back channel is down.
    pub(crate) fn expire(&self, svc: &V4Service, now: Instant) {
        self.send_due(svc, now);
        let expired: Vec<Outstanding> = {
            let mut inner = lock(&self.inner);
            let late: Vec<u32> = inner.outstanding.iter().filter(|(_, o)| o.deadline <= now).map(|(x, _)| *x).collect();
            let calls: Vec<Outstanding> = late.iter().filter_map(|x| inner.outstanding.remove(x)).collect();
            for call in &calls {
                if let Some(slot) = inner.slots.get_mut(&call.session) {
                    slot.busy = false;
                }
            }
            calls
        };
        // The slots of sessions gone (the table lock is not held while the state's is taken).
        let sessions: Vec<SessionId> = lock(&self.inner).slots.keys().copied().collect();
        let gone: Vec<SessionId> = {
            let state = svc.state();
            sessions.into_iter().filter(|s| state.backchannel(s).is_none()).collect()
        };
        lock(&self.inner).slots.retain(|s, _| !gone.contains(s));
        for call in expired {
            info!(?call.kind, "NFSv4 backward call unanswered: back channel down");
            svc.state().set_backchannel(&call.session, false);
        }
    }

    /// Backward calls waiting for a reply.
    #[cfg(test)]
    pub(crate) fn outstanding(&self) -> usize {
        lock(&self.inner).outstanding.len()
    }
}

/// True when a CB_COMPOUND reply body answers its CB_SEQUENCE with NFS4_OK.
fn sequence_ok(body: &[u8]) -> bool {
    match CbCompound4Res::decode_reply(body, &[CbOpNum4::CbSequence]) {
        Ok(res) => matches!(res.resarray.first(), Some(CbResOp::CbSequence(r)) if r.status() == NfsStat4::Ok),
        Err(_) => false,
    }
}

/// A callback RPC call record: program `program` version 1, with the credential the client chose.
fn call_record(
    xid: u32,
    program: u32,
    proc: u32,
    security: &CallbackSecurity,
    args: Option<&CbCompound4Args<'_>>,
) -> Vec<u8> {
    let mut cred_body = Vec::new();
    let cred = match security {
        CallbackSecurity::Sys { uid, gid } => match AuthSysParms::new(0, MACHINE_NAME, *uid, *gid, &[]) {
            Ok(parms) => parms.to_opaque_auth(&mut cred_body),
            Err(_) => OpaqueAuth::NONE,
        },
        CallbackSecurity::None | CallbackSecurity::Other(_) => OpaqueAuth::NONE,
    };
    let msg = RpcMessage::call(xid, CallHeader::new(program, NFS4_CALLBACK_VERSION, proc, cred, OpaqueAuth::NONE));
    let mut w = XdrWriter::with_capacity(msg.encoded_len() + 64);
    msg.encode_header(&mut w);
    if let Some(args) = args {
        args.encode(&mut w);
    }
    w.into_vec()
}
