//! One COMPOUND's context (RFC 8881 §16.2.3.1): the current and saved file handles, the current and
//! saved stateids (§16.2.3.1.2), the session SEQUENCE established, the caller, and the room left in the
//! reply. Operations read and change it; the file handle checks every operation shares live here.

use std::time::Instant;

use nfs3_proto::{Fattr3, Ftype3};
use nfs4_proto::{NfsErr4, SessionId4, Stateid4};

use super::errors::{from_refusal, from_v3};
use super::fh::Fh;
use super::state::{ClientId, FileKey, Principal, SequenceOk, SessionId, Stateid, V4State};
use super::V4Service;
use crate::access::{Cred, Identity};
use crate::dispatch::call::Obj;
use crate::exports::Export;
use crate::{ConnectionInfo, Server};

/// nobody/nogroup: an AUTH_NONE caller in the pseudo file system.
const NOBODY: u32 = 65534;

/// The context of the COMPOUND being executed.
pub(crate) struct Cx<'s> {
    pub server: &'s Server,
    pub svc: &'s V4Service,
    pub conn: &'s ConnectionInfo,
    pub who: Identity,
    pub now: Instant,
    pub minor: u32,
    /// What SEQUENCE established (`None` before it, and in a COMPOUND without it).
    pub session: Option<SequenceOk>,
    pub current: Option<Fh>,
    pub saved: Option<Fh>,
    pub current_stateid: Option<Stateid4>,
    pub saved_stateid: Option<Stateid4>,
    /// Operations the COMPOUND declares, and the index of the one executing.
    pub declared: u32,
    pub index: u32,
    /// Bytes the result of the operation executing may take before the reply passes the session's
    /// ca_maxresponsesize (READ and READDIR shorten their results to fit).
    pub room: usize,
    /// The largest reply: the session's ca_maxresponsesize once SEQUENCE ran, the server's before.
    pub max_response: usize,
    /// An operation changed client records (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, ...): the
    /// reclaim record may have to be written before the reply goes.
    pub changes_clients: bool,
}

impl<'s> Cx<'s> {
    pub(crate) fn new(server: &'s Server, conn: &'s ConnectionInfo, who: Identity, now: Instant, minor: u32) -> Self {
        Cx {
            server,
            svc: &server.v4,
            conn,
            who,
            now,
            minor,
            session: None,
            current: None,
            saved: None,
            current_stateid: None,
            saved_stateid: None,
            declared: 0,
            index: 0,
            room: usize::MAX,
            max_response: server.v4.max_response as usize,
            changes_clients: false,
        }
    }

