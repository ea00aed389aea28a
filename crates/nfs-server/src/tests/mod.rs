//! End-to-end tests of the dispatcher: calls are encoded with onc-rpc and nfs3-proto, run through
//! [`Server::handle`] and the replies decoded with the same crates, over the RAM-disk backend (wrapped
//! where a test needs to steer the backend).

/// Unwraps a decoded reply of the expected variant.
macro_rules! expect_reply {
    ($reply:expr, $variant:ident) => {
        match $reply {
            nfs3_proto::Nfs3Reply::$variant(res) => res,
            other => panic!("expected {}, got {other:?}", stringify!($variant)),
        }
    };
}

mod drc;
mod exports;
mod files;
mod handles;
mod hostile;
mod mount;
mod namespace;
mod portmap;
mod readdir;
mod restart;
mod rpc;
mod setid;
mod wrap;
mod zero_copy;

use std::cell::Cell;
use std::net::SocketAddr;
use std::sync::Arc;

use nfs3_proto::*;
use onc_rpc::{AcceptStat, AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use xdr::{XdrEncode, XdrWriter};

use crate::backend::mem::MemBackend;
use crate::backend::Backend;
use crate::{ConnectionId, ConnectionInfo, ExportConfig, Server, ServerConfig, Squash, TransportKind};

/// The TCP port the test servers claim to listen on.
pub(crate) const PORT: u16 = 20049;
/// The largest READ/WRITE of the test servers.
pub(crate) const MAX_IO: u32 = 64 * 1024;
/// Anonymous ids of the test exports.
pub(crate) const ANON: u32 = 65534;

pub(crate) fn mem() -> Arc<dyn Backend> {
    Arc::new(MemBackend::new(64 << 20))
}

/// A read-write export of `backend` at `path`, open to everyone, no squashing.
pub(crate) fn export(path: &str, backend: Arc<dyn Backend>) -> ExportConfig {
    ExportConfig {
        path: path.to_string(),
        backend,
        read_only: false,
        clients: Vec::new(),
        squash: Squash::None,
        anon_uid: ANON,
        anon_gid: ANON,
        secure: false,
    }
}

pub(crate) fn server_with(exports: Vec<ExportConfig>) -> Server {
    let config = ServerConfig { exports, max_io_size: MAX_IO, drc_entries: 1024, tcp_port: PORT, rdma_port: None };
    Server::new(config).unwrap_or_else(|e| panic!("test configuration refused: {e}"))
}

/// A server with one RAM-disk export at "/export".
pub(crate) fn server() -> Server {
    server_with(vec![export("/export", mem())])
}

pub(crate) fn addr(text: &str) -> SocketAddr {
    text.parse().unwrap_or_else(|e| panic!("bad address {text}: {e}"))
}

/// A client: identity, connection, xids.
pub(crate) struct Client<'s> {
    pub server: &'s Server,
    pub conn: ConnectionInfo,
    pub uid: u32,
    pub gid: u32,
    pub gids: Vec<u32>,
    pub anonymous: bool,
    xid: Cell<u32>,
}

impl<'s> Client<'s> {
    /// uid 1000 / gid 1000 from 127.0.0.1 port 800 (a privileged port).
    pub(crate) fn new(server: &'s Server) -> Self {
        let conn = ConnectionInfo {
            id: ConnectionId::next(),
            peer: addr("127.0.0.1:800"),
            local: addr("127.0.0.1:20049"),
            transport: TransportKind::Tcp,
        };
        Client { server, conn, uid: 1000, gid: 1000, gids: Vec::new(), anonymous: false, xid: Cell::new(0x1000) }
    }

    pub(crate) fn root(server: &'s Server) -> Self {
        Client::new(server).user(0, 0)
    }

    pub(crate) fn user(mut self, uid: u32, gid: u32) -> Self {
        self.uid = uid;
        self.gid = gid;
        self
    }

    pub(crate) fn from(mut self, peer: &str) -> Self {
        self.conn.peer = addr(peer);
        self
    }

    pub(crate) fn next_xid(&self) -> u32 {
        let xid = self.xid.get().wrapping_add(1);
        self.xid.set(xid);
        xid
    }

    /// An encoded call record.
    pub(crate) fn record(&self, xid: u32, prog: u32, vers: u32, proc: u32, args: &[u8]) -> Vec<u8> {
        let mut cred_buf = Vec::new();
        let cred = if self.anonymous {
            OpaqueAuth::NONE
        } else {
            AuthSysParms::new(7, b"testhost", self.uid, self.gid, &self.gids)
                .unwrap_or_else(|e| panic!("{e}"))
                .to_opaque_auth(&mut cred_buf)
        };
        let msg = RpcMessage::call(xid, CallHeader::new(prog, vers, proc, cred, OpaqueAuth::NONE));
        let mut w = msg.header_writer(args.len());
        w.put_raw(args);
        w.into_vec()
    }

    pub(crate) fn send(&self, record: &[u8]) -> Option<Vec<u8>> {
        self.server.handle(record, &self.conn).map(|r| r.to_vec())
    }

    /// A call of any program; the reply must exist.
    pub(crate) fn call_raw(&self, prog: u32, vers: u32, proc: u32, args: &[u8]) -> Vec<u8> {
        let record = self.record(self.next_xid(), prog, vers, proc, args);
        self.send(&record).unwrap_or_else(|| panic!("no reply to program {prog} v{vers} proc {proc}"))
    }

    /// An NFSv3 call; returns the whole reply.
    pub(crate) fn nfs(&self, call: &Nfs3Call<'_>) -> Vec<u8> {
        self.call_raw(NFS_PROGRAM, NFS_V3, call.procedure(), &encode(call))
    }

