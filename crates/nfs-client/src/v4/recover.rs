//! Running a recovery ([`super::recovery`]'s ladder) on a live session: one at a time, started by the
//! first call that meets the loss; calls wait while the slot table drains and go on once it is back.
//! Opens whose stateid the server revoked are opened again one by one ([`Session::reopen`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;

use nfs4_proto::{CreateSessionResOk, NfsErr4};

use super::handshake;
use super::lease::Lease;
use super::opens::OpenState;
use super::recovery::{Loss, Next, Recovery, Step, StepOutcome};
use super::requests::io::ReclaimComplete;
use super::requests::open::{Claim, Delegreturn, OpenHandle};
use super::session::{Mode, Session, State};
use super::slots::{retry_delay, SlotTable};
use crate::error::ClientError;

/// How a call's error ends a recovery step.
fn outcome_of(e: &ClientError) -> StepOutcome {
    match e {
        ClientError::Nfs4 { status, .. } => StepOutcome::Refused(*status),
        _ => StepOutcome::NoReply,
    }
}

impl State {
    /// Puts the session CREATE_SESSION made in place: a new slot table, the next generation.
    pub(crate) fn install(&mut self, made: &CreateSessionResOk, wanted: u32) {
        self.sessionid = made.sessionid;
        self.cs_sequence = self.cs_sequence.wrapping_add(1);
        self.generation += 1;
        let draining = self.slots.is_draining();
        self.slots = SlotTable::new(made.fore_chan_attrs.maxrequests, wanted);
        self.slots.set_draining(draining);
        self.lease.renewed(Instant::now());
    }
}

impl Session {
    /// Reports a loss seen by a call on session `generation`: starts a recovery, or makes the one
    /// running recover from the worse loss. A session loss reported from a session already replaced is
    /// over.
    pub(crate) fn kick(self: &Arc<Self>, loss: Loss, generation: Option<u64>) {
        let start = {
            let mut st = self.state();
            if self.closed.load(Relaxed) || st.failed.is_some() {
                return;
            }
            if loss == Loss::Session && generation.is_some_and(|g| g != st.generation) {
                return;
            }
            let start = match &mut st.recovery {
                Some(running) if loss > running.loss() => {
                    running.escalate(loss);
                    st.recovery_epoch += 1;
                    false
                }
                Some(_) => false,
                None => {
                    st.recovery = Some(Recovery::new(loss));
                    st.recovery_epoch += 1;
                    true
                }
            };
            if loss >= Loss::Session {
                st.slots.set_draining(true);
            }
            start
        };
        if start {
            tracing::warn!(?loss, "NFSv4 state lost; recovering");
            tokio::spawn(self.clone().recover());
        }
    }

    /// The recovery task: runs the ladder's steps until it is recovered or fails.
    async fn recover(self: Arc<Self>) {
        loop {
            let (next, epoch) = {
                let st = self.state();
                match &st.recovery {
                    Some(r) => (r.next(), st.recovery_epoch),
                    None => return,
                }
            };
            if self.closed.load(Relaxed) {
                return;
            }
            let step = match next {
                Next::Run(step) => step,
                Next::RetryAfter(step, attempt) => {
                    tokio::time::sleep(retry_delay(attempt)).await;
                    step
                }
                Next::Recovered => return self.recovered(None),
                Next::Failed(step, e) => return self.recovered(Some(format!("{step:?}: {}", e.name()))),
            };
            let outcome = self.run_step(step).await;
            let mut st = self.state();
            if st.recovery_epoch != epoch {
                continue; // escalated meanwhile: the ladder restarted
            }
            let Some(r) = st.recovery.as_mut() else { return };
            // The next turn of the loop runs what this says (a retry after its back-off, the next step).
            if let Next::RetryAfter(step, attempt) = r.step_ended(outcome) {
                tracing::debug!(?step, attempt, "recovery step to be retried");
            }
        }
    }

    /// The recovery ended: calls go on, or fail with `failed`.
    fn recovered(&self, failed: Option<String>) {
        {
            let mut st = self.state();
            st.recovery = None;
            st.slots.set_draining(false);
            if let Some(why) = &failed {
                tracing::error!("NFSv4 recovery failed: {why}");
                st.failed = Some(why.clone());
            } else {
                tracing::info!("NFSv4 state recovered");
            }
        }
        self.changed.notify_waiters();
    }

    async fn run_step(self: &Arc<Self>, step: Step) -> StepOutcome {
        let done = match step {
            Step::ExchangeId => self.step_exchange_id().await,
            Step::CreateSession => self.step_create_session().await,
            Step::BindConnections => {
                let created = self.state().recovery.as_ref().is_some_and(|r| r.loss() != Loss::Connection);
                self.bind_all(created).await
            }
            Step::Reclaim => self.step_reclaim().await,
            Step::ReclaimComplete => self.run(&ReclaimComplete, None, Mode::Recovery).await,
        };
        match done {
            Ok(()) => StepOutcome::Done,
            Err(e) => {
                tracing::debug!(?step, "recovery step: {e}");
                outcome_of(&e)
            }
        }
    }

