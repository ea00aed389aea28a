//! NFSv4.0 operations that RFC 8881 keeps in `nfs_opnum4`: OPENATTR (§18.17, optional), and OPEN_CONFIRM,
//! RENEW, SETCLIENTID, SETCLIENTID_CONFIRM and RELEASE_LOCKOWNER, which a v4.1 server must answer with
//! NFS4ERR_NOTSUPP (RFC 8881 §18: "MNI"). Their arguments decode so that answer is given cleanly; their
//! results follow RFC 7530 §16.

use crate::status::{ErrorBody, Nfs4Result, Nfs4ResultOr, NfsErr4, Void};
use crate::types::{ClientAddr4, ClientId4, LockOwner4, Opaque4, SeqId4, Stateid4, Verifier4};

xdr_struct! {
    /// `OPENATTR4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenattrArgs {
        pub createdir: bool,
    }
}

/// `OPENATTR4res`: status only.
pub type OpenattrRes = Nfs4Result<Void>;

xdr_struct! {
    /// `OPEN_CONFIRM4args` (RFC 7530 §16.18).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenConfirmArgs {
        pub open_stateid: Stateid4,
        pub seqid: SeqId4,
    }
}

xdr_struct! {
    /// `OPEN_CONFIRM4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenConfirmResOk {
        pub open_stateid: Stateid4,
    }
}

/// `OPEN_CONFIRM4res`.
pub type OpenConfirmRes = Nfs4Result<OpenConfirmResOk>;

xdr_struct! {
    /// `RENEW4args` (RFC 7530 §16.29).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RenewArgs {
        pub clientid: ClientId4,
    }
}

/// `RENEW4res`: status only.
pub type RenewRes = Nfs4Result<Void>;

xdr_struct! {
    /// `nfs_client_id4` (RFC 7530 §3.3.10).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct NfsClientId4<'a> {
        pub verifier: Verifier4,
        pub id: Opaque4<'a>,
    }
}

xdr_struct! {
    /// `cb_client4` (RFC 7530 §3.3.11).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CbClient4<'a> {
        pub cb_program: u32,
        pub cb_location: ClientAddr4<'a>,
    }
}

xdr_struct! {
    /// `SETCLIENTID4args` (RFC 7530 §16.33).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetclientidArgs<'a> {
        pub client: NfsClientId4<'a>,
        pub callback: CbClient4<'a>,
        pub callback_ident: u32,
    }
}

xdr_struct! {
    /// `SETCLIENTID4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetclientidResOk {
        pub clientid: ClientId4,
        pub setclientid_confirm: Verifier4,
    }
}

xdr_struct! {
    /// The NFS4ERR_CLID_INUSE arm of `SETCLIENTID4res`: where the id is in use.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ClidInUse<'a> {
        pub client_using: ClientAddr4<'a>,
    }
}

impl ErrorBody for ClidInUse<'_> {
    const STATUS: NfsErr4 = NfsErr4::ClidInUse;
    fn empty() -> Self {
        ClidInUse::default()
    }
}

/// `SETCLIENTID4res`.
pub type SetclientidRes<'a> = Nfs4ResultOr<SetclientidResOk, ClidInUse<'a>>;

xdr_struct! {
    /// `SETCLIENTID_CONFIRM4args` (RFC 7530 §16.34).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetclientidConfirmArgs {
        pub clientid: ClientId4,
        pub setclientid_confirm: Verifier4,
    }
}

/// `SETCLIENTID_CONFIRM4res`: status only.
pub type SetclientidConfirmRes = Nfs4Result<Void>;

xdr_struct! {
    /// `RELEASE_LOCKOWNER4args` (RFC 7530 §16.37).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReleaseLockownerArgs<'a> {
        pub lock_owner: LockOwner4<'a>,
    }
}

/// `RELEASE_LOCKOWNER4res`: status only.
pub type ReleaseLockownerRes = Nfs4Result<Void>;
