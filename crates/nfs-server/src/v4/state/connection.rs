//! Connections bound to sessions and the back channel (RFC 8881 §2.10.3.1, §2.10.5, §18.33
//! BACKCHANNEL_CTL, §18.34 BIND_CONN_TO_SESSION).
//!
//! Connections, known by the id the front ends give them ([`ConnectionId`]), are bound fore, back or both. CREATE_SESSION binds
//! the connection it came on (both ways with CREATE_SESSION4_FLAG_CONN_BACK_CHAN), SEQUENCE binds an unbound
//! connection to the fore channel, BIND_CONN_TO_SESSION binds as asked. Whether the back channel works is
//! learnt by the dispatch with a CB_NULL probe over a back connection and reported with
//! [`V4State::set_backchannel`]; SEQUENCE's status flags follow from it.

use std::time::Instant;

use super::channel::{choose_callback_security, CallbackSecurity, ChannelAttrs};
use super::error::StateError;
use super::machine::V4State;
use super::session::Session;
use super::types::SessionId;
use crate::ConnectionId;

/// RFC 8881 §18.46.3: no usable back channel on any of the client's sessions.
pub const SEQ4_STATUS_CB_PATH_DOWN: u32 = 0x0000_0001;
/// RFC 8881 §18.46.3: no usable back channel on this session.
pub const SEQ4_STATUS_CB_PATH_DOWN_SESSION: u32 = 0x0000_0200;

/// `channel_dir_from_client4` (RFC 8881 §18.34.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChannelDir {
    Fore,
    Back,
    ForeOrBoth,
    BackOrBoth,
}

/// `channel_dir_from_server4`: how a connection is bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoundDir {
    Fore,
    Back,
    Both,
}

impl BoundDir {
    fn carries_back(self) -> bool {
        matches!(self, BoundDir::Back | BoundDir::Both)
    }
}

/// What the last probe said about a session's back channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BackchannelState {
    /// Not probed since a back connection was bound: assumed to work (as knfsd's NFSD4_CB_UNKNOWN).
    Unknown,
    Up,
    Down,
}

/// A session's back channel: program, security and health.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backchannel {
    /// csa_cb_program.
    pub program: u32,
    pub security: CallbackSecurity,
    pub state: BackchannelState,
}

/// What the dispatch needs to send a callback on a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackchannelInfo {
    pub backchannel: Backchannel,
    pub attrs: ChannelAttrs,
    /// The connections bound for the back channel, oldest first.
    pub conns: Vec<ConnectionId>,
}

/// BIND_CONN_TO_SESSION's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindOk {
    pub dir: BoundDir,
    /// A back connection was (re)bound: probe it with CB_NULL and report with [`V4State::set_backchannel`].
    pub probe_backchannel: bool,
}

impl Session {
    /// Some back connection is bound and the last probe did not fail.
    pub(super) fn backchannel_usable(&self) -> bool {
        self.backchannel.state != BackchannelState::Down && self.conns.iter().any(|(_, d)| d.carries_back())
    }
}

impl V4State {
    /// BIND_CONN_TO_SESSION (RFC 8881 §18.34): FORE_OR_BOTH and BACK_OR_BOTH are granted as BOTH (as knfsd).
    pub fn bind_conn_to_session(
        &mut self,
        sessionid: &SessionId,
        conn: ConnectionId,
        dir: ChannelDir,
        now: Instant,
    ) -> Result<BindOk, StateError> {
        let client = self.sessions.get(sessionid).ok_or(StateError::BadSession)?.client;
        if self.clients.get(&client).is_none_or(|c| self.lapsed(c, now)) {
            self.expire_client(client, "lease expired before BIND_CONN_TO_SESSION");
            return Err(StateError::BadSession);
        }
        let dir = match dir {
            ChannelDir::Fore => BoundDir::Fore,
            ChannelDir::Back => BoundDir::Back,
            ChannelDir::ForeOrBoth | ChannelDir::BackOrBoth => BoundDir::Both,
        };
        let probe_backchannel = self.bind(sessionid, conn, dir)?;
        self.renew(client, now);
        Ok(BindOk { dir, probe_backchannel })
    }

    /// Binds (or rebinds) `conn` to `sessionid`; true when it now carries the back channel, whose state is
    /// then unknown until probed.
    pub(super) fn bind(
        &mut self,
        sessionid: &SessionId,
        conn: ConnectionId,
        dir: BoundDir,
    ) -> Result<bool, StateError> {
        let max = self.config.limits.max_connections_per_session;
        let session = self.sessions.get_mut(sessionid).ok_or(StateError::BadSession)?;
        let full = session.conns.len() >= max;
        match session.conns.iter_mut().find(|(c, _)| *c == conn) {
            Some(bound) => bound.1 = dir,
            None if full => return Err(StateError::Resource("connections per session")),
            None => session.conns.push((conn, dir)),
        }
        self.conns.entry(conn).or_default().insert(*sessionid);
        if dir.carries_back() {
            session.backchannel.state = BackchannelState::Unknown;
        }
        Ok(dir.carries_back())
    }

    /// The dispatch's verdict after probing the back channel (CB_NULL answered or not).
    pub fn set_backchannel(&mut self, sessionid: &SessionId, up: bool) {
        if let Some(session) = self.sessions.get_mut(sessionid) {
            session.backchannel.state = if up { BackchannelState::Up } else { BackchannelState::Down };
        }
    }

    /// BACKCHANNEL_CTL (RFC 8881 §18.33): a new callback program and security for the session.
    pub fn backchannel_ctl(
        &mut self,
        sessionid: &SessionId,
        program: u32,
        security: &[CallbackSecurity],
    ) -> Result<(), StateError> {
        let chosen = choose_callback_security(security)?;
        let session = self.sessions.get_mut(sessionid).ok_or(StateError::BadSession)?;
        session.backchannel.program = program;
        session.backchannel.security = chosen;
        Ok(())
    }

    /// The back channel of a session, for sending callbacks; `None` for an unknown session.
    pub fn backchannel(&self, sessionid: &SessionId) -> Option<BackchannelInfo> {
        let session = self.sessions.get(sessionid)?;
        Some(BackchannelInfo {
            backchannel: session.backchannel,
            attrs: session.back,
            conns: session.conns.iter().filter(|(_, d)| d.carries_back()).map(|(c, _)| *c).collect(),
        })
    }

    /// A connection closed: unbind it from every session it served.
    pub fn connection_closed(&mut self, conn: ConnectionId) {
        let Some(sessions) = self.conns.remove(&conn) else { return };
        for sessionid in sessions {
            if let Some(session) = self.sessions.get_mut(&sessionid) {
                session.conns.retain(|(c, _)| *c != conn);
            }
        }
    }
}
