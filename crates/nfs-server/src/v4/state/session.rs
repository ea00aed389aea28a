//! Sessions and their slot tables (RFC 8881 §2.10): SEQUENCE's exactly-once rules (§2.10.6.1), the per-slot
//! reply cache, DESTROY_SESSION (§18.37).
//!
//! A slot's cache holds the COMPOUND reply body only — never an RPC header or any transport framing — so a
//! replay can go out under a fresh RPC header on any connection, TCP or RDMA. The dispatch calls
//! [`V4State::sequence`] first, runs the COMPOUND, then [`V4State::sequence_done`] with the reply body:
//! every `Execute` must be finished, or the slot stays busy (NFS4ERR_DELAY) for good.
//!
//! Hot path: `sequence` is one session lookup, one client lookup and a slot index — O(1).

use std::time::Instant;

use super::channel::ChannelAttrs;
use super::connection::{Backchannel, BoundDir, SEQ4_STATUS_CB_PATH_DOWN, SEQ4_STATUS_CB_PATH_DOWN_SESSION};
use super::error::StateError;
use super::machine::V4State;
use super::types::{ClientId, SessionId};
use crate::ConnectionId;

#[derive(Debug)]
pub(super) struct Session {
    pub(super) client: ClientId,
    pub(super) fore: ChannelAttrs,
    pub(super) back: ChannelAttrs,
    pub(super) slots: Vec<Slot>,
    /// Bytes of the reply-cache budget this session holds (slots × cached size).
    pub(super) reserved: usize,
    pub(super) conns: Vec<(ConnectionId, BoundDir)>,
    pub(super) backchannel: Backchannel,
}

#[derive(Debug)]
pub(super) struct Slot {
    /// The sequence id of the last request accepted on the slot (0 before the first).
    seqid: u32,
    /// A request is executing (between `sequence` and `sequence_done`).
    in_use: bool,
    cachethis: bool,
    reply: SlotReply,
}

impl Slot {
    pub(super) fn new() -> Self {
        Slot { seqid: 0, in_use: false, cachethis: false, reply: SlotReply::Never }
    }
}

#[derive(Debug)]
enum SlotReply {
    /// No request has completed on the slot.
    Never,
    /// The last request completed and its reply was not cached (sa_cachethis false).
    Uncached,
    /// The last request's COMPOUND reply body.
    Cached(Vec<u8>),
}

/// SEQUENCE's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequenceArgs {
    pub sessionid: SessionId,
    pub sequenceid: u32,
    pub slotid: u32,
    pub highest_slotid: u32,
    pub cachethis: bool,
    /// Operations the COMPOUND declares (checked against ca_maxoperations).
    pub ops: u32,
    /// The whole call record's size in bytes (checked against ca_maxrequestsize).
    pub request_len: usize,
}

/// SEQUENCE's result for a new request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SequenceOk {
    /// The client the COMPOUND acts for.
    pub clientid: ClientId,
    pub sessionid: SessionId,
    pub sequenceid: u32,
    pub slotid: u32,
    /// sr_highest_slotid: the highest slot the server will accept now.
    pub highest_slotid: u32,
    /// sr_target_highest_slotid: what the server would like the client to use (all of them).
    pub target_highest_slotid: u32,
    /// sr_status_flags (RFC 8881 §18.46.3).
    pub status_flags: u32,
    /// With sa_cachethis: the largest reply body the slot can cache (ca_maxresponsesize_cached); an
    /// operation whose result would pass it gets NFS4ERR_REP_TOO_BIG_TO_CACHE (RFC 8881 §2.10.6.1.3).
    pub cache_limit: Option<u32>,
    /// The session's ca_maxresponsesize: no reply of this COMPOUND may be larger (RFC 8881 §2.10.6.4).
    pub max_response: u32,
}

/// What SEQUENCE tells the dispatch to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sequenced {
    /// A new request: execute the COMPOUND, then call [`V4State::sequence_done`].
    Execute(SequenceOk),
    /// A retry of the slot's last request: send this cached COMPOUND reply body again.
    Replay(Vec<u8>),
    /// The COMPOUND passes one of the session's fore-channel limits: SEQUENCE fails with it and the slot
    /// was not looked at.
    Refused(ForeLimit),
}

