//! Timeouts over RPC-over-RDMA, with the TCP transport's `timeo` / `retrans` / `hard` / `soft` rules
//! (nfs(5)) and the Linux xprtrdma twist: RDMA is reliable and a responder counts every call against
//! its credits, so nothing is ever sent twice on one queue pair. Instead a sent call that times out
//! forces a reconnection (`xprt_rdma_timer`: "RDMA connections don't have a keep-alive"), and every
//! outstanding call is sent again on the new queue pair, same xid, fresh registrations. After `retrans`
//! timeouts a soft mount fails the call with [`ClientError::TimedOut`]; a hard mount logs "server not
//! responding, still trying" and starts over. Calls still waiting for a credit (or a connection) time
//! out the same way, which is what frees a caller stuck behind a server that never grants one.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::watch;

use super::connection::{finish, Connection, Outstanding};
use crate::error::ClientError;

impl Connection {
    /// Counts timeouts, fails soft calls past `retrans`, and asks for a reconnection when a sent call
    /// timed out; forgets unsent calls nobody waits for any more.
    pub(crate) fn check_timeouts(&self, now: Instant) {
        let policy = self.shared.policy;
        let (mut major, mut drop_link) = (0u64, false);
        let mut failed: Vec<Outstanding> = Vec::new();
        {
            let mut st = self.lock();
            let st = &mut *st;
            // A sent call keeps its credit and its registered memory until its reply (or the queue pair)
            // ends, even when nobody waits for it; an unsent one can go at once.
            st.calls.retain(|_, c| c.sent || !c.reply.is_closed());
            let mut give_up = Vec::new();
            for (&xid, c) in st.calls.iter_mut().filter(|(_, c)| c.deadline <= now) {
                drop_link |= c.sent;
                if c.retries < policy.retrans {
                    c.retries += 1;
                } else {
                    major += 1;
                    if !policy.hard {
                        give_up.push(xid);
                        continue;
                    }
                    c.retries = 0;
                }
                c.deadline = now + policy.timeout(c.retries);
            }
            failed.extend(give_up.into_iter().filter_map(|xid| st.calls.remove(&xid)));
            drop_link &= st.link.is_some();
            if drop_link {
                st.drop_requested = st.link.as_ref().map(|l| l.generation());
            }
        }
        if drop_link {
            self.kick.notify_one();
        }
        self.counters.major_timeouts(major, &self.shared.not_responding, policy.hard, self.remote);
        if !failed.is_empty() {
            self.counters.soft_timeouts.fetch_add(failed.len() as u64, Relaxed);
            let failed = failed.into_iter().map(|c| {
                let after = now.saturating_duration_since(c.submitted);
                let err = ClientError::TimedOut { proc: c.call.proc, after };
                (c, err)
            });
            finish(failed.collect());
        }
    }
}

/// The timer task of one slot, until shutdown: deadlines checked ten times per `timeo`.
pub(crate) async fn run(conn: Arc<Connection>, mut shutdown: watch::Receiver<bool>) {
    let mut ticks = tokio::time::interval(conn.shared.policy.tick());
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => conn.check_timeouts(Instant::now()),
            _ = shutdown.wait_for(|&stop| stop) => return,
        }
    }
}
