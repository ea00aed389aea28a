//! A client id and a session on one connection, held the way a careful client holds them (EXCHANGE_ID,
//! CREATE_SESSION, RECLAIM_COMPLETE, then every COMPOUND SEQUENCE-first on a slot whose sequence id it
//! tracks), so that attacks and checks can be precise about the one rule they break. The slot's sequence
//! id moves on only when SEQUENCE succeeded (RFC 8881 §2.10.6.1); [`Session::resync`] finds it again
//! after a request whose effect on the slot is the question.

use std::net::SocketAddr;

use nfs4_proto::{
    CallbackSecParms4, ChannelAttrs4, ClientOwner4, Component4, Compound4Args, CreateHow4, CreateSessionArgs,
    CreateSessionResOk, DestroyClientidArgs, DestroySessionArgs, ExchangeIdArgs, Fattr4, LookupArgs, NfsArgOp, NfsErr4,
    NfsFh4, NfsResOp, NfsStat4, Opaque4, OpenArgs, OpenClaim4, OpenFlag4, PutfhArgs, ReclaimCompleteArgs, SequenceArgs,
    SessionId4, StableHow4, StateOwner4, StateProtect4A, Stateid4, Verifier4, WriteArgs, OPEN4_SHARE_ACCESS_BOTH,
    OPEN4_SHARE_DENY_NONE,
};

use super::answer::Answer;
use super::conn::{compound_body, V4Conn};
use crate::rpc::RpcFailure;

/// The callback program number the hostile clients name (any number the client likes, RFC 8881 §18.36).
pub const CB_PROGRAM: u32 = 0x4000_0100;

/// What CREATE_SESSION asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionAsk {
    pub fore: ChannelAttrs4,
    pub back: ChannelAttrs4,
    pub flags: u32,
}

impl Default for SessionAsk {
    /// What a client doing 1 MiB I/O with 16 calls in flight asks, no back channel on the connection.
    fn default() -> Self {
        SessionAsk {
            fore: ChannelAttrs4 {
                headerpadsize: 0,
                maxrequestsize: (1 << 20) + 4096,
                maxresponsesize: (1 << 20) + 4096,
                maxresponsesize_cached: 4096,
                maxoperations: 16,
                maxrequests: 16,
                rdma_ird: None,
            },
            back: ChannelAttrs4 {
                headerpadsize: 0,
                maxrequestsize: 4096,
                maxresponsesize: 4096,
                maxresponsesize_cached: 0,
                maxoperations: 2,
                maxrequests: 1,
                rdma_ird: None,
            },
            flags: 0,
        }
    }
}

/// A confirmed client id with one session on one connection.
#[derive(Debug)]
pub struct Session {
    pub conn: V4Conn,
    pub clientid: u64,
    pub id: SessionId4,
    /// What CREATE_SESSION granted.
    pub granted: CreateSessionResOk,
    /// The client owner this session's client id was made for.
    pub owner: Vec<u8>,
    /// Per slot, the sequence id of the last request the server accepted.
    seqids: Vec<u32>,
}

/// The failure of a setup step: the step, and what came back.
fn refused(step: &str, answer: &Answer) -> RpcFailure {
    RpcFailure::Nfs4 { step: step.to_string(), outcome: answer.outcome().to_string() }
}

impl Session {
    /// EXCHANGE_ID for `owner`, CREATE_SESSION as [`SessionAsk::default`], RECLAIM_COMPLETE.
    pub fn establish(addr: SocketAddr, owner: &[u8]) -> Result<Session, RpcFailure> {
        Session::establish_with(addr, owner, SessionAsk::default())
    }

    /// As [`Session::establish`], asking for `ask`.
    pub fn establish_with(addr: SocketAddr, owner: &[u8], ask: SessionAsk) -> Result<Session, RpcFailure> {
        let mut conn = V4Conn::connect(addr)?;
        let (clientid, sequence) = exchange_id(&mut conn, owner, super::random::bytes())?;
        let answer = create_session(&mut conn, clientid, sequence, &ask)?;
        let granted = answer
            .find(|r| match r {
                NfsResOp::CreateSession(res) => res.ok().copied(),
                _ => None,
            })
            .ok_or_else(|| refused("CREATE_SESSION", &answer))?;
        let slots = granted.fore_chan_attrs.maxrequests.max(1) as usize;
        let mut session =
            Session { conn, clientid, id: granted.sessionid, granted, owner: owner.to_vec(), seqids: vec![0; slots] };
        session.call_ok(&[NfsArgOp::ReclaimComplete(ReclaimCompleteArgs { one_fs: false })])?;
        Ok(session)
    }

    /// Slots the server granted.
    pub fn slots(&self) -> u32 {
        self.seqids.len() as u32
    }

