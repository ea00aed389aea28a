//! Recovery of a mount's state, sans I/O: what was lost, and the steps that bring it back, in order.
//!
//! - A connection replaced by the transport (or a callback path the server says is down): bind the
//!   connections to the session again (BIND_CONN_TO_SESSION). The transport has already sent the
//!   calls outstanding on it again, with their slots and sequence ids, so the server's reply cache
//!   answers those it had executed (RFC 8881 §2.10.6.2).
//! - The session (NFS4ERR_BADSESSION, NFS4ERR_DEADSESSION, a retired slot): CREATE_SESSION with the
//!   same client ID, then bind the connections.
//! - The client ID (NFS4ERR_STALE_CLIENTID from CREATE_SESSION: the server restarted; or
//!   SEQ4_STATUS_RESTART_RECLAIM_NEEDED): EXCHANGE_ID with the same owner and verifier, CREATE_SESSION,
//!   bind, reclaim every open file (OPEN with CLAIM_PREVIOUS), RECLAIM_COMPLETE (RFC 8881 §8.4.2.1).
//!
//! A worse loss found while recovering restarts at its first step; NFS4ERR_DELAY and losses of the
//! connection retry the step after a back-off. Linux's state manager (`nfs4_state_manager`) runs the
//! same ladder.

use nfs4_proto::{
    NfsErr4, SEQ4_STATUS_ADMIN_STATE_REVOKED, SEQ4_STATUS_CB_PATH_DOWN, SEQ4_STATUS_CB_PATH_DOWN_SESSION,
    SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED, SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED, SEQ4_STATUS_RESTART_RECLAIM_NEEDED,
};

/// What was lost, from least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Loss {
    /// A connection (or the callback path) is not bound to the session.
    Connection,
    /// The session is gone; the client ID is not.
    Session,
    /// The server no longer knows the client ID: it restarted.
    ClientId,
}

/// One step of a recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    ExchangeId,
    CreateSession,
    BindConnections,
    /// OPEN with CLAIM_PREVIOUS for every open file.
    Reclaim,
    ReclaimComplete,
}

impl Loss {
    /// The steps that recover from this loss, in order.
    pub(crate) fn steps(self) -> &'static [Step] {
        match self {
            Loss::Connection => &[Step::BindConnections],
            Loss::Session => &[Step::CreateSession, Step::BindConnections],
            Loss::ClientId => {
                &[Step::ExchangeId, Step::CreateSession, Step::BindConnections, Step::Reclaim, Step::ReclaimComplete]
            }
        }
    }
}

/// How a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StepOutcome {
    Done,
    /// The server answered with this status (of the step's operation, or of its SEQUENCE).
    Refused(NfsErr4),
    /// No answer: the connection is down or the call timed out.
    NoReply,
}

/// What the recovery does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// Run this step.
    Run(Step),
    /// Run this step again after a back-off (attempt number for [`super::slots::retry_delay`]).
    RetryAfter(Step, u32),
    /// Everything is back: calls may go out again.
    Recovered,
    /// The state cannot be recovered: calls fail with this status.
    Failed(Step, NfsErr4),
}

/// A recovery in progress.
#[derive(Debug, Clone)]
pub(crate) struct Recovery {
    loss: Loss,
    at: usize,
    /// Failed attempts of the current step.
    attempts: u32,
    failed: Option<(Step, NfsErr4)>,
}

impl Recovery {
    pub(crate) fn new(loss: Loss) -> Self {
        Recovery { loss, at: 0, attempts: 0, failed: None }
    }

    pub(crate) fn loss(&self) -> Loss {
        self.loss
    }

    /// The step to run now (after a back-off when it failed before), or how the recovery ended.
    pub(crate) fn next(&self) -> Next {
        if let Some((step, e)) = self.failed {
            return Next::Failed(step, e);
        }
        match self.loss.steps().get(self.at) {
            Some(&step) if self.attempts > 0 => Next::RetryAfter(step, self.attempts - 1),
            Some(&step) => Next::Run(step),
            None => Next::Recovered,
        }
    }

