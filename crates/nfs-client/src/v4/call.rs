//! The life of one session COMPOUND: sent on a slot, its reply's SEQUENCE settled by the slot table,
//! and retried as the result asks — on the same slot (NFS4ERR_DELAY, a misordered sequence id), on a
//! new one, after a recovery of the session or of the client ID, after a back-off for NFS4ERR_DELAY
//! and NFS4ERR_GRACE (Linux's `nfs4_handle_exception`), or after the open it carries was made again
//! when the server revoked its stateid.

use std::sync::Arc;

use nfs4_proto::NfsErr4;

use super::compound::Compound;
use super::recovery::{loss_of_op_error, state_revoked, Loss};
use super::session::{InFlight, Mode, Session};
use super::slots::{retry_delay, Verdict};
use crate::error::ClientError;

/// Reopens of a revoked open one call tries before it fails.
const MAX_REOPENS: u32 = 2;

impl Session {
    /// Runs `req` to its result: `first` is the COMPOUND already sent (the two-phase `submit_*`), else it
    /// is sent once a slot is free.
    pub(crate) async fn run<R: Compound>(
        self: &Arc<Self>,
        req: &R,
        first: Option<InFlight>,
        mode: Mode,
    ) -> Result<R::Output, ClientError> {
        let proc = req.name();
        let mut next = first;
        let (mut delays, mut reopens) = (0u32, 0u32);
        loop {
            let mut flight = match next.take() {
                Some(flight) => flight,
                None => self.send(req, mode).await?,
            };
            let Some(rx) = flight.rx.take() else { return Err(ClientError::Closed { proc }) };
            // A transport error (soft timeout, unmount) drops the guard armed: the slot moves on.
            let reply = rx.wait(proc).await?;
            let decoded = req.decode(self, &reply, &flight.ops)?;
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
                        Ok(output) => return Ok(output),
                        Err(None) => {
                            return Err(ClientError::protocol(proc, "the COMPOUND ended before its last operation"))
                        }
                        Err(Some((_, status))) => status,
                    };
                    match status {
                        // RFC 8881 §15.1.1.3, §15.1.9.2: try again later (Linux: nfs4_delay, 0.1 s to 15 s).
                        NfsErr4::Delay | NfsErr4::Grace => {
                            tokio::time::sleep(retry_delay(delays)).await;
                            delays += 1;
                        }
                        e if mode == Mode::Normal && loss_of_op_error(e).is_some() => {
                            self.kick(Loss::ClientId, Some(generation));
                        }
                        NfsErr4::BadStateId
                        | NfsErr4::StaleStateId
                        | NfsErr4::OldStateId
                        | NfsErr4::Expired
                        | NfsErr4::AdminRevoked
                        | NfsErr4::DelegRevoked
                            if mode == Mode::Normal && req.open().is_some() && reopens < MAX_REOPENS =>
                        {
                            reopens += 1;
                            if let Some(open) = req.open() {
                                // Someone (a reclaim, another call) has made it again already: just resend.
                                if Some(open.stateid().other) == flight.stateid_other {
                                    self.reopen(open).await?;
                                }
                            }
                        }
                        status => return Err(ClientError::Nfs4 { proc, status }),
                    }
                }
                Verdict::RetrySameSlot { delay, .. } => {
                    if delay {
                        tokio::time::sleep(retry_delay(delays)).await;
                        delays += 1;
                    }
                    next = self.resend(req, &mut flight.guard);
                }
                Verdict::RetryNewSlot => {}
                Verdict::RecoverSession(status) => {
                    if mode == Mode::Recovery {
                        return Err(ClientError::Nfs4 { proc, status });
                    }
                    self.kick(Loss::Session, Some(generation));
                }
                Verdict::Failed(status) => match loss_of_op_error(status) {
                    Some(loss) if mode == Mode::Normal => self.kick(loss, Some(generation)),
                    _ => return Err(ClientError::Nfs4 { proc, status }),
                },
            }
        }
    }
}
