//! The retransmission policy of every transport, sans I/O: nfs(5)'s `timeo`, `retrans` and
//! `hard`/`soft` as the Linux client applies them (net/sunrpc `xprt_adjust_timeout` with the TCP
//! transport's linear backoff). A call without a reply after `timeo` has timed out; each later wait is
//! `timeo` longer than the one before, at most 600 s. After `retrans` such timeouts the next one is a
//! major timeout: a soft mount fails the call, a hard mount says "server not responding, still trying"
//! once and starts the cycle over with `timeo`.
//!
//! What a timeout does to the connection is the transport's decision, not the policy's (see
//! [`crate::calls::Recovery`]): over TCP the call is sent again on the same connection; over
//! RPC-over-RDMA the queue pair is replaced and the call is sent on the new one.

use std::time::Duration;

use mount_options::MountSpec;

/// nfs(5): "the maximum timeout value for NFS over TCP is 600 seconds" (`NFS_MAX_TCP_TIMEOUT`, also
/// used for RDMA).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

/// When a call is retransmitted and when it is given up on: the `timeo`, `retrans` and `hard`/`soft`
/// mount options (nfs(5)), the same for TCP and RPC-over-RDMA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetransmitPolicy {
    /// Wait for a reply before the first timeout (nfs(5) `timeo`).
    pub timeo: Duration,
    /// Timeouts of one cycle before a major timeout (nfs(5) `retrans`).
    pub retrans: u32,
    /// Hard mount: keep trying after a major timeout; soft (`false`): fail the call.
    pub hard: bool,
}

/// What a call's timeout leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Try again and wait [`RetransmitPolicy::timeout`] of the new retry count.
    Retry,
    /// A major timeout on a hard mount: the cycle starts over and the server is reported as not
    /// responding.
    MajorRetry,
    /// A major timeout on a soft mount: the call fails.
    GiveUp,
}

impl RetransmitPolicy {
    /// The policy of `spec`'s `timeo`, `retrans` and `hard`/`soft`.
    pub fn of(spec: &MountSpec) -> Self {
        RetransmitPolicy { timeo: spec.timeo, retrans: spec.retrans, hard: spec.hard }
    }

    /// The wait after the transmission that follows `retries` timeouts of the current cycle: linear
    /// backoff as Linux's TCP transport, `timeo * (retries + 1)`, at most [`MAX_TIMEOUT`] (and at least
    /// a millisecond, so a deadline is always in the future).
    pub fn timeout(&self, retries: u32) -> Duration {
        self.timeo.saturating_mul(retries.saturating_add(1)).min(MAX_TIMEOUT).max(Duration::from_millis(1))
    }

    /// A call with `retries` timeouts in its cycle has timed out again: the verdict, and `retries`
    /// updated (one more, or 0 when the cycle starts over).
    pub fn on_timeout(&self, retries: &mut u32) -> Verdict {
        if *retries < self.retrans {
            *retries += 1;
            Verdict::Retry
        } else if self.hard {
            *retries = 0;
            Verdict::MajorRetry
        } else {
            Verdict::GiveUp
        }
    }

    /// How often a driver checks deadlines: a tenth of `timeo` within 5 ms ..= 1 s, so a call is
    /// retransmitted at most that late.
    pub fn tick(&self) -> Duration {
        (self.timeo / 10).clamp(Duration::from_millis(5), Duration::from_secs(1))
    }

    /// How long a driver waits for a connection to be accepted: `timeo` within 1 s ..= 60 s.
    pub fn connect_timeout(&self) -> Duration {
        self.timeo.clamp(Duration::from_secs(1), Duration::from_secs(60))
    }
}
