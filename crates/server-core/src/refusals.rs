//! [`RefusalThrottle`]: the rule both front ends apply to a connection whose calls keep being refused.
//!
//! A refused call is one the RPC layer refused (bad RPC version, credentials, program, garbage:
//! [`nfs_server::Reply::is_rpc_refusal`]), one the service refused as only a broken or hostile client
//! makes it fail (an NFSv4 COMPOUND failing with BADXDR, BADSESSION, SEQ_MISORDERED, ...:
//! [`nfs_server::Reply::is_refused`]), a reply to a backward call nobody made, or what the transport
//! itself answered with an error (RPC-over-RDMA's RDMA_ERROR). Such a peer is not a client doing work:
//! past [`REFUSALS_PER_WINDOW`] in a [`REFUSAL_WINDOW`] it gets one turn per [`REFUSAL_PAUSE`]. Each call
//! still gets its answer (RFC 5531); only the pace changes. Sans I/O: the front end says what was
//! refused and what time it is, and sleeps for the pause it is given.

use std::time::{Duration, Instant};

/// Refused calls a connection may have in a [`REFUSAL_WINDOW`] before it is throttled: far more than a
/// misconfigured client sends before it gives up, far fewer than a flood. At 1,000, one connection
/// hammering an NFSv4.1 slot one call at a time (a quarter of its calls refused) stayed just under the
/// allowance at 4,000 calls a second and left the v4.1 good client 0.78-0.91x of its IOPS on 2 cores;
/// at 250 it is held to about 1,000 calls a second.
pub const REFUSALS_PER_WINDOW: u32 = 250;
pub const REFUSAL_WINDOW: Duration = Duration::from_secs(1);
/// How long a throttled connection is left alone before its next turn. Its sends then stall in flow
/// control (TCP's window, RPC-over-RDMA's credits: the replies that grant more wait too), so the flood
/// costs neither the server nor the machine's other clients CPU.
pub const REFUSAL_PAUSE: Duration = Duration::from_millis(50);

/// One connection's count of refused calls in its current window.
#[derive(Debug, Clone)]
pub struct RefusalThrottle {
    refusals: u32,
    window: Instant,
}

impl RefusalThrottle {
    /// A connection opened at `now`, nothing refused yet.
    pub fn new(now: Instant) -> Self {
        RefusalThrottle { refusals: 0, window: now }
    }

    /// Counts one refused call.
    pub fn refused(&mut self) {
        self.refusals = self.refusals.saturating_add(1);
    }

    /// Counts the call whose reply this is when that reply is a refusal.
    pub fn observe(&mut self, reply: &nfs_server::Reply) {
        if reply.is_refused() {
            self.refused();
        }
    }

    /// Before the connection's next turn: how long to wait first, if at all. Past the allowance within
    /// the window, [`REFUSAL_PAUSE`]; once the window is over, a new one begins with nothing counted.
    /// The clock is read only past the allowance (this runs before every turn).
    pub fn pause(&mut self, clock: impl FnOnce() -> Instant) -> Option<Duration> {
        if self.refusals <= REFUSALS_PER_WINDOW {
            return None;
        }
        let now = clock();
        if now.saturating_duration_since(self.window) >= REFUSAL_WINDOW {
            self.window = now;
            self.refusals = 0;
            return None;
        }
        Some(REFUSAL_PAUSE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refuse(throttle: &mut RefusalThrottle, n: u32) {
        (0..n).for_each(|_| throttle.refused());
    }

    #[test]
    fn the_allowance_passes_unpaused_and_one_more_in_the_window_is_paused() {
        let start = Instant::now();
        let mut throttle = RefusalThrottle::new(start);
        refuse(&mut throttle, REFUSALS_PER_WINDOW);
        assert_eq!(throttle.pause(|| start + Duration::from_millis(10)), None);
        throttle.refused();
        assert_eq!(throttle.pause(|| start + Duration::from_millis(10)), Some(REFUSAL_PAUSE));
        assert_eq!(throttle.pause(|| start + Duration::from_millis(900)), Some(REFUSAL_PAUSE), "still this window");
    }

    #[test]
    fn a_new_window_forgives_what_the_last_one_counted() {
        let start = Instant::now();
        let mut throttle = RefusalThrottle::new(start);
        refuse(&mut throttle, REFUSALS_PER_WINDOW + 1);
        let later = start + REFUSAL_WINDOW;
        assert_eq!(throttle.pause(|| later), None, "the window is over");
        refuse(&mut throttle, REFUSALS_PER_WINDOW);
        assert_eq!(throttle.pause(|| later + Duration::from_millis(1)), None, "a whole allowance again");
        throttle.refused();
        assert_eq!(throttle.pause(|| later + Duration::from_millis(2)), Some(REFUSAL_PAUSE));
    }

    #[test]
    fn only_refused_replies_count() {
        let start = Instant::now();
        let mut throttle = RefusalThrottle::new(start);
        // xid, CALL/REPLY word, MSG_ACCEPTED, an empty AUTH_NONE verifier, SUCCESS: all zeros.
        let served = nfs_server::Reply::from_inline(vec![0; 24]);
        let mut refused = served.clone();
        refused.mark_refused();
        for _ in 0..=REFUSALS_PER_WINDOW {
            throttle.observe(&served);
        }
        assert_eq!(throttle.pause(|| start), None);
        for _ in 0..=REFUSALS_PER_WINDOW {
            throttle.observe(&refused);
        }
        assert_eq!(throttle.pause(|| start), Some(REFUSAL_PAUSE));
    }
}
