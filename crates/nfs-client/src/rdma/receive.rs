//! The receive side of a slot: a batch of completions from the driver. Each reply returns its call's
//! credit and carries the new grant (RFC 8166 §3.3.1); it is matched by xid to a sent call, whose memory
//! is invalidated and given back before the reply is put together and handed over. Messages that do
//! not decode, or match no sent call, are counted and dropped (RFC 8166 §4.5.2: a requester does not
//! answer them). Every message's receive is posted again before more calls go out, and before any
//! reply to a call of the server's (RFC 8167, `callback.rs`): those calls are told apart first, take
//! no credit and match nothing of ours, and are answered once the batch is done.

use std::sync::atomic::Ordering::Relaxed;

use bytes::Bytes;
use rdma::{Completion, CompletionKind, QueuePair, RdmaError, WcError, WrId};

use super::callback::{self, FromServer, BACKWARD_CREDITS, BACKWARD_TAG};
use super::connection::{finish, Call, Connection};
use super::reply::{self, Received};
use crate::error::ClientError;
use crate::lanes::Counters;

/// Why a queue pair is broken.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Broken {
    #[error("work request {wr_id:#x} failed: {error}")]
    WorkRequest { wr_id: WrId, error: WcError },
    #[error("posting receives failed: {0}")]
    PostingReceives(RdmaError),
}

impl Connection {
    /// Handles a batch of completions of `qp`: credits, replies, reposted receives, then more calls.
    /// An error completion means the queue pair is broken: `Err` with the reason.
    pub(crate) fn on_completions(&self, batch: &mut Vec<Completion>, qp: &dyn QueuePair) -> Result<(), Broken> {
        // Sized for the batch up front: a call is large, and growing the list would move every one.
        let (mut done, mut failed, mut unknown, mut broken) = (Vec::with_capacity(batch.len()), Vec::new(), 0u64, None);
        let mut calls_in = Vec::new();
        {
            let mut st = self.lock();
            let st = &mut *st;
            let mut received = 0u32;
            for completion in batch.drain(..) {
                match completion.result {
                    Ok(CompletionKind::Send) if completion.wr_id & BACKWARD_TAG != 0 => {
                        st.backward_sends = st.backward_sends.saturating_sub(1);
                    }
                    Ok(CompletionKind::Send) => st.sends = st.sends.saturating_sub(1),
                    Ok(CompletionKind::Recv(message)) => {
                        received += 1;
                        match reply::parse(&message) {
                            Ok(msg) => match callback::classify(&msg.header, &msg.inline) {
                                FromServer::Call(record) => calls_in.push((msg.header.xid, record)),
                                FromServer::Refused => self.shared.callbacks.not_served(),
                                FromServer::Reply => {
                                    // RFC 8166 §3.3.1: a reply returns its call's credit and carries the new grant.
                                    st.credits.on_reply(msg.header.credits);
                                    match st.calls.take(msg.header.xid, true) {
                                        Some(c) => done.push((c, msg)),
                                        None => unknown += 1,
                                    }
                                }
                            },
                            Err(e) => {
                                unknown += 1;
                                tracing::debug!(server = %self.remote, "dropped an undecodable RPC-over-RDMA reply: {e}");
                            }
                        }
                    }
                    Ok(CompletionKind::Read | CompletionKind::Write) => {}
                    Err(e) => {
                        broken.get_or_insert(Broken::WorkRequest { wr_id: completion.wr_id, error: e });
                    }
                }
            }
            st.replies_here += done.len() as u64;
            // Each message used up a receive: post it again before a new call can be answered into it.
            if broken.is_none() && received > 0 {
                if let Err(e) = qp.post_recvs(received) {
                    broken = Some(Broken::PostingReceives(e));
                }
            }
            if broken.is_none() {
                self.pump(st, &mut failed);
            }
        }
        if unknown > 0 {
            self.counters.unknown_replies.fetch_add(unknown, Relaxed);
            tracing::debug!(server = %self.remote, unknown, "dropped replies matching no outstanding call");
        }
        // Only a reply to one of our calls says the server is back.
        if let Some(notice) = (!done.is_empty()).then(|| self.shared.responsiveness.replied()).flatten() {
            tracing::info!(server = %self.remote, "{notice}");
        }
        deliver(done, &self.counters);
        finish(failed);
        if broken.is_none() && !calls_in.is_empty() {
            self.answer_calls(calls_in, qp);
        }
        broken.map_or(Ok(()), Err)
    }

    /// Answers the server's calls of a batch (their receives already posted again): the handler's
    /// replies, each an inline Send, [`BACKWARD_CREDITS`] outstanding at most; a call past them is not
    /// served, and a reply too large for the server's inline size is dropped (both counted).
    fn answer_calls(&self, calls: Vec<(u32, Bytes)>, qp: &dyn QueuePair) {
        let callbacks = &self.shared.callbacks;
        let (room, send_limit) = {
            let st = self.lock();
            (BACKWARD_CREDITS.saturating_sub(st.backward_sends), st.link.as_ref().map(|l| l.limits.send as usize))
        };
        let Some(send_limit) = send_limit else {
            return calls.iter().for_each(|_| callbacks.not_served());
        };
        let mut messages = Vec::new();
        for (xid, record) in calls {
            if messages.len() as u32 >= room {
                callbacks.not_served();
                continue;
            }
            let Some(reply) = callbacks.serve(&record, self.index) else { continue };
            match callback::reply_message(xid, &reply, send_limit) {
                Some(message) => messages.push((xid, message)),
                None => {
                    tracing::debug!(server = %self.remote, xid, len = reply.len(), "reply to a server's call too large");
                    callbacks.reply_dropped();
                }
            }
        }
        // Only this task posts these Sends and counts them: the room taken above is still there.
        let mut st = self.lock();
        for (xid, message) in messages {
            match qp.post_send(BACKWARD_TAG | WrId::from(xid), &[&message]) {
                Ok(()) => st.backward_sends += 1,
                Err(e) => {
                    tracing::debug!(server = %self.remote, xid, "reply to a server's call not sent: {e}");
                    callbacks.reply_dropped();
                }
            }
        }
    }
}

/// Completes answered calls: memory invalidated and given back, reply put together, sender completed.
fn deliver(done: Vec<(Call, Received)>, counters: &Counters) {
    for (c, msg) in done {
        let proc = c.call.proc;
        let outcome = c.extra.into_offered().map_err(|detail| ClientError::protocol(proc, detail)).and_then(
            |(offered, copied)| {
                counters.bytes_copied.fetch_add(copied, Relaxed);
                reply::assemble(proc, msg, offered)
            },
        );
        c.reply.send(outcome);
    }
}
