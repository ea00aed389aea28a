//! The life of one session COMPOUND: sent on a slot, its reply's SEQUENCE settled by the slot table,
//! and retried as the result asks — on the same slot (NFS4ERR_DELAY, a misordered sequence id), on a
//! new one, after a recovery of the session or of the client ID, after a back-off for NFS4ERR_DELAY
//! and NFS4ERR_GRACE (Linux's `nfs4_handle_exception`), or after the open it carries was made again
//! when the server revoked its stateid.
//!
//! [`Session::answer`] reads one reply and says what comes next ([`Step`]) without waiting for
//! anything, so the data path reads its first reply in a plain future (`started.rs`) and only a call
//! that must be retried goes on in [`Session::run_after`], the loop with the waits.

use std::sync::Arc;

use nfs4_proto::NfsErr4;

use super::compound::Compound;
use super::recovery::{loss_of_op_error, state_revoked, Loss};
use super::session::{InFlight, Mode, Session};
use super::slots::{retry_delay, Verdict};
use crate::error::ClientError;
use crate::transport::RpcReply;

/// Reopens of a revoked open one call tries before it fails.
const MAX_REOPENS: u32 = 2;
/// Sends of a call answered NFS4ERR_RETRY_UNCACHED_REP one call makes again before it fails.
const MAX_UNCACHED_RETRIES: u32 = 2;

/// The retries a call has made so far.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Retries {
    delays: u32,
    reopens: u32,
    uncached: u32,
}

/// What a reply leads to.
#[derive(Debug)]
pub(crate) enum Step<T> {
    /// The call's result.
    Done(T),
    /// Send the call again on a new slot (after a recovery was started, or a slot retired).
    NewSlot,
    /// Wait (NFS4ERR_DELAY, NFS4ERR_GRACE), then send again on a new slot.
    Delay,
    /// Make the call's open again unless someone did already (its stateid `other` is no longer the one
    /// sent), then send again on a new slot.
    Reopen { sent: Option<[u8; 12]> },
    /// Send again on the slot `flight` still holds, after a wait when `delay`.
    SameSlot { flight: InFlight, delay: bool },
}