    /// Another loss reported while recovering: a worse one restarts at its first step, a lesser or
    /// equal one is already being taken care of.
    pub(crate) fn escalate(&mut self, loss: Loss) {
        if loss > self.loss {
            *self = Recovery::new(loss);
        }
    }

    /// The current step ended with `outcome`.
    pub(crate) fn step_ended(&mut self, outcome: StepOutcome) -> Next {
        let Some(&step) = self.loss.steps().get(self.at).filter(|_| self.failed.is_none()) else { return self.next() };
        match outcome {
            StepOutcome::Done => {
                self.at += 1;
                self.attempts = 0;
                self.next()
            }
            StepOutcome::NoReply | StepOutcome::Refused(NfsErr4::Delay) => {
                self.attempts += 1;
                self.next()
            }
            StepOutcome::Refused(e) => match lost_by(step, e) {
                // A loss found after the first step (the session just made is gone again) restarts too.
                Some(worse) if worse > self.loss || self.at > 0 => {
                    *self = Recovery::new(worse.max(self.loss));
                    self.next()
                }
                _ => {
                    self.failed = Some((step, e));
                    self.next()
                }
            },
        }
    }
}

/// The loss a step's error reveals, if any.
fn lost_by(step: Step, e: NfsErr4) -> Option<Loss> {
    match e {
        // RFC 8881 §18.36.4: the client ID is unknown (the server restarted) or has expired.
        NfsErr4::StaleClientId | NfsErr4::Expired if step != Step::ExchangeId => Some(Loss::ClientId),
        NfsErr4::BadSession | NfsErr4::DeadSession | NfsErr4::ConnNotBoundToSession => Some(Loss::Session),
        _ => None,
    }
}

/// The loss an operation's error reveals when it comes back on a session COMPOUND (after SEQUENCE
/// succeeded): the server no longer knows the client (state lost with a restart).
pub(crate) fn loss_of_op_error(e: NfsErr4) -> Option<Loss> {
    match e {
        NfsErr4::StaleClientId => Some(Loss::ClientId),
        _ => None,
    }
}

/// What `sr_status_flags` (RFC 8881 §18.46.3) ask of the client, if anything: reclaim after a restart
/// the server noticed (Linux: `nfs41_handle_server_reboot`), or bind a connection for callbacks again
/// (`nfs41_handle_cb_path_down`).
pub(crate) fn loss_of_flags(flags: u32, callbacks_answered: bool) -> Option<Loss> {
    if flags & SEQ4_STATUS_RESTART_RECLAIM_NEEDED != 0 {
        return Some(Loss::ClientId);
    }
    // Without a callback handler the path stays down whatever we bind: asking again would loop.
    if callbacks_answered && flags & (SEQ4_STATUS_CB_PATH_DOWN | SEQ4_STATUS_CB_PATH_DOWN_SESSION) != 0 {
        return Some(Loss::Connection);
    }
    None
}

