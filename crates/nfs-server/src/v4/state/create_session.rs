//! CREATE_SESSION (RFC 8881 §18.36): the client id's own slot (csa_sequence), confirmation of an
//! unconfirmed client record, and the new session with its slot table and first connection.
//!
//! Order, as §18.36.4's phases and knfsd: channel attributes and callback security first (refused without
//! touching the slot), then client lookup (STALE_CLIENTID), the principal for an unconfirmed record
//! (CLID_INUSE), the sequence check (the same csa_sequence again → the cached result, success or error;
//! anything but the next one → SEQ_MISORDERED), then confirmation and the session; that result is cached.

use std::time::Instant;

use tracing::debug;

use super::admission::Peer;
use super::channel::{choose_callback_security, negotiate_back, negotiate_fore, CallbackSecurity, ChannelAttrs};
use super::connection::{Backchannel, BackchannelState, BoundDir};
use super::error::StateError;
use super::machine::V4State;
use super::session::{Session, Slot};
use super::types::{ClientId, Principal, SessionId};
use crate::ConnectionId;

/// RFC 8881 §18.36.1: csa_flags / csr_flags.
pub const CREATE_SESSION4_FLAG_PERSIST: u32 = 0x0000_0001;
pub const CREATE_SESSION4_FLAG_CONN_BACK_CHAN: u32 = 0x0000_0002;
pub const CREATE_SESSION4_FLAG_CONN_RDMA: u32 = 0x0000_0004;

/// CREATE_SESSION's arguments, with the caller's principal and connection.
#[derive(Debug, Clone, Copy)]
pub struct CreateSessionArgs<'a> {
    pub clientid: ClientId,
    pub sequence: u32,
    pub flags: u32,
    pub fore: ChannelAttrs,
    pub back: ChannelAttrs,
    pub cb_program: u32,
    pub cb_security: &'a [CallbackSecurity],
    pub principal: Principal,
    pub conn: ConnectionId,
}

/// CREATE_SESSION's result (`CREATE_SESSION4resok`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionGrant {
    pub sessionid: SessionId,
    pub sequence: u32,
    /// CONN_BACK_CHAN when the connection was bound for the back channel too; never PERSIST (sessions die
    /// with the process) nor CONN_RDMA.
    pub flags: u32,
    pub fore: ChannelAttrs,
    pub back: ChannelAttrs,
}

impl V4State {
    /// CREATE_SESSION. A grant with CONN_BACK_CHAN asks the dispatch to probe the back channel.
    pub fn create_session(&mut self, args: &CreateSessionArgs<'_>, now: Instant) -> Result<SessionGrant, StateError> {
        let fore = negotiate_fore(&args.fore, &self.config.fore_channel)?;
        let back = negotiate_back(&args.back, self.config.back_channel_max_requests)?;
        let security = choose_callback_security(args.cb_security)?;
        let lapsed = match self.clients.get(&args.clientid) {
            None => return Err(StateError::StaleClientId),
            Some(client) => client.confirmed && self.lapsed(client, now),
        };
        if lapsed {
            self.expire_client(args.clientid, "lease expired before CREATE_SESSION");
            return Err(StateError::StaleClientId);
        }
        let client = self.clients.get_mut(&args.clientid).ok_or(StateError::StaleClientId)?;
        if !client.confirmed && client.principal != args.principal {
            // RFC 8881 §18.36.4: only the principal that sent EXCHANGE_ID may confirm the record.
            return Err(StateError::ClidInUse);
        }
        if args.sequence == client.cs_seqid {
            return client.cs_cached.clone().unwrap_or(Err(StateError::SeqMisordered));
        }
        if args.sequence != client.cs_seqid.wrapping_add(1) {
            return Err(StateError::SeqMisordered);
        }
        client.cs_seqid = args.sequence;
        let result = self.confirm(args.clientid, now).and_then(|()| {
            let backchannel = Backchannel { program: args.cb_program, security, state: BackchannelState::Unknown };
            self.new_session(args, fore, back, backchannel)
        });
        if let Some(client) = self.clients.get_mut(&args.clientid) {
            client.cs_cached = Some(result.clone());
        }
        self.renew(args.clientid, now);
        result
    }

    /// RFC 8881 §18.36.4 phase 3: an unconfirmed record becomes the owner's confirmed one, and the record it
    /// replaces (a rebooted client, or a collision whose state is gone) is expired with its state. A new
    /// client must find room under the caps (`admission.rs`), which may drop another peer's record.
    fn confirm(&mut self, id: ClientId, now: Instant) -> Result<(), StateError> {
        let Some(client) = self.clients.get(&id) else { return Err(StateError::StaleClientId) };
        if client.confirmed {
            return Ok(());
        }
        let (owner, peer, created) = (client.owner.clone(), Peer::of(client.peer), client.created);
        let replaced = self.by_owner.get(&owner).and_then(|r| r.confirmed);
        if let Some(old) = replaced {
            self.expire_client(old, "replaced by a new incarnation of its owner");
        }
        self.admit(peer, now)?;
        let records = self.by_owner.entry(owner).or_default();
        records.confirmed = Some(id);
        if records.unconfirmed == Some(id) {
            records.unconfirmed = None;
        }
        self.totals.unconfirmed_clients -= 1;
        self.totals.confirmed_clients += 1;
        self.unconfirmed.remove(&(created, id));
        self.count_peer(id, peer);
        if let Some(client) = self.clients.get_mut(&id) {
            client.confirmed = true;
            debug!(clientid = id.0, peer = ?client.peer, "client record confirmed");
        }
        Ok(())
    }

    /// Makes the session: slots within the reply-cache budget (at least one), the connection bound.
    fn new_session(
        &mut self,
        args: &CreateSessionArgs<'_>,
        mut fore: ChannelAttrs,
        back: ChannelAttrs,
        backchannel: Backchannel,
    ) -> Result<SessionGrant, StateError> {
        let limits = self.config.limits;
        let client = self.clients.get(&args.clientid).ok_or(StateError::StaleClientId)?;
        if client.sessions.len() >= limits.max_sessions_per_client {
            return Err(StateError::Resource("sessions per client"));
        }
        let per_slot = fore.maxresponsesize_cached as usize;
        let left = limits.reply_cache_bytes.saturating_sub(self.totals.reply_cache_bytes);
        if let Some(fits) = left.checked_div(per_slot) {
            // Fewer slots when the budget is short (as knfsd's nfsd4_get_drc_mem), never none: the budget
            // can thus be passed by one slot per session.
            fore.maxrequests = fore.maxrequests.min(u32::try_from(fits).unwrap_or(u32::MAX)).max(1);
        }
        let reserved = fore.maxrequests as usize * per_slot;
        let id = self.new_session_id(args.clientid);
        let session = Session {
            client: args.clientid,
            fore,
            back,
            slots: (0..fore.maxrequests).map(|_| Slot::new()).collect(),
            reserved,
            conns: Vec::new(),
            backchannel,
        };
        self.sessions.insert(id, session);
        self.totals.sessions += 1;
        self.totals.reply_cache_bytes += reserved;
        if let Some(client) = self.clients.get_mut(&args.clientid) {
            client.sessions.push(id);
        }
        let back_too = args.flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN != 0;
        self.bind(&id, args.conn, if back_too { BoundDir::Both } else { BoundDir::Fore })?;
        let flags = if back_too { CREATE_SESSION4_FLAG_CONN_BACK_CHAN } else { 0 };
        Ok(SessionGrant { sessionid: id, sequence: args.sequence, flags, fore, back })
    }
}
