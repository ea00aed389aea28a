//! The tasks of a connection slot, for every transport: the driver serves the current connection until
//! it is lost, makes every outstanding call wait again, and reconnects (lazily: only once a call waits),
//! backing off while attempts fail; the timer checks deadlines. On shutdown the driver fails whatever is
//! outstanding with `Closed`. A transport says what a connection is and how to open and serve one
//! ([`Slot`]); its calls live in a [`crate::calls::CallTable`].

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{watch, Notify};

use crate::lanes::Counters;
use crate::retransmit::RetransmitPolicy;

/// Delay before the second reconnection attempt in a row; doubles up to [`MAX_BACKOFF`]. (Linux waits
/// 3 s to 5 min; a benchmark wants its connections back sooner.)
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The pause before reconnection attempt `failures + 1` after `failures` failed in a row (none before
/// the first retry): [`FIRST_BACKOFF`] doubling up to [`MAX_BACKOFF`].
pub(crate) fn reconnect_delay(failures: u32) -> Duration {
    if failures == 0 {
        return Duration::ZERO;
    }
    FIRST_BACKOFF.saturating_mul(1 << (failures - 1).min(10)).min(MAX_BACKOFF)
}

/// How serving a connection ended.
pub(crate) enum End {
    Shutdown,
    /// The connection broke (or is to be replaced), for this reason.
    Lost(String),
}

/// One connection slot of a transport, as its tasks drive it.
pub(crate) trait Slot: Send + Sync + 'static {
    /// An established connection.
    type Link: Send;
    type OpenError: fmt::Display + Send;
    /// Names the transport in log lines: `""` for TCP, `"RDMA "`.
    const KIND: &'static str;

    fn remote(&self) -> SocketAddr;
    fn index(&self) -> usize;
    fn policy(&self) -> RetransmitPolicy;
    fn counters(&self) -> &Counters;
    /// Notified when a call starts waiting.
    fn wake(&self) -> &Notify;
    /// A call waits for a connection.
    fn has_waiting(&self) -> bool;
    /// Opens a connection to [`remote`](Self::remote).
    fn open(&self) -> impl Future<Output = Result<Self::Link, Self::OpenError>> + Send;
    /// Serves `link` until it is lost or `shutdown` says so.
    fn serve(
        self: &Arc<Self>,
        link: Self::Link,
        shutdown: &mut watch::Receiver<bool>,
    ) -> impl Future<Output = End> + Send;
    /// The connection is gone: every outstanding call waits again. True when it had answered anything.
    fn lost(&self) -> bool;
    /// Retransmits, or fails, the calls past their deadline at `now`.
    fn check_timeouts(&self, now: Instant);
    /// Fails every outstanding and later call with `Closed`.
    fn close(&self);
}

pub(crate) async fn stopped(shutdown: &mut watch::Receiver<bool>) {
    // An error means the transport is gone: stop as well.
    let _ = shutdown.wait_for(|&stop| stop).await;
}

/// The driver task: serves `slot`, starting with the connection `first` made at mount time, until
/// shutdown.
pub(crate) async fn drive<S: Slot>(slot: Arc<S>, first: S::Link, mut shutdown: watch::Receiver<bool>) {
    let mut next = Some(first);
    let mut failures = 0u32;
    loop {
        let link = match next.take() {
            Some(link) => link,
            None => match reconnect(&*slot, &mut shutdown, &mut failures).await {
                Some(link) => link,
                None => break,
            },
        };
        match slot.serve(link, &mut shutdown).await {
            End::Shutdown => break,
            End::Lost(why) => {
                let answered = slot.lost();
                failures = if answered { 0 } else { failures + 1 };
                let (server, connection, kind) = (slot.remote(), slot.index(), S::KIND);
                tracing::warn!(server = %server, connection, "{kind}connection lost: {why}; reconnecting");
            }
        }
    }
    slot.close();
}

/// A new connection once calls are waiting; `None` on shutdown.
async fn reconnect<S: Slot>(slot: &S, shutdown: &mut watch::Receiver<bool>, failures: &mut u32) -> Option<S::Link> {
    loop {
        if !slot.has_waiting() {
            tokio::select! {
                _ = slot.wake().notified() => {}
                _ = stopped(shutdown) => return None,
            }
            continue;
        }
        if *failures > 0 {
            tokio::select! {
                _ = tokio::time::sleep(reconnect_delay(*failures)) => {}
                _ = stopped(shutdown) => return None,
            }
        }
        let attempt = tokio::select! {
            attempt = slot.open() => attempt,
            _ = stopped(shutdown) => return None,
        };
        match attempt {
            Ok(link) => {
                slot.counters().reconnects.fetch_add(1, Relaxed);
                return Some(link);
            }
            Err(e) => {
                *failures += 1;
                let (server, connection, kind) = (slot.remote(), slot.index(), S::KIND);
                tracing::warn!(server = %server, connection, "{kind}reconnect failed: {e}");
            }
        }
    }
}

/// The timer task: deadlines checked every [`RetransmitPolicy::tick`] until shutdown, so the submission
/// path never touches a timer.
pub(crate) async fn time<S: Slot>(slot: Arc<S>, mut shutdown: watch::Receiver<bool>) {
    let mut ticks = tokio::time::interval(slot.policy().tick());
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => slot.check_timeouts(Instant::now()),
            _ = shutdown.wait_for(|&stop| stop) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnection_backs_off_from_nothing_to_100_ms_doubling_up_to_5_s() {
        let delays: Vec<u128> = (0..9).map(|n| reconnect_delay(n).as_millis()).collect();
        assert_eq!(delays, [0, 100, 200, 400, 800, 1600, 3200, 5000, 5000]);
        assert_eq!(reconnect_delay(u32::MAX), MAX_BACKOFF);
    }
}