/// A fore-channel limit a COMPOUND passed (RFC 8881 §2.10.6.4, reported in SEQUENCE's result).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForeLimit {
    /// More operations than ca_maxoperations: NFS4ERR_TOO_MANY_OPS.
    TooManyOps,
    /// A request larger than ca_maxrequestsize: NFS4ERR_REQ_TOO_BIG.
    ReqTooBig,
}

impl V4State {
    /// SEQUENCE (RFC 8881 §18.46, §2.10.6.1). Renews the client's lease; binds `conn` to the fore channel if
    /// it is not bound yet (§2.10.3.1: implicit with SP4_NONE). A client whose lease has run out is expired
    /// here and gets NFS4ERR_BADSESSION, as if `tick` had already removed it.
    pub fn sequence(&mut self, args: &SequenceArgs, conn: ConnectionId, now: Instant) -> Result<Sequenced, StateError> {
        // One lookup of the session and one of its client (fields borrowed apart): this runs for every
        // COMPOUND.
        let (lease, max_conns) = (self.config.lease, self.config.limits.max_connections_per_session);
        let session = self.sessions.get_mut(&args.sessionid).ok_or(StateError::BadSession)?;
        // RFC 8881 §2.10.6.4 (and knfsd): refused before the slot is looked at, so it stays as it was.
        if args.ops > session.fore.maxoperations {
            return Ok(Sequenced::Refused(ForeLimit::TooManyOps));
        }
        if args.request_len > session.fore.maxrequestsize as usize {
            return Ok(Sequenced::Refused(ForeLimit::ReqTooBig));
        }
        let client_id = session.client;
        let client = self.clients.get_mut(&client_id).filter(|c| now.saturating_duration_since(c.renewed) <= lease);
        let Some(client) = client else {
            self.expire_client(client_id, "lease expired before SEQUENCE");
            return Err(StateError::BadSession);
        };
        let slot = session.slots.get_mut(args.slotid as usize).ok_or(StateError::BadSlot)?;
        if slot.in_use {
            // RFC 8881 §2.10.6.1: a retry of a request still executing waits; anything else is out of order.
            return Err(if args.sequenceid == slot.seqid { StateError::Delay } else { StateError::SeqMisordered });
        }
        if args.sequenceid == slot.seqid {
            // RFC 8881 §2.10.6.1.2: a retry of the last request gets its cached reply.
            let replay = match &slot.reply {
                SlotReply::Cached(body) => Ok(Sequenced::Replay(body.clone())),
                SlotReply::Uncached => Err(StateError::RetryUncachedRep),
                SlotReply::Never => Err(StateError::SeqMisordered),
            };
            if replay.is_ok() {
                client.renewed = client.renewed.max(now);
            }
            return replay;
        }
        if args.sequenceid != slot.seqid.wrapping_add(1) {
            return Err(StateError::SeqMisordered);
        }
        *slot = Slot { seqid: args.sequenceid, in_use: true, cachethis: args.cachethis, reply: SlotReply::Never };
        // The renewal (RFC 8881 §8.3), and the mark of a record in use (`admission.rs`).
        client.renewed = client.renewed.max(now);
        client.sequenced = true;
        let highest_slotid = u32::try_from(session.slots.len() - 1).unwrap_or(u32::MAX);
        let cache_limit = args.cachethis.then_some(session.fore.maxresponsesize_cached);
        let max_response = session.fore.maxresponsesize;
        let backchannel_usable = session.backchannel_usable();
        if !session.conns.iter().any(|(c, _)| *c == conn) && session.conns.len() < max_conns {
            session.conns.push((conn, BoundDir::Fore));
            self.conns.entry(conn).or_default().insert(args.sessionid);
        }
        let status_flags = if backchannel_usable { 0 } else { self.status_flags(&args.sessionid) };
        Ok(Sequenced::Execute(SequenceOk {
            clientid: client_id,
            sessionid: args.sessionid,
            sequenceid: args.sequenceid,
            slotid: args.slotid,
            highest_slotid,
            target_highest_slotid: highest_slotid,
            status_flags,
            cache_limit,
            max_response,
        }))
    }