    /// The status of an NFSv3 call's result.
    pub(crate) fn status(&self, call: &Nfs3Call<'_>) -> NfsStat3 {
        nfs_reply(call.proc(), &self.nfs(call)).status()
    }
}

pub(crate) fn encode<T: XdrEncode>(value: &T) -> Vec<u8> {
    let mut w = XdrWriter::new();
    value.encode(&mut w);
    w.to_vec()
}

/// The reply body of an encoded reply.
pub(crate) fn reply_body(reply: &[u8]) -> ReplyBody<'_> {
    let (msg, _) = RpcMessage::decode(reply).unwrap_or_else(|e| panic!("reply does not decode: {e}"));
    *msg.as_reply().unwrap_or_else(|| panic!("not a reply: {msg:?}"))
}

/// The accept status of an accepted reply.
pub(crate) fn accept_stat(reply: &[u8]) -> AcceptStat {
    match reply_body(reply) {
        ReplyBody::Accepted(a) => a.stat,
        denied => panic!("denied: {denied:?}"),
    }
}

/// The results of an accepted, successful reply.
pub(crate) fn results(reply: &[u8]) -> &[u8] {
    let (msg, rest) = RpcMessage::decode(reply).unwrap_or_else(|e| panic!("reply does not decode: {e}"));
    assert!(msg.as_reply().is_some_and(|r| r.has_results()), "not a successful reply: {msg:?}");
    rest
}

pub(crate) fn nfs_reply(proc: Nfs3Proc, reply: &[u8]) -> Nfs3Reply<'_> {
    Nfs3Reply::decode(proc as u32, results(reply))
        .unwrap_or_else(|e| panic!("{} result does not decode: {e}", proc.name()))
}

pub(crate) fn getattr(c: &Client<'_>, fh: FileHandle3) -> Result<Fattr3, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Getattr(GetattrArgs { object: fh }));
    let res = expect_reply!(nfs_reply(Nfs3Proc::Getattr, &reply), Getattr);
    res.into_result().map(|ok| ok.obj_attributes).map_err(|(e, _)| e)
}

pub(crate) fn lookup(c: &Client<'_>, dir: FileHandle3, name: &[u8]) -> Result<FileHandle3, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Lookup(LookupArgs { what: DirOpArgs3 { dir, name } }));
    expect_reply!(nfs_reply(Nfs3Proc::Lookup, &reply), Lookup).into_result().map(|ok| ok.object).map_err(|(e, _)| e)
}

pub(crate) fn sattr_mode(mode: u32) -> Sattr3 {
    Sattr3 { mode: Some(mode), ..Sattr3::default() }
}

fn created(reply: &[u8], proc: Nfs3Proc) -> Result<FileHandle3, NfsErr3> {
    let res = match nfs_reply(proc, reply) {
        Nfs3Reply::Create(r) | Nfs3Reply::Mkdir(r) | Nfs3Reply::Symlink(r) | Nfs3Reply::Mknod(r) => r,
        other => panic!("not a create result: {other:?}"),
    };
    match res {
        Nfs3Result::Ok(ok) => ok.obj.ok_or(NfsErr3::ServerFault),
        Nfs3Result::Fail(e, _) => Err(e),
    }
}

pub(crate) fn create(c: &Client<'_>, dir: FileHandle3, name: &[u8], mode: u32) -> Result<FileHandle3, NfsErr3> {
    let how = CreateHow3::Guarded(sattr_mode(mode));
    created(&c.nfs(&Nfs3Call::Create(CreateArgs { where_: DirOpArgs3 { dir, name }, how })), Nfs3Proc::Create)
}

pub(crate) fn mkdir(c: &Client<'_>, dir: FileHandle3, name: &[u8], mode: u32) -> Result<FileHandle3, NfsErr3> {
    let args = MkdirArgs { where_: DirOpArgs3 { dir, name }, attributes: sattr_mode(mode) };
    created(&c.nfs(&Nfs3Call::Mkdir(args)), Nfs3Proc::Mkdir)
}

pub(crate) fn symlink(c: &Client<'_>, dir: FileHandle3, name: &[u8], target: &[u8]) -> Result<FileHandle3, NfsErr3> {
    let symlink = SymlinkData3 { symlink_attributes: Sattr3::default(), symlink_data: target };
    created(&c.nfs(&Nfs3Call::Symlink(SymlinkArgs { where_: DirOpArgs3 { dir, name }, symlink })), Nfs3Proc::Symlink)
}

pub(crate) fn write(c: &Client<'_>, file: FileHandle3, offset: u64, data: &[u8]) -> Result<WriteResOk, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Write(WriteArgs::new(file, offset, StableHow::Unstable, data)));
    expect_reply!(nfs_reply(Nfs3Proc::Write, &reply), Write).into_result().map_err(|(e, _)| e)
}

pub(crate) fn read(c: &Client<'_>, file: FileHandle3, offset: u64, count: u32) -> Result<(Vec<u8>, bool), NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Read(ReadArgs { file, offset, count }));
    let res = expect_reply!(nfs_reply(Nfs3Proc::Read, &reply), Read);
    res.into_result().map(|ok| (ok.data.to_vec(), ok.eof)).map_err(|(e, _)| e)
}

pub(crate) fn remove(c: &Client<'_>, dir: FileHandle3, name: &[u8]) -> NfsStat3 {
    c.status(&Nfs3Call::Remove(RemoveArgs { object: DirOpArgs3 { dir, name } }))
}

/// The root handle of "/export".
pub(crate) fn root_of(server: &Server) -> FileHandle3 {
    server.root_handle("/export").unwrap_or_else(|| panic!("no /export"))
}

pub(crate) fn ok<T>(r: Result<T, NfsErr3>, what: &str) -> T {
    r.unwrap_or_else(|e| panic!("{what}: {}", e.name()))
}
