//! [`StateError`]: why a state operation failed. Each variant is named after the `nfsstat4` value it becomes
//! (RFC 8881 §15.1), spelled as `nfs4-proto`'s `NfsErr4` spells it, so the dispatch maps them one to one.

use super::types::LockConflict;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// NFS4ERR_STALE_CLIENTID: no client with that id (unknown, expired, or from an earlier server instance).
    #[error("NFS4ERR_STALE_CLIENTID: no such client id")]
    StaleClientId,
    /// NFS4ERR_CLID_INUSE: another principal holds that client owner and its state is live.
    #[error("NFS4ERR_CLID_INUSE: the client owner belongs to another principal")]
    ClidInUse,
    /// NFS4ERR_CLIENTID_BUSY: DESTROY_CLIENTID while sessions or state remain.
    #[error("NFS4ERR_CLIENTID_BUSY: the client still has sessions or state")]
    ClientIdBusy,
    /// NFS4ERR_PERM: EXCHANGE_ID update by another principal.
    #[error("NFS4ERR_PERM: update of a client record by another principal")]
    Perm,
    /// NFS4ERR_NOT_SAME: EXCHANGE_ID update with another verifier.
    #[error("NFS4ERR_NOT_SAME: update of a client record with another verifier")]
    NotSame,
    /// NFS4ERR_NOENT: EXCHANGE_ID update of a client record that does not exist.
    #[error("NFS4ERR_NOENT: no confirmed client record to update")]
    NoEnt,
    /// NFS4ERR_BADSESSION: no such session.
    #[error("NFS4ERR_BADSESSION: no such session")]
    BadSession,
    /// NFS4ERR_SEQ_MISORDERED: a sequence id that is neither the next one nor a retry.
    #[error("NFS4ERR_SEQ_MISORDERED: sequence id out of order")]
    SeqMisordered,
    /// NFS4ERR_BADSLOT: a slot id above the session's highest.
    #[error("NFS4ERR_BADSLOT: no such slot")]
    BadSlot,
    /// NFS4ERR_DELAY: the slot's request is still executing, or the session is busy.
    #[error("NFS4ERR_DELAY: busy, try again")]
    Delay,
    /// NFS4ERR_RETRY_UNCACHED_REP: a retry of a request whose reply was not cached.
    #[error("NFS4ERR_RETRY_UNCACHED_REP: the reply to this retry was not cached")]
    RetryUncachedRep,
    /// NFS4ERR_REP_TOO_BIG_TO_CACHE: the reply to cache exceeds ca_maxresponsesize_cached.
    #[error("NFS4ERR_REP_TOO_BIG_TO_CACHE: reply larger than the session's cached-reply size")]
    RepTooBigToCache,
    /// NFS4ERR_TOOSMALL: channel attributes below what a request or reply needs.
    #[error("NFS4ERR_TOOSMALL: channel attributes too small")]
    TooSmall,
    /// NFS4ERR_ENCR_ALG_UNSUPP: no callback security flavor we can use (AUTH_NONE or AUTH_SYS).
    #[error("NFS4ERR_ENCR_ALG_UNSUPP: no usable callback security flavor")]
    EncrAlgUnsupp,
    /// NFS4ERR_BAD_STATEID: a stateid this client does not hold, for another file, or a misused special one;
    /// one from an earlier server instance too (there is no StaleStateId: RFC 8881 §15.1.16.5 forbids
    /// NFS4ERR_STALE_STATEID in v4.1, see `stateid.rs`).
    #[error("NFS4ERR_BAD_STATEID: unknown or misused stateid")]
    BadStateId,
    /// NFS4ERR_OLD_STATEID: a stateid whose seqid has been superseded.
    #[error("NFS4ERR_OLD_STATEID: superseded stateid")]
    OldStateId,
    /// NFS4ERR_SHARE_DENIED: an OPEN conflicting with another owner's share reservation.
    #[error("NFS4ERR_SHARE_DENIED: share reservation conflict")]
    ShareDenied,
    /// NFS4ERR_DENIED: a byte-range lock conflict, with the lock in the way.
    #[error("NFS4ERR_DENIED: conflicting lock at {} (+{})", conflict.offset, conflict.length)]
    Denied { conflict: LockConflict },
    /// NFS4ERR_LOCKED: anonymous I/O against a deny reservation.
    #[error("NFS4ERR_LOCKED: I/O denied by a share reservation")]
    Locked,
    /// NFS4ERR_OPENMODE: the open does not allow this access (a write through a read-only open).
    #[error("NFS4ERR_OPENMODE: the open does not allow this access")]
    OpenMode,
    /// NFS4ERR_LOCKS_HELD: CLOSE or FREE_STATEID while byte-range locks remain.
    #[error("NFS4ERR_LOCKS_HELD: byte-range locks still held")]
    LocksHeld,
    /// NFS4ERR_GRACE: a non-reclaim stateful request during the grace period.
    #[error("NFS4ERR_GRACE: the server is in its grace period")]
    Grace,
    /// NFS4ERR_NO_GRACE: a reclaim outside the grace period or from a client that may not reclaim.
    #[error("NFS4ERR_NO_GRACE: reclaim not allowed")]
    NoGrace,
    /// NFS4ERR_COMPLETE_ALREADY: a second RECLAIM_COMPLETE.
    #[error("NFS4ERR_COMPLETE_ALREADY: RECLAIM_COMPLETE already done")]
    CompleteAlready,
    /// NFS4ERR_RESOURCE: a configured cap (clients, sessions, owners, opens, locks, owner length) reached.
    #[error("NFS4ERR_RESOURCE: server limit reached ({0})")]
    Resource(&'static str),
    /// NFS4ERR_INVAL: arguments the RFC rules out (a bad share mode, a zero or overflowing lock range, a
    /// downgrade to modes never opened).
    #[error("NFS4ERR_INVAL: invalid argument ({0})")]
    Inval(&'static str),
}
