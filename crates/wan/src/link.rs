//! The link model, sans I/O: times in, times out.
//!
//! A [`Direction`] is one way of the path. A message of N bytes handed to it at `now` waits until the
//! direction is free (earlier messages of every connection still serialising), occupies it for
//! N·8/rate, and arrives one propagation delay after its last bit left, plus a uniform draw from
//! [0, jitter); a lost message (probability `loss`) arrives one round trip later, as its retransmission
//! would, and serialises twice. A [`Flow`] is one connection's stream through a direction: its messages
//! never overtake each other, however the jitter falls (TCP and RDMA RC both deliver in order).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mount_options::LinkSpec;

/// One way of the emulated path, shared by every connection of the process.
#[derive(Debug)]
pub struct Direction {
    spec: LinkSpec,
    state: Mutex<DirectionState>,
}

#[derive(Debug)]
struct DirectionState {
    /// When the last bit of the last message accepted leaves.
    free_at: Option<Instant>,
    rng: fastrand::Rng,
}

impl Direction {
    fn new(spec: LinkSpec, seed: u64) -> Direction {
        Direction { spec, state: Mutex::new(DirectionState { free_at: None, rng: fastrand::Rng::with_seed(seed) }) }
    }

    /// When a message of `bytes` handed over at `now` arrives at the far end.
    pub fn transmit(&self, now: Instant, bytes: u64) -> Instant {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let start = state.free_at.map_or(now, |free| free.max(now));
        let on_wire = self.spec.serialisation(bytes);
        let mut done = start + on_wire;
        let mut arrival = done + self.spec.one_way();
        if !self.spec.jitter.is_zero() {
            arrival += self.spec.jitter.mul_f64(state.rng.f64());
        }
        if self.spec.loss > 0.0 && state.rng.f64() < self.spec.loss {
            // Resent once the loss is noticed (a round trip), serialising again.
            done += on_wire;
            arrival += self.spec.rtt + on_wire;
        }
        state.free_at = Some(done);
        arrival
    }

    /// Propagation delay of this direction.
    pub fn one_way(&self) -> Duration {
        self.spec.one_way()
    }
}

/// The emulated path from this process to its peers: `outbound` carries what this side sends,
/// `inbound` what it receives.
#[derive(Debug)]
pub struct Link {
    pub spec: LinkSpec,
    pub outbound: Direction,
    pub inbound: Direction,
}

impl Link {
    pub fn new(spec: LinkSpec) -> Arc<Link> {
        Self::with_seed(spec, 0x6e66_7362_656e_6368)
    }

    /// The link with its jitter and loss drawn from `seed` (repeatable runs).
    pub fn with_seed(spec: LinkSpec, seed: u64) -> Arc<Link> {
        Arc::new(Link {
            outbound: Direction::new(spec.clone(), seed),
            inbound: Direction::new(spec.clone(), seed ^ 0x5555_5555_5555_5555),
            spec,
        })
    }
}

/// One connection's messages through a direction, kept in order.
#[derive(Debug, Default, Clone)]
pub struct Flow {
    last: Option<Instant>,
}

impl Flow {
    /// The arrival of this connection's next message: the direction's, but never before the previous one.
    pub fn arrival(&mut self, direction: &Direction, now: Instant, bytes: u64) -> Instant {
        let arrival = direction.transmit(now, bytes);
        let arrival = self.last.map_or(arrival, |last| arrival.max(last));
        self.last = Some(arrival);
        arrival
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(text: &str) -> Arc<Link> {
        Link::new(LinkSpec::parse(text).expect("spec"))
    }

    #[test]
    fn a_lone_message_arrives_after_its_serialisation_and_half_the_round_trip() {
        let l = link("rtt=20ms,rate=1gbit");
        let t0 = Instant::now();
        // 125,000 bytes at 1 Gbit/s: 1 ms on the wire, then 10 ms of propagation.
        assert_eq!(l.outbound.transmit(t0, 125_000), t0 + Duration::from_millis(11));
        // The other direction is free: a small reply pays propagation only.
        assert_eq!(l.inbound.transmit(t0, 0), t0 + Duration::from_millis(10));
    }

    #[test]
    fn back_to_back_messages_queue_behind_each_other_so_the_rate_caps_bandwidth() {
        let l = link("rtt=2ms,rate=1gbit");
        let t0 = Instant::now();
        let mut last = t0;
        for _ in 0..1000 {
            last = l.outbound.transmit(t0, 125_000);
        }
        // 1000 × 1 ms on the wire, then 1 ms of propagation: 1 Gbit/s, whatever the senders offered.
        assert_eq!(last, t0 + Duration::from_millis(1001));
        // A message handed over after the queue drained starts at once.
        let later = t0 + Duration::from_secs(5);
        assert_eq!(l.outbound.transmit(later, 0), later + Duration::from_millis(1));
    }

    #[test]
    fn jitter_never_reorders_a_flow_and_stays_within_its_bound() {
        let l = link("rtt=10ms,jitter=4ms");
        let t0 = Instant::now();
        let mut flow = Flow::default();
        let mut previous = t0;
        for i in 0..10_000u32 {
            let now = t0 + Duration::from_micros(u64::from(i));
            let a = flow.arrival(&l.outbound, now, 100);
            assert!(a >= previous, "in order");
            assert!(a >= now + Duration::from_millis(5), "never before propagation");
            previous = a;
        }
        let mut lone = Flow::default();
        let a = lone.arrival(&l.inbound, t0, 100);
        assert!(a < t0 + Duration::from_millis(9), "at most one-way + jitter: {:?}", a - t0);
    }

    #[test]
    fn lost_messages_arrive_a_round_trip_late_at_about_the_given_rate() {
        let l = link("rtt=10ms,loss=10%");
        let t0 = Instant::now();
        let late = (0..10_000).filter(|_| l.outbound.transmit(t0, 0) > t0 + Duration::from_millis(5)).count();
        assert!((800..1200).contains(&late), "{late} of 10000 lost");
    }
}
