//! Rate-limited log lines: a peer that makes the server warn once per call (a stream of calls with a bad
//! RPC version, undecodable arguments, refused credentials) must not turn stderr into its own channel.
//!
//! Each `tracing` call site may log [`BURST`] events per [`WINDOW`]; further events of that call site in
//! the same window are counted, not written, and once the window is over one line says how many were
//! left out ("N more like this in the last second: <the first left-out message>"). The kernel does the
//! same for its network warnings (net_ratelimit: a burst of 10, then silence for the rest of 5 s).
//!
//! The check runs only for events that already passed the level filter (warnings by default), so the
//! cost of a suppressed event is one lock and a map lookup, not a formatted line and a write.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tracing::callsite::Identifier;
use tracing::field::{Field, Visit};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer};

/// Events one call site may write per window.
pub const BURST: u32 = 10;
/// The window over which [`BURST`] applies.
pub const WINDOW: Duration = Duration::from_secs(1);
/// The target of the summary lines (never limited themselves).
const SUMMARY_TARGET: &str = "nfsbench::log";

#[derive(Debug)]
struct Site {
    started: Instant,
    written: u32,
    suppressed: u64,
    level: tracing::Level,
    /// The message of the first event left out in this window.
    example: String,
}

/// What the summaries report: per call site, how many events were left out in a finished window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub level: tracing::Level,
    pub suppressed: u64,
    pub example: String,
}

/// The shared counting state of a [`RateLimit`] layer.
#[derive(Debug, Default)]
pub struct Counts {
    sites: Mutex<HashMap<Identifier, Site>>,
}

impl Counts {
    fn lock(&self) -> MutexGuard<'_, HashMap<Identifier, Site>> {
        self.sites.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one event at `now`: true when it may be written.
    fn admit(&self, event: &Event<'_>, now: Instant) -> bool {
        let meta = event.metadata();
        let mut sites = self.lock();
        let site = sites.entry(meta.callsite()).or_insert_with(|| Site {
            started: now,
            written: 0,
            suppressed: 0,
            level: *meta.level(),
            example: String::new(),
        });
        if now.duration_since(site.started) >= WINDOW && site.suppressed == 0 {
            // A quiet site starts a fresh window; one with left-out events waits for its summary.
            site.started = now;
            site.written = 0;
        }
        if site.written < BURST {
            site.written += 1;
            return true;
        }
        if site.suppressed == 0 {
            let mut visitor = MessageOf(&mut site.example);
            event.record(&mut visitor);
        }
        site.suppressed += 1;
        false
    }

    /// Takes the counts of every window finished by `now`, restarting those windows.
    pub fn take_finished(&self, now: Instant) -> Vec<Summary> {
        let mut out = Vec::new();
        for site in self.lock().values_mut() {
            if site.suppressed > 0 && now.duration_since(site.started) >= WINDOW {
                out.push(Summary {
                    level: site.level,
                    suppressed: site.suppressed,
                    example: std::mem::take(&mut site.example),
                });
                site.started = now;
                site.written = 0;
                site.suppressed = 0;
            }
        }
        out
    }
}

/// The layer: drops events over the budget of their call site before any other layer sees them.
#[derive(Debug, Clone, Default)]
pub struct RateLimit {
    counts: Arc<Counts>,
}

impl RateLimit {
    pub fn new() -> RateLimit {
        RateLimit::default()
    }

    /// The counts, for the thread that writes the summaries.
    pub fn counts(&self) -> Arc<Counts> {
        Arc::clone(&self.counts)
    }
}

impl<S: Subscriber> Layer<S> for RateLimit {
    fn event_enabled(&self, event: &Event<'_>, _cx: Context<'_, S>) -> bool {
        event.metadata().target() == SUMMARY_TARGET || self.counts.admit(event, Instant::now())
    }
}

/// Writes the summary lines of finished windows, once per window, for as long as the process lives.
pub fn spawn_summaries(counts: Arc<Counts>) {
    let spawned = std::thread::Builder::new().name("log-limit".into()).spawn(move || loop {
        std::thread::sleep(WINDOW);
        for s in counts.take_finished(Instant::now()) {
            let n = s.suppressed;
            match s.level {
                tracing::Level::ERROR => {
                    tracing::error!(target: SUMMARY_TARGET, "{n} more like this in the last second: {}", s.example)
                }
                tracing::Level::WARN => {
                    tracing::warn!(target: SUMMARY_TARGET, "{n} more like this in the last second: {}", s.example)
                }
                _ => tracing::info!(target: SUMMARY_TARGET, "{n} more like this in the last second: {}", s.example),
            }
        }
    });
    if let Err(err) = spawned {
        tracing::debug!(error = %err, "log summaries not started");
    }
}

/// Collects an event's message and fields into one line.
struct MessageOf<'a>(&'a mut String);

impl Visit for MessageOf<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, "{}={value:?}", field.name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing_subscriber::layer::SubscriberExt;

    /// A layer that counts the events it is given.
    #[derive(Default, Clone)]
    struct Seen(Arc<Mutex<Vec<String>>>);

    impl<S: Subscriber> Layer<S> for Seen {
        fn on_event(&self, event: &Event<'_>, _cx: Context<'_, S>) {
            let mut line = String::new();
            event.record(&mut MessageOf(&mut line));
            self.0.lock().expect("lock").push(line);
        }
    }

    #[test]
    fn a_flood_from_one_call_site_writes_a_burst_then_one_summary() {
        let limit = RateLimit::new();
        let counts = limit.counts();
        let seen = Seen::default();
        let subscriber = tracing_subscriber::registry().with(limit).with(seen.clone());
        tracing::subscriber::with_default(subscriber, || {
            for xid in 0..1000 {
                tracing::warn!(xid, "RPC version mismatch");
            }
            tracing::warn!("another call site is not held back");
        });
        let lines = seen.0.lock().expect("lock").clone();
        assert_eq!(lines.len(), BURST as usize + 1, "{lines:?}");
        assert!(lines[0].contains("RPC version mismatch") && lines[0].contains("xid=0"));
        assert!(lines.last().is_some_and(|l| l.contains("another call site")));
        assert!(counts.take_finished(Instant::now()).is_empty(), "the window is not over yet");
        let summaries = counts.take_finished(Instant::now() + WINDOW);
        assert_eq!(summaries.len(), 1);
        assert_eq!(summaries[0].suppressed, 1000 - u64::from(BURST));
        assert!(summaries[0].example.contains("xid=10"), "{:?}", summaries[0].example);
    }

    #[test]
    fn a_new_window_admits_a_new_burst() {
        let seen = Seen::default();
        let limit = RateLimit::new();
        let shared = limit.counts();
        let subscriber = tracing_subscriber::registry().with(limit).with(seen.clone());
        tracing::subscriber::with_default(subscriber, || {
            for _ in 0..2 {
                for _ in 0..(BURST * 2) {
                    tracing::warn!("again");
                }
                // The summary thread's step, as if a window had passed.
                let _ = shared.take_finished(Instant::now() + WINDOW);
            }
        });
        assert_eq!(seen.0.lock().expect("lock").len(), 2 * BURST as usize);
    }
}