impl Session {
    /// Runs `req` to its result: `first` is the COMPOUND already sent (the two-phase `submit_*`), else it
    /// is sent once a slot is free.
    pub(crate) async fn run<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        first: Option<InFlight>,
        mode: Mode,
    ) -> Result<R::Output, ClientError> {
        self.run_after(req, first, mode, Retries::default()).await
    }

    /// [`run`](Self::run) for a call that has made `retries` already.
    pub(crate) async fn run_after<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        first: Option<InFlight>,
        mode: Mode,
        mut retries: Retries,
    ) -> Result<R::Output, ClientError> {
        let proc = req.name();
        let mut next = first;
        loop {
            let mut flight = match next.take() {
                Some(flight) => flight,
                None => self.send(req, mode).await?,
            };
            let Some(rx) = flight.rx.take() else { return Err(ClientError::Closed { proc }) };
            // A transport error (soft timeout, unmount) drops the guard armed: the slot moves on.
            let reply = rx.wait(proc).await?;
            match self.answer(req, flight, &reply, mode, &mut retries)? {
                Step::Done(output) => return Ok(output),
                step => next = self.step(req, step, &mut retries).await?,
            }
        }
    }

    /// What `reply` to `req`, sent as `flight`, leads to: its SEQUENCE settled on the slot (a loss it
    /// reports starts a recovery), then the result, or the retry it asks for; `Err` ends the call.
    pub(crate) fn answer<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        mut flight: InFlight,
        reply: &RpcReply,
        mode: Mode,
        retries: &mut Retries,
    ) -> Result<Step<R::Output>, ClientError> {
        let proc = req.name();
        let decoded = req.decode(self, reply, &flight.ops)?;
        let Some(sequence) = decoded.sequence else {
            return Err(match decoded.outcome {
                Err(Some((_, status))) => ClientError::Nfs4 { proc, status },
                _ => ClientError::protocol(proc, "the reply has no SEQUENCE result"),
            });
        };
        let generation = flight.guard.generation;
        let (verdict, loss) = self.settle(&mut flight.guard, sequence, flight.sent_at);
        if let Some(loss) = loss {
            self.kick(loss, Some(generation));
        }
        match verdict {
            Verdict::Done { status_flags } => {
                if state_revoked(status_flags) {
                    tracing::warn!(
                        status_flags,
                        "the server revoked state of this client; opens are made again as they are used"
                    );
                }
                let status = match decoded.outcome {
                    Ok(output) => return Ok(Step::Done(output)),
                    Err(None) => {
                        return Err(ClientError::protocol(proc, "the COMPOUND ended before its last operation"))
                    }
                    Err(Some((_, status))) => status,
                };
                match status {
                    // RFC 8881 §15.1.1.3, §15.1.9.2: try again later (Linux: nfs4_delay, 0.1 s to 15 s).
                    NfsErr4::Delay | NfsErr4::Grace => Ok(Step::Delay),
                    // A call sent again on its slot after a reconnection whose first reply the server
                    // did not cache: knfsd replays SEQUENCE and answers the next operation so (its
                    // nfsd4_enc_sequence_replay). The slot has moved on; the call goes again as a new
                    // request, as Linux's nfs4_do_handle_exception retries it.
                    NfsErr4::RetryUncachedRep if retries.uncached < MAX_UNCACHED_RETRIES => {
                        retries.uncached += 1;
                        Ok(Step::NewSlot)
                    }
                    e if mode == Mode::Normal && loss_of_op_error(e).is_some() => {
                        self.kick(Loss::ClientId, Some(generation));
                        Ok(Step::NewSlot)
                    }
                    NfsErr4::BadStateId
                    | NfsErr4::StaleStateId
                    | NfsErr4::OldStateId
                    | NfsErr4::Expired
                    | NfsErr4::AdminRevoked
                    | NfsErr4::DelegRevoked
                        if mode == Mode::Normal && req.open().is_some() && retries.reopens < MAX_REOPENS =>
                    {
                        retries.reopens += 1;
                        Ok(Step::Reopen { sent: flight.stateid_other })
                    }
                    status => Err(ClientError::Nfs4 { proc, status }),
                }
            }
            Verdict::RetrySameSlot { delay, .. } => Ok(Step::SameSlot { flight, delay }),
            Verdict::RetryNewSlot => Ok(Step::NewSlot),
            Verdict::RecoverSession(status) => {
                if mode == Mode::Recovery {
                    return Err(ClientError::Nfs4 { proc, status });
                }
                self.kick(Loss::Session, Some(generation));
                Ok(Step::NewSlot)
            }
            Verdict::Failed(status) => match loss_of_op_error(status) {
                Some(loss) if mode == Mode::Normal => {
                    self.kick(loss, Some(generation));
                    Ok(Step::NewSlot)
                }
                _ => Err(ClientError::Nfs4 { proc, status }),
            },
        }
    }

    /// Carries out a retry `step` (not [`Step::Done`]): the COMPOUND sent again on the slot it holds, or
    /// `None` when it is to take a new one.
    pub(crate) async fn step<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        step: Step<R::Output>,
        retries: &mut Retries,
    ) -> Result<Option<InFlight>, ClientError> {
        match step {
            Step::Done(_) | Step::NewSlot => Ok(None),
            Step::Delay => {
                tokio::time::sleep(retry_delay(retries.delays)).await;
                retries.delays += 1;
                Ok(None)
            }
            Step::Reopen { sent } => {
                if let Some(open) = req.open() {
                    // Someone (a reclaim, another call) has made it again already: just resend.
                    if Some(open.stateid().other) == sent {
                        self.reopen(open).await?;
                    }
                }
                Ok(None)
            }
            Step::SameSlot { mut flight, delay } => {
                if delay {
                    tokio::time::sleep(retry_delay(retries.delays)).await;
                    retries.delays += 1;
                }
                Ok(self.resend(req, &mut flight.guard))
            }
        }
    }
}
