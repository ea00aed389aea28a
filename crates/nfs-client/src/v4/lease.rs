//! The client's lease (RFC 8881 §8.3), sans I/O: every successful SEQUENCE renews it as of when its
//! COMPOUND was sent; an idle client renews it with a SEQUENCE-only COMPOUND, as Linux's renewd
//! (`nfs4_renew_state`): the timer looks again two thirds of a lease after the last renewal, and renews
//! once more than a third of the lease has passed without one.

use std::time::{Duration, Instant};

/// Linux looks at the lease no more often than every 5 s; a shorter lease (a test server's) is looked
/// at every third of itself instead, so a renewal always lands inside it.
const MIN_CHECK: Duration = Duration::from_secs(5);

/// The lease of one client ID.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Lease {
    lease_time: Duration,
    last_renewal: Instant,
}

impl Lease {
    /// A lease of `lease_time` (the server's `lease_time` attribute) renewed at `now`.
    pub(crate) fn new(lease_time: Duration, now: Instant) -> Self {
        Lease { lease_time: lease_time.max(Duration::from_secs(1)), last_renewal: now }
    }

    pub(crate) fn lease_time(&self) -> Duration {
        self.lease_time
    }

    /// A SEQUENCE sent at `sent_at` succeeded: the server renewed the lease no earlier than that.
    pub(crate) fn renewed(&mut self, sent_at: Instant) {
        if sent_at > self.last_renewal {
            self.last_renewal = sent_at;
        }
    }

    /// The server changed the lease time (a new client ID after a restart).
    pub(crate) fn set_lease_time(&mut self, lease_time: Duration) {
        self.lease_time = lease_time.max(Duration::from_secs(1));
    }

    /// More than a third of the lease has passed since the last renewal: send a SEQUENCE now.
    pub(crate) fn due(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.last_renewal) > self.lease_time / 3
    }

    /// When to look again: two thirds of the lease after the last renewal, but not sooner than the
    /// check interval from `now`.
    pub(crate) fn next_check(&self, now: Instant) -> Instant {
        let at = self.last_renewal + self.lease_time * 2 / 3;
        at.max(now + MIN_CHECK.min(self.lease_time / 3))
    }

    /// The lease ran out at `now` without a renewal: the server may have dropped the client's state.
    pub(crate) fn expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.last_renewal) > self.lease_time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_idle_lease_is_renewed_after_a_third_and_looked_at_two_thirds_in() {
        let t0 = Instant::now();
        let lease = Lease::new(Duration::from_secs(90), t0);
        assert!(!lease.due(t0 + Duration::from_secs(30)));
        assert!(lease.due(t0 + Duration::from_secs(31)));
        assert_eq!(lease.next_check(t0), t0 + Duration::from_secs(60));
        assert_eq!(lease.next_check(t0 + Duration::from_secs(58)), t0 + Duration::from_secs(63), "5 s at least");
    }

    #[test]
    fn a_busy_client_renews_with_every_sequence_and_never_goes_back_in_time() {
        let t0 = Instant::now();
        let mut lease = Lease::new(Duration::from_secs(9), t0);
        lease.renewed(t0 + Duration::from_secs(8));
        lease.renewed(t0 + Duration::from_secs(2));
        assert!(!lease.due(t0 + Duration::from_secs(11)));
        assert!(lease.due(t0 + Duration::from_secs(12)));
        assert!(!lease.expired(t0 + Duration::from_secs(17)));
        assert!(lease.expired(t0 + Duration::from_secs(18)));
    }

    #[test]
    fn a_short_lease_is_looked_at_every_third_of_itself() {
        let t0 = Instant::now();
        let lease = Lease::new(Duration::from_secs(3), t0);
        assert_eq!(lease.next_check(t0), t0 + Duration::from_secs(2), "inside the lease, not 5 s away");
        assert!(lease.due(lease.next_check(t0)));
        assert_eq!(lease.next_check(t0 + Duration::from_secs(2)), t0 + Duration::from_secs(3));
    }
}
