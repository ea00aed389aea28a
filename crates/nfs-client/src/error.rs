//! [`ClientError`]: the one error enum of this crate. Every variant names the call (`proc`) or the
//! place (`addr`, `path`) it concerns.

use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use nfs3_proto::mount::MountErr3;
use nfs3_proto::NfsErr3;
use nfs4_proto::NfsErr4;
use onc_rpc::{AcceptStat, RejectedReply};
use thiserror::Error;

/// Why a call, a mount or an unmount failed.
#[derive(Debug, Error)]
pub enum ClientError {
    /// The server executed the procedure and answered with an `nfsstat3` other than `NFS3_OK`.
    #[error("{proc} failed: {}", status.name())]
    Nfs { proc: &'static str, status: NfsErr3 },

    /// The NFSv4 server answered an operation of the COMPOUND with an `nfsstat4` other than `NFS4_OK`
    /// (or its SEQUENCE with one the session layer could not recover from).
    #[error("{proc} failed: {}", status.name())]
    Nfs4 { proc: &'static str, status: NfsErr4 },

    /// The NFSv4 server is not the same server on every address `remoteports`/`max_connect` named:
    /// its `server_owner` or scope differ (RFC 8881 §2.10.5), so no session can span them.
    #[error("{addr} is not the server {first} is (EXCHANGE_ID: {what} differs): no session trunking between them")]
    NotTrunkable { addr: SocketAddr, first: SocketAddr, what: &'static str },

    /// The state of an NFSv4 mount could not be recovered (a server restart whose reclaim failed, a
    /// session the server refuses to make): every call fails with this.
    #[error("the NFSv4 session could not be recovered: {0}")]
    Recovery(String),

    /// MOUNT MNT refused the export.
    #[error("MOUNT of {path} failed: {}", status.name())]
    Mount { path: String, status: MountErr3 },

    /// A path below the export root does not exist (LOOKUP answered `NFS3ERR_NOENT`).
    #[error("{path}: no such file or directory on the server")]
    NotFound { path: String },

    /// The RPC layer refused the call: MSG_DENIED (RFC 5531 §9), e.g. AUTH_ERROR.
    #[error("{proc} call denied by the server: {}", Denied(reason))]
    RpcDenied { proc: &'static str, reason: RejectedReply },

    /// The call was accepted but not executed: an `accept_stat` other than SUCCESS (RFC 5531 §9).
    #[error("{proc} call not executed by the server: {}", Accept(stat))]
    RpcAccept { proc: &'static str, stat: AcceptStat },

    /// A socket operation failed (connect, or a short-lived MOUNT / port mapper exchange).
    #[error("{addr}: {source}")]
    Io { addr: SocketAddr, source: io::Error },

    /// An RPC-over-RDMA connection could not be made, or its provider refused an operation.
    #[error("{addr}: RDMA: {source}")]
    Rdma {
        addr: SocketAddr,
        #[source]
        source: rdma::RdmaError,
    },

    /// The server answered the call with RDMA_ERROR (RFC 8166 §4.5): ERR_VERS (it speaks no
    /// RPC-over-RDMA version 1) or ERR_CHUNK (it could not use the call's header or chunks).
    #[error("{proc}: the server answered RDMA_ERROR {}", RdmaErr(body))]
    RdmaErrorReply { proc: &'static str, body: rpcrdma_proto::RdmaErrorBody },

    /// Soft mounts only: no reply after `retrans` retransmissions (`after` since the first one).
    #[error("{proc}: server not responding, gave up after {after:?} (soft mount)")]
    TimedOut { proc: &'static str, after: Duration },

    /// The reply did not decode, or broke a rule of the protocol.
    #[error("{proc}: malformed reply: {detail}")]
    Protocol { proc: &'static str, detail: String },

    /// Something this client does not do, or a configuration it cannot use: NFS versions other than
    /// 3, `proto=rdma` without an RDMA provider, an inline threshold out of range, ...
    #[error("unsupported: {0}")]
    Unsupported(String),

    /// An emulated long-distance link (`--wan`) was asked for over an RDMA provider that cannot carry
    /// one: only the soft provider reports what the peer's RDMA Reads and Writes moved.
    #[error(
        "--wan emulates RDMA over the soft provider only (this is {provider}): use --rdma-provider soft, or the \
         real path's own distance"
    )]
    LinkNeedsSoftProvider { provider: String },

    /// A bad argument, refused before anything was sent (e.g. a READ larger than `rsize`).
    #[error("{proc}: {detail}")]
    InvalidArgument { proc: &'static str, detail: String },

    /// The port mapper does not know the program: nothing serves it over TCP there.
    #[error("port mapper at {addr}: program {prog} version {vers} is not registered for TCP")]
    NotRegistered { addr: SocketAddr, prog: &'static str, vers: u32 },

    /// The client was unmounted (or dropped) while the call was outstanding, or before it was made.
    #[error("{proc}: the client is unmounted")]
    Closed { proc: &'static str },

    /// The mount options did not give usable addresses.
    #[error(transparent)]
    Options(#[from] mount_options::OptionsError),
}

impl ClientError {
    /// The `nfsstat3` of an [`ClientError::Nfs`] error.
    pub fn nfs_status(&self) -> Option<NfsErr3> {
        match self {
            ClientError::Nfs { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The `nfsstat4` of an [`ClientError::Nfs4`] error.
    pub fn nfs4_status(&self) -> Option<NfsErr4> {
        match self {
            ClientError::Nfs4 { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The server said the entry exists (NFS3ERR_EXIST, NFS4ERR_EXIST), whatever the version.
    pub fn already_exists(&self) -> bool {
        self.nfs_status() == Some(NfsErr3::Exist) || self.nfs4_status() == Some(NfsErr4::Exist)
    }

    /// The server said there is no such entry (NFS3ERR_NOENT, NFS4ERR_NOENT), whatever the version.
    pub fn not_found(&self) -> bool {
        self.nfs_status() == Some(NfsErr3::NoEnt) || self.nfs4_status() == Some(NfsErr4::NoEnt)
    }

    pub(crate) fn protocol(proc: &'static str, detail: impl fmt::Display) -> Self {
        ClientError::Protocol { proc, detail: detail.to_string() }
    }
}

/// Display of a `rejected_reply`.
struct Denied<'a>(&'a RejectedReply);

impl fmt::Display for Denied<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RejectedReply::RpcMismatch { low, high } => write!(f, "RPC_MISMATCH (server speaks RPC {low}..={high})"),
            RejectedReply::AuthError(stat) => write!(f, "AUTH_ERROR {stat:?}"),
        }
    }
}

/// Display of an `rpc_rdma_error` body.
struct RdmaErr<'a>(&'a rpcrdma_proto::RdmaErrorBody);

impl fmt::Display for RdmaErr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            rpcrdma_proto::RdmaErrorBody::Vers { low, high } => {
                write!(f, "ERR_VERS (the server speaks RPC-over-RDMA versions {low}..={high}, not 1)")
            }
            rpcrdma_proto::RdmaErrorBody::Chunk => f.write_str("ERR_CHUNK (it could not use the call's chunks)"),
        }
    }
}

/// Display of an `accept_stat`.
struct Accept<'a>(&'a AcceptStat);

impl fmt::Display for Accept<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            AcceptStat::Success => f.write_str("SUCCESS"),
            AcceptStat::ProgUnavail => f.write_str("PROG_UNAVAIL"),
            AcceptStat::ProgMismatch { low, high } => write!(f, "PROG_MISMATCH (versions {low}..={high})"),
            AcceptStat::ProcUnavail => f.write_str("PROC_UNAVAIL"),
            AcceptStat::GarbageArgs => f.write_str("GARBAGE_ARGS"),
            AcceptStat::SystemErr => f.write_str("SYSTEM_ERR"),
        }
    }
}
