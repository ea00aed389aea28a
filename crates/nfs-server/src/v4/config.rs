//! [`Nfs4Config`]: what `nfsbench serve` sets for NFSv4.1/4.2 (its `[nfs4]` table): the lease, the grace
//! period after a restart, the fore-channel maxima sessions are granted, and the caps of the state machine.

use std::time::Duration;

use super::state::{ChannelLimits, StateConfig, StateLimits};

/// The shortest lease accepted: the Linux client renews at a third of it, and a callback times out at a
/// tenth (as knfsd's max_cb_time).
pub const MIN_LEASE: Duration = Duration::from_secs(10);
/// The longest lease (knfsd allows an hour).
pub const MAX_LEASE: Duration = Duration::from_secs(3600);

/// NFSv4 settings of a [`crate::Server`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Nfs4Config {
    /// The lease (the `lease_time` attribute): a client that renews nothing for this long loses its state.
    pub lease: Duration,
    /// How long a restarted server with `dir:` exports waits for its clients to reclaim (RFC 8881
    /// §8.4.2.1: at least one lease; shorter values are raised to the lease).
    pub grace: Duration,
    /// The most CREATE_SESSION grants for the fore channel.
    pub fore_channel: ChannelLimits,
    /// Caps on clients, sessions, owners, stateids and locks.
    pub limits: StateLimits,
}

impl Default for Nfs4Config {
    fn default() -> Self {
        let state = StateConfig::default();
        Nfs4Config { lease: state.lease, grace: state.grace, fore_channel: state.fore_channel, limits: state.limits }
    }
}

/// Why an [`Nfs4Config`] was refused: the setting and the reason, one line.
pub(crate) fn check(config: &Nfs4Config) -> Result<(), (&'static str, String)> {
    if !(MIN_LEASE..=MAX_LEASE).contains(&config.lease) {
        return Err(("lease", format!("{:?} is outside {MIN_LEASE:?}..={MAX_LEASE:?}", config.lease)));
    }
    if config.grace > MAX_LEASE {
        return Err(("grace", format!("{:?} is longer than {MAX_LEASE:?}", config.grace)));
    }
    let fore = &config.fore_channel;
    if fore.max_requests == 0 || fore.max_operations < 2 {
        return Err(("fore channel", "at least one slot and two operations (SEQUENCE and one more)".into()));
    }
    if fore.max_request_size < 1024 || fore.max_response_size < 1024 {
        return Err(("fore channel", "requests and replies of at least 1 KiB".into()));
    }
    Ok(())
}

impl Nfs4Config {
    /// The state machine's configuration; `reclaim` when some export's files outlive the process.
    pub(crate) fn state_config(&self, reclaim: bool) -> StateConfig {
        StateConfig {
            lease: self.lease,
            grace: self.grace.max(self.lease),
            reclaim,
            fore_channel: self.fore_channel,
            limits: self.limits,
            ..StateConfig::default()
        }
    }
}
