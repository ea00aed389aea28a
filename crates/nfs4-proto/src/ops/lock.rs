//! Byte-range locks: LOCK (RFC 8881 §18.10), LOCKT (§18.11), LOCKU (§18.12). LOCK and LOCKT answer
//! NFS4ERR_DENIED with the conflicting lock (`LOCK4denied`), so their results are [`Nfs4ResultOr`]s.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{ErrorBody, Nfs4Result, Nfs4ResultOr, NfsErr4, Void};
use crate::types::{Length4, LockOwner4, Offset4, SeqId4, Stateid4};

xdr_enum! {
    /// `nfs_lock_type4` (RFC 8881 §18.10.1); the `W` types ask to wait (the server may not).
    pub enum NfsLockType4 as "nfs_lock_type4" {
        Read = 1 => "READ_LT",
        Write = 2 => "WRITE_LT",
        ReadW = 3 => "READW_LT",
        WriteW = 4 => "WRITEW_LT",
    }
}

xdr_struct! {
    /// `open_to_lock_owner4`: the first lock of a lock owner, under an open stateid.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct OpenToLockOwner4<'a> {
        pub open_seqid: SeqId4,
        pub open_stateid: Stateid4,
        pub lock_seqid: SeqId4,
        pub lock_owner: LockOwner4<'a>,
    }
}

xdr_struct! {
    /// `exist_lock_owner4`: a lock owner that already has a lock stateid.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ExistLockOwner4 {
        pub lock_stateid: Stateid4,
        pub lock_seqid: SeqId4,
    }
}

/// `locker4` (RFC 8881 §18.10.1): `union switch (bool new_lock_owner)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Locker4<'a> {
    NewLockOwner(OpenToLockOwner4<'a>),
    ExistingLockOwner(ExistLockOwner4),
}

impl XdrEncode for Locker4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Locker4::NewLockOwner(o) => {
                w.put_bool(true);
                o.encode(w);
            }
            Locker4::ExistingLockOwner(o) => {
                w.put_bool(false);
                o.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for Locker4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(if r.get_bool()? {
            Locker4::NewLockOwner(OpenToLockOwner4::decode(r)?)
        } else {
            Locker4::ExistingLockOwner(ExistLockOwner4::decode(r)?)
        })
    }
}

xdr_struct! {
    /// `LOCK4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LockArgs<'a> {
        pub locktype: NfsLockType4,
        pub reclaim: bool,
        pub offset: Offset4,
        pub length: Length4,
        pub locker: Locker4<'a>,
    }
}

xdr_struct! {
    /// `LOCK4denied`: the conflicting lock and its owner.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Lock4Denied<'a> {
        pub offset: Offset4,
        pub length: Length4,
        pub locktype: NfsLockType4,
        pub owner: LockOwner4<'a>,
    }
}

impl Default for Lock4Denied<'_> {
    fn default() -> Self {
        Lock4Denied { offset: 0, length: 0, locktype: NfsLockType4::Write, owner: LockOwner4::default() }
    }
}

xdr_struct! {
    /// `LOCK4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LockResOk {
        pub lock_stateid: Stateid4,
    }
}

impl ErrorBody for Lock4Denied<'_> {
    const STATUS: NfsErr4 = NfsErr4::Denied;
    fn empty() -> Self {
        Lock4Denied::default()
    }
}

/// `LOCK4res`: `NFS4_OK` → the lock stateid; `NFS4ERR_DENIED` → the conflicting lock; other errors → void.
pub type LockRes<'a> = Nfs4ResultOr<LockResOk, Lock4Denied<'a>>;

/// `LOCKT4res`: `NFS4ERR_DENIED` → the conflicting lock; `NFS4_OK` and other errors → void.
pub type LocktRes<'a> = Nfs4ResultOr<Void, Lock4Denied<'a>>;

xdr_struct! {
    /// `LOCKT4args`: test for a conflicting lock without creating state.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LocktArgs<'a> {
        pub locktype: NfsLockType4,
        pub offset: Offset4,
        pub length: Length4,
        pub owner: LockOwner4<'a>,
    }
}

xdr_struct! {
    /// `LOCKU4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LockuArgs {
        pub locktype: NfsLockType4,
        pub seqid: SeqId4,
        pub lock_stateid: Stateid4,
        pub offset: Offset4,
        pub length: Length4,
    }
}

xdr_struct! {
    /// `LOCKU4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LockuResOk {
        pub lock_stateid: Stateid4,
    }
}

/// `LOCKU4res`.
pub type LockuRes = Nfs4Result<LockuResOk>;