    pub(crate) fn state(&self) -> std::sync::MutexGuard<'s, V4State> {
        self.svc.state()
    }

    /// RFC 8881 §2.4: the principal a client record belongs to, from the credential as sent.
    pub(crate) fn principal(&self) -> Principal {
        match self.who {
            Identity::Anonymous => Principal::None,
            Identity::Unix(cred) => Principal::Sys { uid: cred.uid, gid: cred.gid },
        }
    }

    /// The client the session acts for (every stateful operation runs after SEQUENCE).
    pub(crate) fn clientid(&self) -> Result<ClientId, NfsErr4> {
        self.session.map(|s| s.clientid).ok_or(NfsErr4::OpNotInSession)
    }

    /// RFC 8881 §16.2.3.1.1: NOFILEHANDLE when no operation has set one.
    pub(crate) fn current(&self) -> Result<Fh, NfsErr4> {
        self.current.ok_or(NfsErr4::NoFileHandle)
    }

    /// Makes `fh` current. RFC 8881 §16.2.3.1.2: an operation that changes the current file handle
    /// leaves no current stateid (OPEN sets one after).
    pub(crate) fn set_current(&mut self, fh: Fh) {
        self.current = Some(fh);
        self.current_stateid = None;
    }

    /// The current file as an export file: `pseudo` is the error for a pseudo directory.
    pub(crate) fn current_obj(&self, pseudo: NfsErr4) -> Result<Obj<'s>, NfsErr4> {
        match self.current()? {
            Fh::Pseudo(_) => Err(pseudo),
            Fh::File { export, file } => self.obj(export, file),
        }
    }

    /// `file` of export `export`, with the export's access rules and the caller's credentials there.
    pub(crate) fn obj(&self, export: u16, file: crate::backend::FileId) -> Result<Obj<'s>, NfsErr4> {
        let export: &'s Export = self.server.exports.get(usize::from(export)).ok_or(NfsErr4::Stale)?;
        export.admit(self.conn.peer).map_err(from_refusal)?;
        Ok(Obj { export, file, cred: export.credentials(&self.who) })
    }

    /// Attributes of the current file, pseudo directories included.
    pub(crate) fn current_attrs(&self) -> Result<Fattr3, NfsErr4> {
        match self.current()? {
            Fh::Pseudo(node) => Ok(self.svc.pseudo.attrs(node)),
            Fh::File { export, file } => self.obj(export, file)?.getattr().map_err(from_v3),
        }
    }

    /// The caller's credentials for `fh`: the export's squash rules for its files; as sent for pseudo
    /// directories, which belong to no export (AUTH_NONE callers are nobody there).
    pub(crate) fn cred_for(&self, fh: Fh) -> Result<Cred, NfsErr4> {
        match fh {
            Fh::Pseudo(_) => Ok(match self.who {
                Identity::Unix(cred) => cred,
                Identity::Anonymous => Cred::new(NOBODY, NOBODY, &[]),
            }),
            Fh::File { export, file } => Ok(self.obj(export, file)?.cred),
        }
    }

    /// The state machine's name for the current file (opens and locks are about it).
    pub(crate) fn file_key(&self) -> Result<FileKey, NfsErr4> {
        match self.current()? {
            Fh::Pseudo(_) => Err(NfsErr4::IsDir),
            Fh::File { export, file } => Ok(FileKey { export, file }),
        }
    }

    /// A stateid from the wire: the "current stateid" special value (RFC 8881 §16.2.3.1.2) replaced by the
    /// current one, BAD_STATEID when there is none.
    pub(crate) fn stateid(&self, wire: &Stateid4) -> Result<Stateid, NfsErr4> {
        let wire = if wire.is_current() { self.current_stateid.ok_or(NfsErr4::BadStateId)? } else { *wire };
        Ok(Stateid { seqid: wire.seqid, other: wire.other })
    }

    /// The session id SEQUENCE named, on the wire.
    pub(crate) fn session_id(&self) -> Option<SessionId> {
        self.session.map(|s| s.sessionid)
    }
}

/// A stateid for the wire.
pub(crate) fn wire_stateid(s: &Stateid) -> Stateid4 {
    Stateid4 { seqid: s.seqid, other: s.other }
}

/// A session id from the wire.
pub(crate) fn session_id(wire: &SessionId4) -> SessionId {
    SessionId(wire.0)
}

/// A session id for the wire.
pub(crate) fn wire_session(id: &SessionId) -> SessionId4 {
    SessionId4(id.0)
}

/// RFC 8881 §18.22.3 (and §18.16.3 for OPEN): what to answer when an operation on file data finds
/// another type: ISDIR for a directory, SYMLINK for a symbolic link, WRONG_TYPE for anything else.
pub(crate) fn require_regular(attrs: &Fattr3) -> Result<(), NfsErr4> {
    match attrs.ftype {
        Ftype3::Reg => Ok(()),
        Ftype3::Dir => Err(NfsErr4::IsDir),
        Ftype3::Lnk => Err(NfsErr4::Symlink),
        _ => Err(NfsErr4::WrongType),
    }
}

/// NOTDIR unless `attrs` is a directory (SYMLINK for a link, RFC 8881 §18.13.3).
pub(crate) fn require_dir(attrs: &Fattr3) -> Result<(), NfsErr4> {
    match attrs.ftype {
        Ftype3::Dir => Ok(()),
        Ftype3::Lnk => Err(NfsErr4::Symlink),
        _ => Err(NfsErr4::NotDir),
    }
}
