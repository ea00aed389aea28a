//! The small owned types of the public API: file handles, attributes, READ/WRITE results, and the
//! counters [`NfsClient::connections`](crate::NfsClient::connections) and
//! [`NfsClient::stats`](crate::NfsClient::stats) report.

use std::fmt;
use std::net::SocketAddr;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use nfs3_proto::{Fattr3, FileHandle3, Ftype3, NfsTime3};
use nfs4_proto::NfsFh4;

/// A file handle of either version: NFSv3's `nfs_fh3` (at most 64 bytes, RFC 1813 §2.6) or NFSv4's
/// `nfs_fh4` (at most 128, RFC 8881 §4), stored inline, so it can be hashed and kept without a lifetime.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct FileHandle(pub(crate) NfsFh4);

impl FileHandle {
    /// A handle holding `bytes`; `None` when longer than 128 bytes (RFC 8881 §3.2 NFS4_FHSIZE).
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        NfsFh4::new(bytes).map(FileHandle)
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The NFSv3 wire type, for building calls with `nfs3_proto` directly; `None` for a handle longer
    /// than NFSv3's 64 bytes.
    pub fn as_nfs3(&self) -> Option<FileHandle3> {
        FileHandle3::new(self.as_bytes())
    }

    /// The NFSv4 wire type.
    pub fn as_nfs4(&self) -> &NfsFh4 {
        &self.0
    }
}

impl From<FileHandle3> for FileHandle {
    fn from(fh: FileHandle3) -> Self {
        // 64 bytes always fit in 128.
        FileHandle(NfsFh4::new(fh.as_bytes()).unwrap_or_default())
    }
}

impl From<NfsFh4> for FileHandle {
    fn from(fh: NfsFh4) -> Self {
        FileHandle(fh)
    }
}

impl fmt::Debug for FileHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FileHandle(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// `ftype3` (RFC 1813 §2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    Regular,
    Directory,
    BlockDevice,
    CharDevice,
    Symlink,
    Socket,
    Fifo,
}

impl From<Ftype3> for FileKind {
    fn from(t: Ftype3) -> Self {
        match t {
            Ftype3::Reg => FileKind::Regular,
            Ftype3::Dir => FileKind::Directory,
            Ftype3::Blk => FileKind::BlockDevice,
            Ftype3::Chr => FileKind::CharDevice,
            Ftype3::Lnk => FileKind::Symlink,
            Ftype3::Sock => FileKind::Socket,
            Ftype3::Fifo => FileKind::Fifo,
        }
    }
}

/// File attributes (`fattr3`, RFC 1813 §2.6) with times as [`SystemTime`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attr {
    pub kind: FileKind,
    /// Permission bits (`mode3`: the low 12 bits of st_mode).
    pub mode: u32,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    /// Bytes of storage the file uses.
    pub used: u64,
    pub fsid: u64,
    pub fileid: u64,
    pub atime: SystemTime,
    pub mtime: SystemTime,
    pub ctime: SystemTime,
}

fn time(t: NfsTime3) -> SystemTime {
    UNIX_EPOCH + Duration::new(u64::from(t.seconds), t.nseconds.min(999_999_999))
}

impl From<&Fattr3> for Attr {
    fn from(a: &Fattr3) -> Self {
        Attr {
            kind: a.ftype.into(),
            mode: a.mode,
            nlink: a.nlink,
            uid: a.uid,
            gid: a.gid,
            size: a.size,
            used: a.used,
            fsid: a.fsid,
            fileid: a.fileid,
            atime: time(a.atime),
            mtime: time(a.mtime),
            ctime: time(a.ctime),
        }
    }
}

/// A READ result. `data` is a slice of the received record: never copied after the socket read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadReply {
    pub data: Bytes,
    /// The server says the read reached the end of the file.
    pub eof: bool,
}

/// `stable_how` (RFC 1813 §3.3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StableHow {
    /// The server may keep the data in memory until COMMIT.
    Unstable,
    /// Data on stable storage before the reply; metadata may lag.
    DataSync,
    /// Data and metadata on stable storage before the reply.
    FileSync,
}