    async fn step_exchange_id(&self) -> Result<(), ClientError> {
        let conn = &self.conns[0];
        let ex = handshake::exchange_id(&*conn.transport, &self.encoder, self.minor, &self.identity).await?;
        let mut st = self.state();
        st.clientid = ex.clientid;
        st.cs_sequence = ex.sequence;
        Ok(())
    }

    async fn step_create_session(&self) -> Result<(), ClientError> {
        let (clientid, sequence) = {
            let st = self.state();
            (st.clientid, st.cs_sequence)
        };
        let conn = &self.conns[0];
        let made =
            handshake::create_session(&*conn.transport, &self.encoder, self.minor, clientid, sequence, &self.request)
                .await?;
        self.state().install(&made, self.wanted_slots);
        if let Some(callbacks) = &self.callbacks {
            callbacks.reset(made.sessionid, made.back_chan_attrs.maxrequests);
        }
        self.changed.notify_waiters();
        Ok(())
    }

    /// BIND_CONN_TO_SESSION on every connection but the one CREATE_SESSION just went on, when it did
    /// (`created_on_first`): RFC 8881 §18.36.4 binds that one to the session already, and Linux binds
    /// only the others. After a lost connection alone, every connection is bound again.
    pub(crate) async fn bind_all(&self, created_on_first: bool) -> Result<(), ClientError> {
        let sessionid = self.state().sessionid;
        if created_on_first {
            self.conns[0].seen_reconnects.store(self.conns[0].transport.stats().reconnects, Relaxed);
        }
        for conn in &self.conns[usize::from(created_on_first)..] {
            handshake::bind_conn(&*conn.transport, &self.encoder, self.minor, sessionid, self.callbacks_answered)
                .await?;
            conn.seen_reconnects.store(conn.transport.stats().reconnects, Relaxed);
        }
        Ok(())
    }

    /// OPEN with CLAIM_PREVIOUS of every open file (RFC 8881 §8.4.2.1). A file the server will not let
    /// be reclaimed keeps its old stateid: its next I/O meets NFS4ERR_BAD_STATEID and opens it anew.
    async fn step_reclaim(self: &Arc<Self>) -> Result<(), ClientError> {
        let files = self.opens().to_reclaim();
        for file in files {
            let req = OpenHandle { fh: file.fh.clone(), access: file.access, claim: Claim::Previous };
            match self.run(&req, None, Mode::Recovery).await {
                Ok(opened) => {
                    self.opens().reclaimed(&file.fh, opened.stateid);
                    self.return_delegation(&file.fh, opened.delegation);
                }
                Err(ClientError::Nfs4 {
                    status: NfsErr4::NoGrace | NfsErr4::ReclaimBad | NfsErr4::ReclaimConflict,
                    ..
                }) => {
                    tracing::warn!(fh = ?file.fh, "reclaim refused; the file is opened again when next used");
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Opens `open`'s file again (CLAIM_FH) after the server revoked its state, and takes the new
    /// stateid (RFC 8881 §8.2.2 / Linux's `nfs4_open_expired`). A call reopens and the reopen is a
    /// call: the future is boxed (and its type named) to break the cycle.
    pub(crate) fn reopen<'a>(
        self: &'a Arc<Self>,
        open: &'a Arc<OpenState>,
    ) -> Pin<Box<dyn Future<Output = Result<(), ClientError>> + Send + 'a>> {
        Box::pin(async move {
            let access = self.opens().access_for(&open.fh, 0);
            let req = OpenHandle { fh: open.fh.clone(), access: access.max(1), claim: Claim::Fh };
            let opened = self.run(&req, None, Mode::Normal).await?;
            self.opens().reclaimed(&open.fh, opened.stateid);
            self.return_delegation(&open.fh, opened.delegation);
            Ok(())
        })
    }

    /// Gives back, in the background, a delegation the server granted although none was wanted.
    pub(crate) fn return_delegation(
        self: &Arc<Self>,
        fh: &crate::types::FileHandle,
        delegation: Option<nfs4_proto::Stateid4>,
    ) {
        let Some(stateid) = delegation else { return };
        let session = self.clone();
        let req = Delegreturn { fh: fh.clone(), stateid };
        tokio::spawn(async move {
            if let Err(e) = session.run(&req, None, Mode::Normal).await {
                tracing::debug!("DELEGRETURN of an unwanted delegation: {e}");
            }
        });
    }
}

/// The state of a session CREATE_SESSION just made for `clientid`.
pub(crate) fn first_state(
    clientid: u64,
    cs_sequence: u32,
    made: &CreateSessionResOk,
    wanted: u32,
    lease: Lease,
) -> State {
    State {
        clientid,
        cs_sequence: cs_sequence.wrapping_add(1),
        sessionid: made.sessionid,
        generation: 1,
        slots: SlotTable::new(made.fore_chan_attrs.maxrequests, wanted),
        lease,
        recovery: None,
        recovery_epoch: 0,
        failed: None,
        last_rebind: None,
    }
}
