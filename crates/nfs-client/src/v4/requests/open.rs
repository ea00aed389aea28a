//! OPEN (RFC 8881 §18.16) of a name in a directory, with the create mode the caller asks
//! (UNCHECKED4 for fio's layout, GUARDED4, EXCLUSIVE4_1 with its verifier and mode) and no delegation
//! wanted (OPEN4_SHARE_ACCESS_WANT_NO_DELEG: the client holds none, so it never has one recalled); OPEN of
//! a handle to reclaim after a server restart (CLAIM_PREVIOUS) or to open revoked state again
//! (CLAIM_FH); CLOSE (§18.2); DELEGRETURN (§18.6) of a delegation a server granted anyway.

use std::sync::Arc;

use nfs4_proto::{
    CloseArgs, Component4, CreateHow4, DelegreturnArgs, NfsArgOp, NfsResOp, OpNum4, OpenArgs, OpenClaim4,
    OpenDelegation4, OpenDelegationType4, OpenFlag4, OpenOwner4, OpenRes, SequenceArgs, Stateid4, Verifier4,
    OPEN4_SHARE_ACCESS_WANT_NO_DELEG, OPEN4_SHARE_DENY_NONE,
};

use super::{attr_of, file_getattr, handle_of, head};
use crate::error::ClientError;
use crate::transport::RpcReply;
use crate::types::{Attr, CreateHow, FileHandle};
use crate::v4::attrs;
use crate::v4::compound::{decode_with, Compound, Decoded};
use crate::v4::opens::OpenState;
use crate::v4::owner::OPEN_OWNER;
use crate::v4::session::Session;
use crate::v4::wire::{compound, Encoded};

/// What an OPEN gave: the open stateid and any delegation granted despite our wish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Opened {
    pub(crate) stateid: Stateid4,
    pub(crate) delegation: Option<Stateid4>,
    /// The attributes the server set from the create request (`attrset`): the mode, or not.
    pub(crate) mode_set: bool,
}

fn opened(proc: &'static str, res: Option<&NfsResOp<'_>>) -> Result<Opened, ClientError> {
    let Some(NfsResOp::Open(OpenRes::Ok(ok))) = res else {
        return Err(ClientError::protocol(proc, "no OPEN result where one was sent"));
    };
    let delegation = match &ok.delegation {
        OpenDelegation4::Read(d) => Some(d.stateid),
        OpenDelegation4::Write(d) => Some(d.stateid),
        OpenDelegation4::None | OpenDelegation4::NoneExt(_) => None,
    };
    let mode_set = ok.attrset.is_set(nfs4_proto::attr::FATTR4_MODE);
    Ok(Opened { stateid: ok.stateid, delegation, mode_set })
}

fn owner(s: &Session) -> OpenOwner4<'static> {
    OpenOwner4 { clientid: s.state().clientid, owner: nfs4_proto::Opaque4(OPEN_OWNER) }
}

/// OPEN of `name` in `dir` for `access`, creating it as `create` says (`None`: it must exist).
#[derive(Debug)]
pub(crate) struct Open {
    pub(crate) dir: FileHandle,
    pub(crate) name: String,
    pub(crate) access: u32,
    pub(crate) create: Option<(CreateHow, u32)>,
}

impl Compound for Open {
    type Output = (FileHandle, Attr, Opened);

