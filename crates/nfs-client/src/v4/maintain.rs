//! The mount's background task: renews the lease of an idle client with a SEQUENCE-only COMPOUND (as
//! Linux's renewd), and binds a connection the transport replaced to the session again
//! (BIND_CONN_TO_SESSION: the transport has already resent the calls outstanding on it, with their
//! slots and sequence ids, so the server's reply cache answers those it executed). Also the unmount:
//! DESTROY_SESSION and DESTROY_CLIENTID (as Linux does at umount), then the transports stop.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::handshake;
use super::recovery::Loss;
use super::requests::io::Renew;
use super::session::{Mode, Session};

/// How often the connections are looked at for a replacement.
const CONNECTION_CHECK: Duration = Duration::from_secs(1);

impl Session {
    /// Starts the background task; it ends at [`shutdown`](Self::shutdown).
    pub(crate) fn start_maintenance(self: &Arc<Self>) {
        let session = Arc::downgrade(self);
        let mut stop = self.stop.subscribe();
        tokio::spawn(async move {
            let mut warned = false;
            loop {
                let wake = match session.upgrade() {
                    Some(s) => s.state().lease.next_check(Instant::now()).min(Instant::now() + CONNECTION_CHECK),
                    None => return,
                };
                tokio::select! {
                    _ = tokio::time::sleep_until(wake.into()) => {}
                    _ = stop.wait_for(|&stopped| stopped) => return,
                }
                let Some(s) = session.upgrade() else { return };
                if s.closed.load(Relaxed) {
                    return;
                }
                s.check_connections();
                let due = {
                    let st = s.state();
                    let expired = st.lease.expired(Instant::now());
                    if expired && !warned {
                        tracing::warn!(
                            "the NFSv4 lease ran out before it was renewed; the server may drop this client's state"
                        );
                    }
                    warned = expired;
                    st.recovery.is_none() && st.failed.is_none() && st.lease.due(Instant::now())
                };
                if due {
                    // Errors start their own recovery; the next check renews again.
                    if let Err(e) = s.run(&Renew, None, Mode::Normal).await {
                        tracing::debug!("lease renewal: {e}");
                    }
                }
            }
        });
    }

    /// A connection the transport re-established is bound to the session again.
    fn check_connections(self: &Arc<Self>) {
        let replaced = self.conns.iter().any(|c| c.transport.stats().reconnects != c.seen_reconnects.load(Relaxed));
        if replaced {
            tracing::info!("an NFSv4 connection was re-established; binding it to the session");
            self.kick(Loss::Connection, None);
        }
    }

    /// DESTROY_SESSION and DESTROY_CLIENTID on the first connection, then every transport stops; calls
    /// still outstanding fail with `Closed`. The session's errors are returned, the transports stop anyway.
    pub(crate) async fn shutdown(&self) -> Result<(), crate::ClientError> {
        let (sessionid, clientid) = {
            let st = self.state();
            (st.sessionid, st.clientid)
        };
        let conn = &self.conns[0].transport;
        let destroyed = async {
            handshake::destroy_session(&**conn, &self.encoder, self.minor, sessionid).await?;
            handshake::destroy_clientid(&**conn, &self.encoder, self.minor, clientid).await
        };
        let outcome = tokio::time::timeout(Duration::from_secs(10), destroyed)
            .await
            .unwrap_or(Err(crate::ClientError::TimedOut { proc: "DESTROY_SESSION", after: Duration::from_secs(10) }));
        self.stop();
        for c in &self.conns {
            c.transport.shutdown().await;
        }
        outcome
    }

    /// Stops everything without telling the server (the last clone dropped).
    pub(crate) fn stop(&self) {
        self.closed.store(true, Relaxed);
        self.stop.send_replace(true);
        self.changed.notify_waiters();
    }
}
