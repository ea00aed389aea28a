//! [`Session`]: one NFSv4 mount at run time — its connections (one transport each, so a call and a
//! BIND_CONN_TO_SESSION can go on a chosen one), the session's state behind one lock (client ID,
//! session ID, the slot table, the lease, a recovery in progress), and the sending of a
//! [`Compound`] on a slot. The retry loop is in `call.rs`, the recovery in `recover.rs`, the timers in
//! `maintain.rs`.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use nfs4_proto::{ClientId4, OpNum4, SequenceArgs, SessionId4};
use tokio::sync::{watch, Notify};

use super::callback::CallbackService;
use super::compound::Compound;
use super::handshake::SessionRequest;
use super::lease::Lease;
use super::opens::OpenFiles;
use super::owner::ClientIdentity;
use super::recovery::{loss_of_flags, Loss, Recovery};
use super::slots::{SequenceOutcome, SlotLease, SlotTable, Verdict};
use super::wire::Encoded;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::transport::{reply_channel, ReplyReceiver, RpcTransport};

/// One connection of the mount: its own transport, so calls can be addressed to it.
#[derive(Debug)]
pub(crate) struct Conn {
    pub(crate) transport: Box<dyn RpcTransport>,
    pub(crate) addr: SocketAddr,
    /// The transport's reconnection count last seen: a change means the connection was replaced.
    pub(crate) seen_reconnects: AtomicU64,
}

/// Who may take a slot: ordinary calls wait while a recovery drains the table; the recovery's own
/// calls (reclaims, RECLAIM_COMPLETE) do not, as Linux's privileged tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Normal,
    Recovery,
}

/// The state of the session, behind [`Session::state`].
#[derive(Debug)]
pub(crate) struct State {
    pub(crate) clientid: ClientId4,
    /// `csa_sequence` of the next CREATE_SESSION (RFC 8881 §18.36.3).
    pub(crate) cs_sequence: u32,
    pub(crate) sessionid: SessionId4,
    /// Counts sessions: a reply from an older one does not touch the new slot table.
    pub(crate) generation: u64,
    pub(crate) slots: SlotTable,
    pub(crate) lease: Lease,
    pub(crate) recovery: Option<Recovery>,
    /// Counts recoveries and escalations, so a step's outcome is not applied to a ladder restarted meanwhile.
    pub(crate) recovery_epoch: u64,
    /// The recovery failed for good: every call fails with this.
    pub(crate) failed: Option<String>,
    /// When the connections were last bound again for a callback path the server said was down.
    pub(crate) last_rebind: Option<Instant>,
}

impl State {
    /// A SEQUENCE sent at `sent_at` succeeded with `flags`: the lease is renewed as of then; the loss the
    /// flags report, if a recovery should start (a callback path down: at most once a lease).
    fn after_sequence(&mut self, sent_at: Instant, flags: u32, callbacks_answered: bool) -> Option<Loss> {
        self.lease.renewed(sent_at);
        match loss_of_flags(flags, callbacks_answered) {
            Some(Loss::Connection) => {
                let quiet = self.last_rebind.is_some_and(|at| at.elapsed() < self.lease.lease_time());
                if quiet || self.recovery.is_some() {
                    return None;
                }
                self.last_rebind = Some(Instant::now());
                Some(Loss::Connection)
            }
            other => other,
        }
    }
}

/// A COMPOUND sent on a slot, until its reply is settled.
#[derive(Debug)]
pub(crate) struct InFlight {
    pub(crate) rx: Option<ReplyReceiver>,
    pub(crate) guard: SlotGuard,
    pub(crate) sent_at: Instant,
    pub(crate) ops: std::borrow::Cow<'static, [OpNum4]>,
    /// The open stateid's `other` the call carried, if any.
    pub(crate) stateid_other: Option<[u8; 12]>,
}

/// Holds a slot for a call; dropped unsettled (the caller stopped waiting), it gives the slot back as
/// unanswered, so the slot's next call moves on to the next sequence id.
#[derive(Debug)]
pub(crate) struct SlotGuard {
    pub(crate) session: Arc<Session>,
    pub(crate) lease: SlotLease,
    pub(crate) generation: u64,
    pub(crate) armed: bool,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        if self.armed {
            self.session.abandon(self.lease.slotid, self.generation);
        }
    }
}

/// A call counted among those waiting for a slot while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn enter(count: &'a AtomicUsize) -> Self {
        count.fetch_add(1, SeqCst);
        Waiting(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, SeqCst);
    }
}

/// One NFSv4 mount at run time.
#[derive(Debug)]
pub(crate) struct Session {
    pub(crate) conns: Vec<Conn>,
    next_conn: AtomicUsize,
    pub(crate) encoder: CallEncoder,
    pub(crate) minor: u32,
    pub(crate) identity: ClientIdentity,
    /// What CREATE_SESSION asks, again at every recovery.
    pub(crate) request: SessionRequest,
    /// Slots the client wants: its calls in flight.
    pub(crate) wanted_slots: u32,
    pub(crate) state: Mutex<State>,
    /// Woken when a slot is freed, the server's target changes, or a recovery ends.
    pub(crate) changed: Notify,
    pub(crate) opens: Mutex<OpenFiles>,
    /// The client answers callbacks on its connections (a handler is registered with the transports).
    pub(crate) callbacks_answered: bool,
    /// The back channel's answers, reset with every new session.
    pub(crate) callbacks: Option<Arc<CallbackService>>,
    pub(crate) closed: AtomicBool,
    pub(crate) stop: watch::Sender<bool>,
    /// Calls waiting for a slot (or a recovery): a freed slot wakes them only when there are some.
    waiting: AtomicUsize,
}