/// State the server revoked (its lease expired on it, or an administrator): opens must be made anew.
pub(crate) fn state_revoked(flags: u32) -> bool {
    flags
        & (SEQ4_STATUS_EXPIRED_ALL_STATE_REVOKED
            | SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED
            | SEQ4_STATUS_ADMIN_STATE_REVOKED)
        != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(r: &mut Recovery) -> Vec<Step> {
        let mut steps = Vec::new();
        while let Next::Run(step) = r.next() {
            steps.push(step);
            r.step_ended(StepOutcome::Done);
        }
        steps
    }

    #[test]
    fn each_loss_recovers_with_its_ladder() {
        assert_eq!(run(&mut Recovery::new(Loss::Connection)), [Step::BindConnections]);
        assert_eq!(run(&mut Recovery::new(Loss::Session)), [Step::CreateSession, Step::BindConnections]);
        assert_eq!(
            run(&mut Recovery::new(Loss::ClientId)),
            [Step::ExchangeId, Step::CreateSession, Step::BindConnections, Step::Reclaim, Step::ReclaimComplete]
        );
    }

    #[test]
    fn a_server_restart_found_by_create_session_escalates_to_reclaim() {
        let mut r = Recovery::new(Loss::Session);
        assert_eq!(r.step_ended(StepOutcome::Refused(NfsErr4::StaleClientId)), Next::Run(Step::ExchangeId));
        assert_eq!(r.loss(), Loss::ClientId);
        assert_eq!(r.step_ended(StepOutcome::Done), Next::Run(Step::CreateSession));
    }

    #[test]
    fn delay_and_lost_connections_retry_the_step_with_a_growing_back_off() {
        let mut r = Recovery::new(Loss::Session);
        assert_eq!(r.step_ended(StepOutcome::NoReply), Next::RetryAfter(Step::CreateSession, 0));
        assert_eq!(r.next(), Next::RetryAfter(Step::CreateSession, 0), "the back-off is remembered");
        assert_eq!(r.step_ended(StepOutcome::Refused(NfsErr4::Delay)), Next::RetryAfter(Step::CreateSession, 1));
        assert_eq!(r.step_ended(StepOutcome::Done), Next::Run(Step::BindConnections));
        assert_eq!(r.step_ended(StepOutcome::NoReply), Next::RetryAfter(Step::BindConnections, 0));
    }

    #[test]
    fn a_session_lost_midway_restarts_the_ladder_and_a_lesser_loss_does_not() {
        let mut r = Recovery::new(Loss::ClientId);
        r.step_ended(StepOutcome::Done);
        r.step_ended(StepOutcome::Done);
        assert_eq!(r.next(), Next::Run(Step::BindConnections));
        assert_eq!(r.step_ended(StepOutcome::Refused(NfsErr4::BadSession)), Next::Run(Step::ExchangeId));
        r.escalate(Loss::Connection);
        assert_eq!((r.loss(), r.next()), (Loss::ClientId, Next::Run(Step::ExchangeId)));
        let mut c = Recovery::new(Loss::Connection);
        c.escalate(Loss::Session);
        assert_eq!(c.next(), Next::Run(Step::CreateSession));
    }

    #[test]
    fn other_refusals_fail_the_recovery_naming_the_step() {
        let mut r = Recovery::new(Loss::ClientId);
        assert_eq!(r.step_ended(StepOutcome::Refused(NfsErr4::Perm)), Next::Failed(Step::ExchangeId, NfsErr4::Perm));
        assert_eq!(r.next(), Next::Failed(Step::ExchangeId, NfsErr4::Perm), "and stays failed");
        let mut s = Recovery::new(Loss::Session);
        assert_eq!(
            s.step_ended(StepOutcome::Refused(NfsErr4::BadSession)),
            Next::Failed(Step::CreateSession, NfsErr4::BadSession),
            "CREATE_SESSION cannot lose the session it makes"
        );
    }

    #[test]
    fn status_flags_ask_for_reclaim_or_a_new_binding() {
        assert_eq!(loss_of_flags(SEQ4_STATUS_RESTART_RECLAIM_NEEDED, false), Some(Loss::ClientId));
        assert_eq!(loss_of_flags(SEQ4_STATUS_CB_PATH_DOWN_SESSION, true), Some(Loss::Connection));
        assert_eq!(loss_of_flags(SEQ4_STATUS_CB_PATH_DOWN, false), None, "no callback handler: nothing to bind");
        assert_eq!(loss_of_flags(0, true), None);
        assert!(state_revoked(SEQ4_STATUS_EXPIRED_SOME_STATE_REVOKED));
        assert!(!state_revoked(SEQ4_STATUS_CB_PATH_DOWN));
        assert_eq!(loss_of_op_error(NfsErr4::StaleClientId), Some(Loss::ClientId));
        assert_eq!(loss_of_op_error(NfsErr4::Io), None);
    }
}