    /// Ends the request SEQUENCE started on `slotid`: caches `reply` (the COMPOUND reply body, no RPC
    /// header) when sa_cachethis was set, and frees the slot. A reply larger than the session's cached size
    /// is not kept (a retry then gets NFS4ERR_RETRY_UNCACHED_REP) and answers NFS4ERR_REP_TOO_BIG_TO_CACHE:
    /// the dispatch should have stopped at [`SequenceOk::cache_limit`]. A session destroyed meanwhile (by
    /// this very COMPOUND) is no error.
    pub fn sequence_done(&mut self, sessionid: &SessionId, slotid: u32, reply: &[u8]) -> Result<(), StateError> {
        let Some(session) = self.sessions.get_mut(sessionid) else { return Ok(()) };
        let limit = session.fore.maxresponsesize_cached as usize;
        let Some(slot) = session.slots.get_mut(slotid as usize).filter(|s| s.in_use) else { return Ok(()) };
        slot.in_use = false;
        if !slot.cachethis {
            slot.reply = SlotReply::Uncached;
            return Ok(());
        }
        if reply.len() > limit {
            slot.reply = SlotReply::Uncached;
            return Err(StateError::RepTooBigToCache);
        }
        slot.reply = SlotReply::Cached(reply.to_vec());
        Ok(())
    }

    /// DESTROY_SESSION (RFC 8881 §18.37). `own_slot`: the slot of this session the COMPOUND itself was
    /// sequenced on, if any; any other slot still executing → NFS4ERR_DELAY (as knfsd).
    pub fn destroy_session(&mut self, sessionid: &SessionId, own_slot: Option<u32>) -> Result<(), StateError> {
        let session = self.sessions.get(sessionid).ok_or(StateError::BadSession)?;
        let busy = session.slots.iter().enumerate().any(|(i, s)| s.in_use && own_slot != Some(i as u32));
        if busy {
            return Err(StateError::Delay);
        }
        self.remove_session(sessionid);
        Ok(())
    }

    /// Drops a session and gives back what it held (budget, connection bindings).
    pub(super) fn remove_session(&mut self, sessionid: &SessionId) {
        let Some(session) = self.sessions.remove(sessionid) else { return };
        self.totals.sessions -= 1;
        self.totals.reply_cache_bytes -= session.reserved;
        for (conn, _) in &session.conns {
            if let Some(bound) = self.conns.get_mut(conn) {
                bound.remove(sessionid);
                if bound.is_empty() {
                    self.conns.remove(conn);
                }
            }
        }
        if let Some(client) = self.clients.get_mut(&session.client) {
            client.sessions.retain(|s| s != sessionid);
        }
    }

    /// sr_status_flags for a SEQUENCE on `sessionid` (RFC 8881 §18.46.3): only what the server knows. No
    /// usable back channel on this session → CB_PATH_DOWN_SESSION; on none of the client's → CB_PATH_DOWN.
    /// State is never revoked while a client record lives (an expired client is removed whole), so the
    /// *_STATE_REVOKED flags do not arise; sessions do not survive a restart, so neither does
    /// RESTART_RECLAIM_NEEDED (the client learns of the restart from NFS4ERR_BADSESSION).
    fn status_flags(&self, sessionid: &SessionId) -> u32 {
        let Some(session) = self.sessions.get(sessionid) else { return 0 };
        let mut flags = 0;
        if !session.backchannel_usable() {
            flags |= SEQ4_STATUS_CB_PATH_DOWN_SESSION;
            let client_has_one = self.clients.get(&session.client).is_some_and(|c| {
                c.sessions.iter().filter_map(|s| self.sessions.get(s)).any(|s| s.backchannel_usable())
            });
            if !client_has_one {
                flags |= SEQ4_STATUS_CB_PATH_DOWN;
            }
        }
        flags
    }
}