    /// SEQUENCE for the next request on `slot`.
    pub fn sequence(&self, slot: u32) -> SequenceArgs {
        let last = self.seqids.get(slot as usize).copied().unwrap_or(0);
        SequenceArgs {
            sessionid: self.id,
            sequenceid: last.wrapping_add(1),
            slotid: slot,
            highest_slotid: self.slots() - 1,
            cachethis: false,
        }
    }

    /// The last sequence id the server accepted on `slot`.
    pub fn seqid(&self, slot: u32) -> u32 {
        self.seqids.get(slot as usize).copied().unwrap_or(0)
    }

    /// Records that the server accepted `seqid` on `slot`.
    pub fn set_seqid(&mut self, slot: u32, seqid: u32) {
        if let Some(s) = self.seqids.get_mut(slot as usize) {
            *s = seqid;
        }
    }

    /// A COMPOUND body: `sequence` then `ops`, minor version 1.
    pub fn body(sequence: SequenceArgs, ops: &[NfsArgOp<'_>]) -> Vec<u8> {
        let mut argarray = Vec::with_capacity(ops.len() + 1);
        argarray.push(NfsArgOp::Sequence(sequence));
        argarray.extend_from_slice(ops);
        compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray })
    }

    /// Sends `sequence` then `ops`; the slot moves on when SEQUENCE succeeded.
    pub fn call_with(&mut self, sequence: SequenceArgs, ops: &[NfsArgOp<'_>]) -> Result<Answer, RpcFailure> {
        let answer = self.conn.call_body(&Session::body(sequence, ops))?;
        self.note(sequence, &answer);
        Ok(answer)
    }

    /// Updates the slot after `answer` to a request sent with `sequence`.
    pub fn note(&mut self, sequence: SequenceArgs, answer: &Answer) {
        if answer.status_at(0) == Some(NfsStat4::Ok) {
            self.set_seqid(sequence.slotid, sequence.sequenceid);
        }
    }

    /// SEQUENCE on `slot` then `ops`.
    pub fn call(&mut self, slot: u32, ops: &[NfsArgOp<'_>]) -> Result<Answer, RpcFailure> {
        self.call_with(self.sequence(slot), ops)
    }

    /// SEQUENCE on slot 0 then `ops`, every one of which must succeed.
    pub fn call_ok(&mut self, ops: &[NfsArgOp<'_>]) -> Result<Answer, RpcFailure> {
        let answer = self.call(0, ops)?;
        match answer.outcome().last_status() {
            Some(NfsStat4::Ok) => Ok(answer),
            _ => Err(refused(ops.first().map_or("SEQUENCE", |op| op.name()), &answer)),
        }
    }

    /// Finds `slot`'s sequence id again after a request whose effect on it is in doubt: SEQUENCE alone with
    /// the next id; answered as a retry (the slot had moved on), with the one after. The outcome of the
    /// first try, which says whether the slot had moved.
    pub fn resync(&mut self, slot: u32) -> Result<NfsStat4, RpcFailure> {
        let first = self.call(slot, &[])?;
        let status = first.status_at(0).ok_or_else(|| refused("SEQUENCE", &first))?;
        if matches!(status.error(), Some(NfsErr4::RetryUncachedRep)) {
            let next = self.sequence(slot).sequenceid;
            self.set_seqid(slot, next);
            let again = self.call(slot, &[])?;
            if again.status_at(0) != Some(NfsStat4::Ok) {
                return Err(refused("SEQUENCE", &again));
            }
        }
        Ok(status)
    }

    /// The handle of `export` (e.g. "/export") through the pseudo file system.
    pub fn lookup_path(&mut self, export: &str) -> Result<NfsFh4, RpcFailure> {
        let mut ops = vec![NfsArgOp::Putrootfh];
        for part in export.split('/').filter(|p| !p.is_empty()) {
            ops.push(NfsArgOp::Lookup(LookupArgs { objname: Component4(part.as_bytes()) }));
        }
        ops.push(NfsArgOp::Getfh);
        let answer = self.call_ok(&ops)?;
        getfh(&answer).ok_or_else(|| refused("GETFH", &answer))
    }

    /// OPEN (create UNCHECKED4, mode 0644, read and write, deny none) of `name` in `dir` by open-owner
    /// `owner`: the open stateid and the file's handle.
    pub fn create(&mut self, dir: NfsFh4, name: &str, owner: &[u8]) -> Result<(Stateid4, NfsFh4), RpcFailure> {
        let answer = self.call_ok(&open_create(self.clientid, dir, name.as_bytes(), owner))?;
        let stateid = open_stateid(&answer).ok_or_else(|| refused("OPEN", &answer))?;
        let fh = getfh(&answer).ok_or_else(|| refused("GETFH", &answer))?;
        Ok((stateid, fh))
    }

    /// WRITE of `data` at `offset` (FILE_SYNC) under `stateid`, which must succeed.
    pub fn write(&mut self, fh: NfsFh4, stateid: Stateid4, offset: u64, data: &[u8]) -> Result<(), RpcFailure> {
        self.call_ok(&[putfh(fh), NfsArgOp::Write(WriteArgs { stateid, offset, stable: StableHow4::FileSync, data })])
            .map(drop)
    }

    /// DESTROY_SESSION then DESTROY_CLIENTID, as a client unmounting; errors ignored (the server may have
    /// dropped the client already).
    pub fn destroy(mut self) {
        let session = NfsArgOp::DestroySession(DestroySessionArgs { sessionid: self.id });
        let _ =
            self.conn.call_body(&compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![session] }));
        let client = NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid: self.clientid });
        let _ =
            self.conn.call_body(&compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![client] }));
    }
}