impl StableHow {
    pub(crate) fn to_nfs3(self) -> nfs3_proto::StableHow {
        match self {
            StableHow::Unstable => nfs3_proto::StableHow::Unstable,
            StableHow::DataSync => nfs3_proto::StableHow::DataSync,
            StableHow::FileSync => nfs3_proto::StableHow::FileSync,
        }
    }

    pub(crate) fn from_nfs3(s: nfs3_proto::StableHow) -> Self {
        match s {
            nfs3_proto::StableHow::Unstable => StableHow::Unstable,
            nfs3_proto::StableHow::DataSync => StableHow::DataSync,
            nfs3_proto::StableHow::FileSync => StableHow::FileSync,
        }
    }
}

/// A WRITE result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteReply {
    /// Bytes the server wrote (may be fewer than sent).
    pub count: u32,
    /// How far the server committed them.
    pub committed: StableHow,
    /// The server's write verifier: if it changes before COMMIT, unstable data must be written again.
    pub verifier: [u8; 8],
}

/// `createhow3` (RFC 1813 §3.3.8) as far as a benchmark needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CreateHow {
    /// Create, or truncate nothing and succeed if the file exists.
    Unchecked,
    /// Fail with NFS3ERR_EXIST if the file exists.
    Guarded,
    /// Exclusive create with this verifier (a retransmission succeeds, another verifier gets
    /// NFS3ERR_EXIST); `mode` is then set with SETATTR.
    Exclusive([u8; 8]),
}

/// One connection of a mount, as [`NfsClient::connections`](crate::NfsClient::connections) reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionInfo {
    /// Position in the mount's connection list (0..nconnect).
    pub index: usize,
    /// What carries the calls: `"tcp"`, or `"rdma"` with the RDMA provider and device in parentheses
    /// (e.g. `"rdma (soft (shared memory, one host))"`).
    pub transport: String,
    /// Our end of the current connection; `None` while disconnected (and for RDMA providers that do
    /// not know it).
    pub local: Option<SocketAddr>,
    pub remote: SocketAddr,
    pub connected: bool,
    /// Calls submitted on this connection (each counted once, however often it was sent).
    pub calls_sent: u64,
    /// Transmissions of a call after its first (timeouts and reconnections; over RDMA only
    /// reconnections, since an RDMA timeout forces one).
    pub retransmissions: u64,
    /// Connections re-established after the first one broke.
    pub reconnects: u64,
    /// Replies whose xid matched no outstanding call (late, duplicate or bogus): counted and dropped.
    pub unknown_replies: u64,
    /// Calls submitted and not yet answered.
    pub in_flight: usize,
}

/// Totals over every connection of a mount.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientStats {
    pub calls: u64,
    pub retransmissions: u64,
    pub reconnects: u64,
    /// Calls failed with [`ClientError::TimedOut`](crate::ClientError::TimedOut) (soft mounts).
    pub soft_timeouts: u64,
    /// Major timeouts (no reply after `retrans` retransmissions), soft and hard.
    pub major_timeouts: u64,
    pub unknown_replies: u64,
    /// RPC-over-RDMA: memory registrations made (each queue pair's pool once, then only chunks that
    /// did not fit it); 0 over TCP.
    pub registrations: u64,
    /// RPC-over-RDMA: bytes copied between calls' buffers and the pool (WRITE data in, Reply chunks
    /// out; READ data is handed over in place).
    pub bytes_copied: u64,
}

impl std::ops::AddAssign for ClientStats {
    fn add_assign(&mut self, other: ClientStats) {
        self.calls += other.calls;
        self.retransmissions += other.retransmissions;
        self.reconnects += other.reconnects;
        self.soft_timeouts += other.soft_timeouts;
        self.major_timeouts += other.major_timeouts;
        self.unknown_replies += other.unknown_replies;
        self.registrations += other.registrations;
        self.bytes_copied += other.bytes_copied;
    }
}
