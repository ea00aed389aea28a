//! [`Pending`]: the future of a submitted call. The reply is decoded when it is polled, on the
//! caller's task, so the connection's reader task only matches xids. An NFSv4 call is a future of its
//! own (a slot to wait for, retries the session asks for), boxed.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::error::ClientError;
use crate::transport::{ReplyReceiver, RpcReply};

/// Decodes a reply for procedure `proc`; `arg` is a number from the call the decoder checks the
/// reply against (the READ count).
pub(crate) type Decoder<T> = fn(proc: &'static str, reply: RpcReply, arg: u32) -> Result<T, ClientError>;

/// The future of an NFSv4 call.
pub(crate) type Session<T> = Pin<Box<dyn Future<Output = Result<T, ClientError>> + Send>>;

/// A call handed to a connection, resolving to its decoded result. `Send + 'static`; dropping it
/// abandons the call (the transport stops retransmitting it).
#[must_use = "a Pending does nothing unless awaited; dropping it abandons the call"]
pub struct Pending<T> {
    state: State<T>,
    proc: &'static str,
    decode: Decoder<T>,
    arg: u32,
}

enum State<T> {
    Waiting(ReplyReceiver),
    Session(Session<T>),
    /// Boxed: a failed call is rare, and the error would make every call's future as large as it.
    Failed(Box<ClientError>),
    Done,
}

/// A decoder never run: an NFSv4 call decodes in its own future.
fn no_decoder<T>(proc: &'static str, _: RpcReply, _: u32) -> Result<T, ClientError> {
    Err(ClientError::Closed { proc })
}

impl<T> Pending<T> {
    pub(crate) fn new(rx: ReplyReceiver, proc: &'static str, decode: Decoder<T>, arg: u32) -> Self {
        Pending { state: State::Waiting(rx), proc, decode, arg }
    }

    /// A call refused before it was sent.
    pub(crate) fn failed(err: ClientError, proc: &'static str, decode: Decoder<T>) -> Self {
        Pending { state: State::Failed(Box::new(err)), proc, decode, arg: 0 }
    }

    /// A call refused before it was sent, for a caller without a decoder (NFSv4).
    pub(crate) fn refused(err: ClientError, proc: &'static str) -> Self {
        Pending { state: State::Failed(Box::new(err)), proc, decode: no_decoder, arg: 0 }
    }

    /// An NFSv4 call: already sent when a slot was free, its future does the rest.
    pub(crate) fn session(proc: &'static str, future: Session<T>) -> Self {
        Pending { state: State::Session(future), proc, decode: no_decoder, arg: 0 }
    }

    /// The procedure's name ("READ", ...).
    pub fn proc(&self) -> &'static str {
        self.proc
    }
}

impl<T> Future for Pending<T> {
    type Output = Result<T, ClientError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let outcome = match &mut this.state {
            State::Waiting(rx) => match rx.poll_outcome(cx, this.proc) {
                Poll::Ready(outcome) => outcome,
                Poll::Pending => return Poll::Pending,
            },
            State::Session(future) => {
                let done = std::task::ready!(future.as_mut().poll(cx));
                this.state = State::Done;
                return Poll::Ready(done);
            }
            State::Failed(_) => match std::mem::replace(&mut this.state, State::Done) {
                State::Failed(err) => Err(*err),
                _ => Err(ClientError::Closed { proc: this.proc }),
            },
            State::Done => Err(ClientError::Closed { proc: this.proc }),
        };
        this.state = State::Done;
        Poll::Ready(outcome.and_then(|reply| (this.decode)(this.proc, reply, this.arg)))
    }
}

impl<T> fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Waiting(_) | State::Session(_) => "waiting",
            State::Failed(_) => "failed",
            State::Done => "done",
        };
        f.debug_struct("Pending").field("proc", &self.proc).field("state", &state).finish()
    }
}
