//! The task behind one emulated queue pair: posts the inner work requests at their times, drains the
//! inner completion queue into the timeline, and releases completions when they are due, sleeping on
//! the microsecond clock in between. It ends once the inner queue pair is down and everything held
//! has been handed to the caller (or when the wrapper is dropped: it is aborted).

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::Poll;
use std::time::Instant;

use ::rdma::QueuePair;

use super::schedule::{Op, State};
use crate::clock::{sleep_until, Sleep};

pub(super) fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs the timeline of `inner` until the connection is down and drained.
pub(super) async fn drive(state: Arc<Mutex<State>>, inner: Arc<dyn QueuePair>) {
    let mut sleep: Option<Sleep> = None;
    let mut batch = Vec::new();
    let mut inner_down = false;
    poll_fn(|cx| loop {
        let mut progressed = false;
        if !inner_down {
            match inner.poll_completions(cx, &mut batch) {
                Poll::Ready(Ok(())) => {
                    // Read after the completions: the peer counted before posting what we just got.
                    let counters = inner.peer_one_sided();
                    lock(&state).on_inner(Instant::now(), &mut batch, counters);
                    progressed = true;
                }
                // Disconnected (or any error): every request the inner held has completed.
                Poll::Ready(Err(_)) => {
                    inner_down = true;
                    lock(&state).on_inner_down(Instant::now());
                    progressed = true;
                }
                Poll::Pending => {}
            }
        }
        let due = lock(&state).take_due(Instant::now());
        for (id, op) in due {
            // Not under our lock: the caller keeps posting while the inner copies.
            let posted = match &op {
                Op::Send(message) => inner.post_send(id, &[message]),
                Op::Write { local, offset, remote } => inner.post_write(id, local, *offset, *remote),
                Op::Read { local, offset, remote } => inner.post_read(id, local, *offset, *remote),
                Op::WriteGather { sources, remote } => inner.post_write_gather(id, sources, *remote),
            };
            if let Err(error) = posted {
                lock(&state).post_failed(id, error, Instant::now());
            }
            progressed = true;
        }
        let (caller, finished, next) = {
            let mut st = lock(&state);
            let caller = st.release(Instant::now());
            st.task = Some(cx.waker().clone());
            (caller, st.finished(), st.next_deadline())
        };
        if let Some(waker) = caller {
            waker.wake();
        }
        if finished {
            return Poll::Ready(());
        }
        if progressed {
            continue;
        }
        let Some(at) = next else {
            sleep = None;
            return Poll::Pending;
        };
        let timer = match &mut sleep {
            Some(s) if s.deadline() == at => s,
            _ => sleep.insert(sleep_until(at)),
        };
        if Pin::new(timer).poll(cx).is_pending() {
            return Poll::Pending;
        }
    })
    .await
}