/// EXCHANGE_ID for `owner` with `verifier` on `conn`: the client id and the csa_sequence CREATE_SESSION
/// must send.
pub fn exchange_id(conn: &mut V4Conn, owner: &[u8], verifier: [u8; 8]) -> Result<(u64, u32), RpcFailure> {
    let answer = conn.call_body(&exchange_id_body(owner, verifier))?;
    answer
        .find(|r| match r {
            NfsResOp::ExchangeId(res) => res.ok().map(|ok| (ok.clientid, ok.sequenceid)),
            _ => None,
        })
        .ok_or_else(|| refused("EXCHANGE_ID", &answer))
}

/// EXCHANGE_ID for `owner` with `verifier` (SP4_NONE, no flags).
pub fn exchange_id_op(owner: &[u8], verifier: [u8; 8]) -> NfsArgOp<'_> {
    NfsArgOp::ExchangeId(ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: Verifier4(verifier), ownerid: Opaque4(owner) },
        flags: 0,
        state_protect: StateProtect4A::None,
        client_impl_id: None,
    })
}

/// The body of a COMPOUND of EXCHANGE_ID alone.
pub fn exchange_id_body(owner: &[u8], verifier: [u8; 8]) -> Vec<u8> {
    compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![exchange_id_op(owner, verifier)] })
}

/// CREATE_SESSION for `clientid` with csa_sequence `sequence`, asking `ask`: the answer as it came.
pub fn create_session(conn: &mut V4Conn, clientid: u64, sequence: u32, ask: &SessionAsk) -> Result<Answer, RpcFailure> {
    conn.call_body(&create_session_body(clientid, sequence, ask))
}

/// The body of a CREATE_SESSION COMPOUND (AUTH_NONE callbacks to [`CB_PROGRAM`]).
pub fn create_session_body(clientid: u64, sequence: u32, ask: &SessionAsk) -> Vec<u8> {
    let op = NfsArgOp::CreateSession(CreateSessionArgs {
        clientid,
        sequence,
        flags: ask.flags,
        fore_chan_attrs: ask.fore,
        back_chan_attrs: ask.back,
        cb_program: CB_PROGRAM,
        sec_parms: vec![CallbackSecParms4::None],
    });
    compound_body(&Compound4Args { tag: b"", minorversion: 1, argarray: vec![op] })
}

pub fn putfh(object: NfsFh4) -> NfsArgOp<'static> {
    NfsArgOp::Putfh(PutfhArgs { object })
}

/// PUTFH `dir`, OPEN creating `name` (UNCHECKED4, mode 0644) by open-owner `owner` of `clientid`, GETFH.
pub fn open_create<'a>(clientid: u64, dir: NfsFh4, name: &'a [u8], owner: &'a [u8]) -> Vec<NfsArgOp<'a>> {
    let mode = Fattr4 { mode: Some(0o644), ..Fattr4::default() }.to_raw();
    vec![
        putfh(dir),
        NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_BOTH,
            share_deny: OPEN4_SHARE_DENY_NONE,
            owner: StateOwner4 { clientid, owner: Opaque4(owner) },
            openhow: OpenFlag4::Create(CreateHow4::Unchecked(mode)),
            claim: OpenClaim4::Null(Component4(name)),
        }),
        NfsArgOp::Getfh,
    ]
}

/// The handle a GETFH of `answer` returned.
pub fn getfh(answer: &Answer) -> Option<NfsFh4> {
    answer.find(|r| match r {
        NfsResOp::Getfh(res) => res.ok().map(|ok| ok.object),
        _ => None,
    })
}

/// The stateid an OPEN of `answer` returned.
pub fn open_stateid(answer: &Answer) -> Option<Stateid4> {
    answer.find(|r| match r {
        NfsResOp::Open(res) => res.ok().map(|ok| ok.stateid),
        _ => None,
    })
}