impl Session {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        conns: Vec<Conn>,
        encoder: CallEncoder,
        minor: u32,
        identity: ClientIdentity,
        request: SessionRequest,
        wanted_slots: u32,
        state: State,
        callbacks: Option<Arc<CallbackService>>,
    ) -> Self {
        Session {
            conns,
            next_conn: AtomicUsize::new(0),
            encoder,
            minor,
            identity,
            request,
            wanted_slots,
            state: Mutex::new(state),
            changed: Notify::new(),
            opens: Mutex::new(OpenFiles::default()),
            callbacks_answered: callbacks.is_some(),
            callbacks,
            closed: AtomicBool::new(false),
            stop: watch::channel(false).0,
            waiting: AtomicUsize::new(0),
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn opens(&self) -> MutexGuard<'_, OpenFiles> {
        self.opens.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The connections round-robin, as the Linux client spreads calls over `nconnect` transports.
    fn pick(&self) -> &Conn {
        let i = self.next_conn.fetch_add(1, Relaxed) % self.conns.len().max(1);
        &self.conns[i]
    }

    /// Takes a slot and sends `req` on it at once, or `None` when no slot is free now (or the table
    /// drains for a recovery). Fails when the mount is closed or its state is lost for good.
    pub(crate) fn try_send<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        mode: Mode,
    ) -> Result<Option<InFlight>, ClientError> {
        let taken = {
            let mut st = self.state();
            if self.closed.load(Relaxed) {
                return Err(ClientError::Closed { proc: req.name() });
            }
            if let Some(why) = &st.failed {
                return Err(ClientError::Recovery(why.clone()));
            }
            let lease = match mode {
                Mode::Normal => st.slots.acquire(),
                Mode::Recovery => st.slots.acquire_privileged(),
            };
            lease.map(|lease| (lease, st.generation, st.sessionid))
        };
        Ok(taken.map(|(lease, generation, sessionid)| self.send_on(req, lease, generation, sessionid)))
    }

    /// [`try_send`](Self::try_send), waiting for a slot.
    pub(crate) async fn send<R: Compound>(self: &Arc<Self>, req: &R, mode: Mode) -> Result<InFlight, ClientError> {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // Counted before the slot is looked for, so a slot freed meanwhile always wakes this call.
            let _waiting = Waiting::enter(&self.waiting);
            if let Some(flight) = self.try_send(req, mode)? {
                return Ok(flight);
            }
            notified.await;
        }
    }

    /// Wakes the calls waiting for a slot, if any.
    pub(crate) fn wake_waiters(&self) {
        if self.waiting.load(SeqCst) > 0 {
            self.changed.notify_waiters();
        }
    }

    /// Sends `req` again on the slot it still holds (a retry with the sequence id the table gave);
    /// `None` when the session changed meanwhile and the call must take a new slot.
    pub(crate) fn resend<R: Compound>(self: &Arc<Self>, req: &R, guard: &mut SlotGuard) -> Option<InFlight> {
        let (lease, sessionid) = {
            let st = self.state();
            if st.generation != guard.generation || self.closed.load(Relaxed) {
                guard.armed = false;
                return None;
            }
            (st.slots.lease_again(guard.lease.slotid), st.sessionid)
        };
        guard.armed = false;
        Some(self.send_on(req, lease, guard.generation, sessionid))
    }

    fn send_on<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        lease: SlotLease,
        generation: u64,
        sessionid: SessionId4,
    ) -> InFlight {
        let seq = SequenceArgs {
            sessionid,
            sequenceid: lease.seqid,
            slotid: lease.slotid,
            highest_slotid: lease.highest_slotid,
            cachethis: req.cache_this(),
        };
        let stateid_other = req.open().map(|s| s.stateid().other);
        let Encoded { call, ops } = req.encode(self, seq);
        let (tx, rx) = reply_channel();
        let sent_at = Instant::now();
        self.pick().transport.submit(call, tx);
        let guard = SlotGuard { session: self.clone(), lease, generation, armed: true };
        InFlight { rx: Some(rx), guard, sent_at, ops, stateid_other }
    }

    /// The reply to the call on `guard`'s slot, sent at `sent_at`, came back with this SEQUENCE
    /// outcome: what to do with the call, and the loss its status flags report, if any. A successful
    /// SEQUENCE renews the lease as of when it was sent (one lock for both).
    pub(crate) fn settle(
        &self,
        guard: &mut SlotGuard,
        outcome: SequenceOutcome,
        sent_at: Instant,
    ) -> (Verdict, Option<Loss>) {
        let (verdict, loss) = {
            let mut st = self.state();
            let verdict = if st.generation == guard.generation {
                st.slots.on_reply(guard.lease.slotid, outcome)
            } else {
                // A reply from a session since replaced: the slot is gone with its table.
                match outcome {
                    SequenceOutcome::Ok { status_flags, .. } => Verdict::Done { status_flags },
                    SequenceOutcome::Failed(_) => Verdict::RetryNewSlot,
                }
            };
            let loss = match verdict {
                Verdict::Done { status_flags } => st.after_sequence(sent_at, status_flags, self.callbacks_answered),
                _ => None,
            };
            (verdict, loss)
        };
        // The slot stays held only for a retry on it.
        guard.armed = matches!(verdict, Verdict::RetrySameSlot { .. });
        self.wake_waiters();
        (verdict, loss)
    }

    /// The call on `slotid` of session `generation` ended without a reply.
    pub(crate) fn abandon(&self, slotid: u32, generation: u64) {
        {
            let mut st = self.state();
            if st.generation == generation {
                st.slots.abandon(slotid);
            }
        }
        self.wake_waiters();
    }
}
