//! [`Started`]: the future of a COMPOUND sent on a slot when it was submitted (READ, WRITE and COMMIT,
//! the two-phase `submit_*`). Its first reply is read in `poll` by [`Session::answer`], with no retry
//! loop around it; only a reply that asks for a retry hands the call on to [`Session::run_after`],
//! boxed then. Dropped before its reply, the call gives its slot back unanswered (the slot's guard).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};

use super::call::{Retries, Step};
use super::compound::Compound;
use super::session::{InFlight, Mode};
use crate::error::ClientError;
use crate::transport::ReplyReceiver;

type Retrying<T> = Pin<Box<dyn Future<Output = Result<T, ClientError>> + Send>>;

/// A call sent on a slot, until its result.
pub(crate) struct Started<R: Compound> {
    proc: &'static str,
    state: State<R>,
}

enum State<R: Compound> {
    /// Waiting for the first reply.
    First {
        req: R,
        flight: InFlight,
        rx: ReplyReceiver,
    },
    /// Retried in the session's loop.
    Retrying(Retrying<R::Output>),
    Done,
}

impl<R: Compound> Started<R> {
    /// `req`, sent as `flight`.
    pub(crate) fn new(req: R, mut flight: InFlight) -> Self {
        let proc = req.name();
        let state = match flight.rx.take() {
            Some(rx) => State::First { req, flight, rx },
            None => State::Done,
        };
        Started { proc, state }
    }
}

impl<R: Compound + Unpin> Future for Started<R> {
    type Output = Result<R::Output, ClientError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let proc = this.proc;
        let reply = match &mut this.state {
            State::First { rx, .. } => ready!(rx.poll_outcome(cx, proc)),
            State::Retrying(retrying) => return retrying.as_mut().poll(cx),
            State::Done => return Poll::Ready(Err(ClientError::Closed { proc })),
        };
        let State::First { req, flight, .. } = std::mem::replace(&mut this.state, State::Done) else {
            return Poll::Ready(Err(ClientError::Closed { proc }));
        };
        // A transport error (soft timeout, unmount) drops the guard armed: the slot moves on.
        let reply = match reply {
            Ok(reply) => reply,
            Err(e) => return Poll::Ready(Err(e)),
        };
        let session = Arc::clone(&flight.guard.session);
        let mut retries = Retries::default();
        match session.answer(&req, flight, &reply, Mode::Normal, &mut retries) {
            Err(e) => Poll::Ready(Err(e)),
            Ok(Step::Done(output)) => Poll::Ready(Ok(output)),
            Ok(step) => {
                let mut retrying: Retrying<R::Output> = Box::pin(async move {
                    let next = session.step(&req, step, &mut retries).await?;
                    session.run_after(&req, next, Mode::Normal, retries).await
                });
                let polled = retrying.as_mut().poll(cx);
                this.state = State::Retrying(retrying);
                polled
            }
        }
    }
}
