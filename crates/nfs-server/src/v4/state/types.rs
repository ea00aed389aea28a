//! The small value types the v4 state machine speaks in: identifiers it hands out (client ids, session ids,
//! stateids), identifiers the caller supplies (files, principals; connections are `crate::ConnectionId`),
//! share and lock modes.
//! They mirror the XDR types of RFC 8881 without depending on the codec crate; the dispatch converts.

use crate::backend::FileId;

/// `clientid4` as this server makes it: the server instance's epoch in the high 32 bits, a counter in the
/// low 32, so an id from an earlier instance can never name a client of this one (RFC 8881 §2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClientId(pub u64);

impl ClientId {
    pub(crate) fn new(epoch: u32, counter: u32) -> Self {
        ClientId(u64::from(epoch) << 32 | u64::from(counter))
    }

    /// The epoch of the server instance that issued it.
    pub fn epoch(self) -> u32 {
        (self.0 >> 32) as u32
    }
}

/// `sessionid4` (RFC 8881 §2.10.3): server epoch (4 bytes), the client's counter (4), a session counter (4),
/// zero (4). Unique across restarts because the epoch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub [u8; 16]);

impl SessionId {
    pub(crate) fn new(epoch: u32, client: ClientId, serial: u32) -> Self {
        let mut id = [0u8; 16];
        id[..4].copy_from_slice(&epoch.to_be_bytes());
        id[4..8].copy_from_slice(&(client.0 as u32).to_be_bytes());
        id[8..12].copy_from_slice(&serial.to_be_bytes());
        SessionId(id)
    }
}

/// `stateid4` (RFC 8881 §8.2.2). `other` is the server epoch (4 bytes) then a serial number (8), both
/// big-endian; the serial is never reused within an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Stateid {
    pub seqid: u32,
    pub other: [u8; 12],
}

impl Stateid {
    /// RFC 8881 §8.2.3: all zeros — the anonymous stateid.
    pub const ANONYMOUS: Stateid = Stateid { seqid: 0, other: [0; 12] };
    /// RFC 8881 §8.2.3: all ones — the READ bypass stateid (treated here as anonymous).
    pub const BYPASS: Stateid = Stateid { seqid: u32::MAX, other: [0xff; 12] };
    /// RFC 8881 §8.2.3: seqid 1, other zero — "the current stateid", which the dispatch resolves.
    pub const CURRENT: Stateid = Stateid { seqid: 1, other: [0; 12] };
    /// RFC 8881 §8.2.3: seqid all ones, other zero — invalid; what CLOSE returns (§18.2.4).
    pub const INVALID: Stateid = Stateid { seqid: u32::MAX, other: [0; 12] };

    pub(crate) fn issued(epoch: u32, serial: u64, seqid: u32) -> Self {
        let mut other = [0u8; 12];
        other[..4].copy_from_slice(&epoch.to_be_bytes());
        other[4..].copy_from_slice(&serial.to_be_bytes());
        Stateid { seqid, other }
    }

    /// RFC 8881 §8.2.3: `other` all zeros or all ones.
    pub fn is_special(&self) -> bool {
        self.other == [0; 12] || self.other == [0xff; 12]
    }

    /// The anonymous or the bypass stateid: I/O without open state.
    pub fn is_anonymous_io(&self) -> bool {
        *self == Self::ANONYMOUS || *self == Self::BYPASS
    }

    pub(crate) fn epoch(&self) -> u32 {
        u32::from_be_bytes([self.other[0], self.other[1], self.other[2], self.other[3]])
    }

    pub(crate) fn serial(&self) -> u64 {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&self.other[4..]);
        u64::from_be_bytes(bytes)
    }
}

/// The file a piece of state is about, as the caller identifies it (from the file handle).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileKey {
    pub export: u16,
    pub file: FileId,
}

/// Who sent a call, as far as client identity goes (RFC 8881 §2.4: the principal that created a client
/// record must be the one that changes it). The peer address is never part of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Principal {
    /// AUTH_NONE.
    None,
    /// AUTH_SYS: the uid and gid as sent (before any squashing).
    Sys { uid: u32, gid: u32 },
}

/// RFC 8881 §18.16.1: `share_access` values (without the delegation "want" bits, which the dispatch masks).
pub const SHARE_ACCESS_READ: u32 = 1;
pub const SHARE_ACCESS_WRITE: u32 = 2;
pub const SHARE_ACCESS_BOTH: u32 = 3;
/// RFC 8881 §18.16.1: `share_deny` values.
pub const SHARE_DENY_NONE: u32 = 0;
pub const SHARE_DENY_READ: u32 = 1;
pub const SHARE_DENY_WRITE: u32 = 2;
pub const SHARE_DENY_BOTH: u32 = 3;

/// A byte-range lock's mode (RFC 8881 §9.2 `nfs_lock_type4`; the blocking `_W` variants map to these).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockType {
    Read,
    Write,
}

impl LockType {
    /// READ_LT 1 and READW_LT 3 are reads, WRITE_LT 2 and WRITEW_LT 4 writes (RFC 8881 §18.10.1); a blocking
    /// request is answered as a non-blocking one (we never queue waiters). `None` for any other value.
    pub fn from_wire(value: u32) -> Option<LockType> {
        match value {
            1 | 3 => Some(LockType::Read),
            2 | 4 => Some(LockType::Write),
            _ => None,
        }
    }

    /// READ_LT or WRITE_LT, as LOCK4denied reports a holder.
    pub fn to_wire(self) -> u32 {
        match self {
            LockType::Read => 1,
            LockType::Write => 2,
        }
    }

    /// Two locks conflict unless both are reads (RFC 8881 §9.1).
    pub(crate) fn conflicts_with(self, other: LockType) -> bool {
        self == LockType::Write || other == LockType::Write
    }
}

/// `lock_owner4`: the client and its opaque owner bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockOwnerName {
    pub clientid: ClientId,
    pub owner: Vec<u8>,
}

/// LOCK4denied (RFC 8881 §18.10.2): the lock that stands in the way.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LockConflict {
    pub offset: u64,
    /// NFS4_UINT64_MAX for a lock to the end of the file.
    pub length: u64,
    pub lock_type: LockType,
    pub owner: LockOwnerName,
}

/// What an I/O operation does with the file, for the stateid check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IoAccess {
    /// READ.
    Read,
    /// WRITE, or SETATTR of the size.
    Write,
}
