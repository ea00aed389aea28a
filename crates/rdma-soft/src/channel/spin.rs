//! When a receiver should poll its ring instead of sleeping, sans I/O: an adaptive spin.
//!
//! Sleeping costs a doorbell and a wake-up (tens of microseconds when the CPU has gone idle in a
//! virtual machine); polling costs CPU that a peer on the same core may need. So a wait polls for a
//! short window only while polling has been paying: a message caught while polling earns credit, a
//! window that ends without one costs more, and with no credit left only every [`PROBE_EVERY`]th
//! wait polls, to notice when the machine has become quiet again.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Environment variable: the spin window in microseconds (0: never poll).
pub(crate) const SPIN_ENV: &str = "NFSBENCH_SOFT_SPIN_US";
const DEFAULT_WINDOW: Duration = Duration::from_micros(20);
const MAX_CREDIT: i32 = 8;
const START_CREDIT: i32 = 2;
/// With no credit, one wait in this many polls anyway.
pub(crate) const PROBE_EVERY: u32 = 32;

/// The spin window: [`SPIN_ENV`] or 20 µs.
pub(crate) fn spin_window() -> Duration {
    static WINDOW: OnceLock<Duration> = OnceLock::new();
    *WINDOW.get_or_init(|| {
        std::env::var(SPIN_ENV).ok().and_then(|v| v.parse().ok()).map_or(DEFAULT_WINDOW, Duration::from_micros)
    })
}

/// The spin state of one receiver.
#[derive(Debug)]
pub(crate) struct Spin {
    window: Duration,
    credit: i32,
    waits: u32,
    /// When the current polling wait began.
    since: Option<Instant>,
}

impl Spin {
    pub(crate) fn new(window: Duration) -> Spin {
        Spin { window, credit: START_CREDIT, waits: 0, since: None }
    }

    /// A message arrived: polling paid if it was under way (and a probe that pays is believed at once).
    pub(crate) fn arrived(&mut self) {
        if self.since.take().is_some() {
            self.credit = (self.credit + 1).clamp(1, MAX_CREDIT);
        }
    }

    /// The ring is empty at `now`: true to poll again soon, false to sleep.
    pub(crate) fn keep_polling(&mut self, now: Instant) -> bool {
        if self.window.is_zero() {
            return false;
        }
        match self.since {
            Some(since) if now.saturating_duration_since(since) < self.window => true,
            Some(_) => {
                // The window passed without a message: polling did not pay.
                self.since = None;
                self.credit = (self.credit - 2).max(-MAX_CREDIT);
                false
            }
            None => {
                self.waits = self.waits.wrapping_add(1);
                let poll = self.credit > 0 || self.waits.is_multiple_of(PROBE_EVERY);
                if poll {
                    self.since = Some(now);
                }
                poll
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WINDOW: Duration = Duration::from_micros(20);

    /// One wait that ends with a message after `after`, or with sleep when `after` is past the window.
    fn wait(spin: &mut Spin, start: Instant, after: Duration) -> bool {
        let polled = spin.keep_polling(start);
        if polled && after < WINDOW {
            spin.arrived();
        } else if polled {
            assert!(!spin.keep_polling(start + after));
        }
        polled
    }

    #[test]
    fn polls_while_messages_come_within_the_window() {
        let mut spin = Spin::new(WINDOW);
        let t = Instant::now();
        assert!((0..100).all(|_| wait(&mut spin, t, Duration::from_micros(3))));
    }

    #[test]
    fn stops_polling_when_windows_pass_empty_and_probes_now_and_then() {
        let mut spin = Spin::new(WINDOW);
        let t = Instant::now();
        let polled = (0..200).filter(|_| wait(&mut spin, t, Duration::from_micros(500))).count();
        assert!(polled <= 2 + 200 / PROBE_EVERY as usize, "polled {polled} times");
        // A quiet machine again: the probes find messages and polling resumes.
        let polled = (0..200).filter(|_| wait(&mut spin, t, Duration::from_micros(2))).count();
        assert!(polled > 150, "polled {polled} times");
    }

    #[test]
    fn a_zero_window_never_polls() {
        let mut spin = Spin::new(Duration::ZERO);
        assert!(!spin.keep_polling(Instant::now()));
    }
}
