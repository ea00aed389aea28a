//! Retransmission as the Linux NFS client does it over TCP (nfs(5) `timeo`, `retrans`, `hard`/`soft`;
//! net/sunrpc `xprt_adjust_timeout`): a call without a reply after `timeo` is sent again with the same
//! xid, each wait `timeo` longer than the one before (at most 600 s). After `retrans` retransmissions
//! the next timeout is a major timeout: a soft mount fails the call, a hard mount logs "server not
//! responding, still trying" once and starts over with `timeo`.
//!
//! Deadlines are checked by one timer task per connection at a tick of a tenth of `timeo`, so a
//! call is retransmitted at most that late; the submission path never touches a timer.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::connection::{waited, Connection};
use crate::error::ClientError;

/// nfs(5): "the maximum timeout value for NFS over TCP is 600 seconds".
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// When to retransmit and when to give up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RetransmitPolicy {
    pub(crate) timeo: Duration,
    pub(crate) retrans: u32,
    pub(crate) hard: bool,
}

impl RetransmitPolicy {
    /// The wait after the transmission that follows `retries` timeouts of this major cycle: linear
    /// backoff, `timeo * (retries + 1)`, capped at 600 s.
    pub(crate) fn timeout(&self, retries: u32) -> Duration {
        self.timeo.saturating_mul(retries.saturating_add(1)).min(MAX_TIMEOUT).max(Duration::from_millis(1))
    }

    /// How often deadlines are checked.
    pub(crate) fn tick(&self) -> Duration {
        (self.timeo / 10).clamp(Duration::from_millis(5), Duration::from_secs(1))
    }
}

impl Connection {
    /// Retransmits or fails every call past its deadline; forgets calls nobody waits for any more.
    pub(crate) fn check_timeouts(&self, now: Instant) {
        let policy = self.shared.policy;
        let mut wake = false;
        let mut major = 0u64;
        let mut failed = Vec::new();
        {
            let mut st = self.lock();
            let st = &mut *st;
            let mut give_up = Vec::new();
            st.calls.retain(|_, c| !c.reply.is_closed());
            for (&xid, c) in st.calls.iter_mut().filter(|(_, c)| c.deadline <= now) {
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
                if !c.queued {
                    c.queued = true;
                    st.queue.push(xid);
                    wake = true;
                }
            }
            for xid in give_up {
                if let Some(c) = st.calls.remove(&xid) {
                    failed.push(c);
                }
            }
        }
        if wake {
            self.wake.notify_one();
        }
        self.counters.major_timeouts(major, &self.shared.not_responding, policy.hard, self.remote);
        if !failed.is_empty() {
            self.counters.soft_timeouts.fetch_add(failed.len() as u64, Relaxed);
            for c in failed {
                let after = waited(&c, now);
                c.reply.send(Err(ClientError::TimedOut { proc: c.call.proc, after }));
            }
        }
    }
}

/// The timer task of one connection, until shutdown.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_grow_by_timeo_each_retry_up_to_600_seconds() {
        let p = RetransmitPolicy { timeo: Duration::from_secs(60), retrans: 2, hard: true };
        assert_eq!(p.timeout(0), Duration::from_secs(60));
        assert_eq!(p.timeout(1), Duration::from_secs(120));
        assert_eq!(p.timeout(2), Duration::from_secs(180));
        assert_eq!(p.timeout(20), MAX_TIMEOUT);
    }

    #[test]
    fn deadlines_are_checked_ten_times_per_timeo_within_bounds() {
        let p = |ms| RetransmitPolicy { timeo: Duration::from_millis(ms), retrans: 2, hard: true }.tick();
        assert_eq!(p(100), Duration::from_millis(10));
        assert_eq!(p(10), Duration::from_millis(5));
        assert_eq!(p(60_000), Duration::from_secs(1));
    }
}