    fn name(&self) -> &'static str {
        "OPEN"
    }

    fn cache_this(&self) -> bool {
        true
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let openhow = match self.create {
            None => OpenFlag4::NoCreate,
            Some((CreateHow::Unchecked, mode)) => {
                OpenFlag4::Create(CreateHow4::Unchecked(attrs::set_attrs(Some(mode), None)))
            }
            Some((CreateHow::Guarded, mode)) => {
                OpenFlag4::Create(CreateHow4::Guarded(attrs::set_attrs(Some(mode), None)))
            }
            // RFC 8881 §18.16.3: EXCLUSIVE4_1 carries the verifier and the initial attributes at once.
            Some((CreateHow::Exclusive(verf), mode)) => OpenFlag4::Create(CreateHow4::Exclusive41 {
                verf: Verifier4(verf),
                attrs: attrs::set_attrs(Some(mode), None),
            }),
        };
        let open = NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: self.access | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
            share_deny: OPEN4_SHARE_DENY_NONE,
            owner: owner(s),
            openhow,
            claim: OpenClaim4::Null(Component4(self.name.as_bytes())),
        });
        let [a, b] = head(seq, &self.dir);
        compound(&s.encoder, s.minor, "OPEN", &[a, b, open, NfsArgOp::Getfh, file_getattr()])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<Self::Output>, ClientError> {
        decode_with("OPEN", reply, ops, |res| {
            Ok((handle_of("OPEN", res.get(2))?, attr_of("OPEN", res.get(3))?, opened("OPEN", res.get(1))?))
        })
    }
}

/// How an OPEN of a handle claims the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claim {
    /// CLAIM_PREVIOUS: reclaim in the server's grace period after it restarted (RFC 8881 §9.11).
    Previous,
    /// CLAIM_FH: an ordinary open of the current file handle (v4.1).
    Fh,
}

/// OPEN of the file `fh` with `access`, no create.
#[derive(Debug)]
pub(crate) struct OpenHandle {
    pub(crate) fh: FileHandle,
    pub(crate) access: u32,
    pub(crate) claim: Claim,
}

impl Compound for OpenHandle {
    type Output = Opened;

    fn name(&self) -> &'static str {
        "OPEN"
    }

    fn cache_this(&self) -> bool {
        true
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let (claim, want) = match self.claim {
            // A reclaim names the delegation it had: none (and wants nothing then: the bits are 4.1's).
            Claim::Previous => (OpenClaim4::Previous(OpenDelegationType4::None), 0),
            Claim::Fh => (OpenClaim4::Fh, OPEN4_SHARE_ACCESS_WANT_NO_DELEG),
        };
        let open = NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: self.access | want,
            share_deny: OPEN4_SHARE_DENY_NONE,
            owner: owner(s),
            openhow: OpenFlag4::NoCreate,
            claim,
        });
        let [a, b] = head(seq, &self.fh);
        compound(&s.encoder, s.minor, "OPEN", &[a, b, open])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<Opened>, ClientError> {
        decode_with("OPEN", reply, ops, |res| opened("OPEN", res.get(1)))
    }
}

/// CLOSE of an open (RFC 8881 §18.2), with its current stateid.
#[derive(Debug)]
pub(crate) struct Close {
    pub(crate) open: Arc<OpenState>,
}

impl Compound for Close {
    type Output = ();

    fn name(&self) -> &'static str {
        "CLOSE"
    }

    fn cache_this(&self) -> bool {
        true
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.open.fh);
        let close = NfsArgOp::Close(CloseArgs { seqid: 0, open_stateid: self.open.stateid() });
        compound(&s.encoder, s.minor, "CLOSE", &[a, b, close])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<()>, ClientError> {
        decode_with("CLOSE", reply, ops, |_| Ok(()))
    }
}

/// DELEGRETURN of a delegation the client never asked for (RFC 8881 §18.6).
#[derive(Debug)]
pub(crate) struct Delegreturn {
    pub(crate) fh: FileHandle,
    pub(crate) stateid: Stateid4,
}

impl Compound for Delegreturn {
    type Output = ();

    fn name(&self) -> &'static str {
        "DELEGRETURN"
    }

    fn encode(&self, s: &Session, seq: SequenceArgs) -> Encoded {
        let [a, b] = head(seq, &self.fh);
        let ret = NfsArgOp::Delegreturn(DelegreturnArgs { deleg_stateid: self.stateid });
        compound(&s.encoder, s.minor, "DELEGRETURN", &[a, b, ret])
    }

    fn decode(&self, _: &Session, reply: &RpcReply, ops: &[OpNum4]) -> Result<Decoded<()>, ClientError> {
        decode_with("DELEGRETURN", reply, ops, |_| Ok(()))
    }
}
