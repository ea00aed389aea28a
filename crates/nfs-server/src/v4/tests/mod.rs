//! End-to-end tests of NFSv4.1 and 4.2: COMPOUNDs built with nfs4-proto, sent as RPC records through
//! [`Server::handle`], their replies decoded with nfs4-proto against the operations sent. One file per
//! topic; this one holds the client the tests drive (a session on slot 0, as a careful client would).

mod attrs;
mod backchannel;
mod compound;
mod files;
mod io;
mod locks;
mod measure;
mod mount;
mod namespace;
mod ops;
mod replay;
mod restart;
mod shares;

use std::cell::Cell;
use std::sync::Arc;

use nfs4_proto::*;
use onc_rpc::{AcceptStat, AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use xdr::{XdrEncode, XdrWriter};

use crate::backend::mem::MemBackend;
use crate::backend::Backend;
use crate::tests::{addr, export};
use crate::{ConnectionId, ConnectionInfo, ExportConfig, Nfs4Config, Reply, Server, ServerConfig, TransportKind};

/// The largest READ/WRITE of the test servers.
pub(crate) const MAX_IO: u32 = 64 * 1024;

pub(crate) fn mem() -> Arc<dyn Backend> {
    Arc::new(MemBackend::new(64 << 20))
}

pub(crate) fn config(exports: Vec<ExportConfig>) -> ServerConfig {
    ServerConfig { exports, max_io_size: MAX_IO, drc_entries: 64, tcp_port: 2049, rdma_port: None }
}

/// A server of `exports` with the default NFSv4 settings.
pub(crate) fn server_with(exports: Vec<ExportConfig>) -> Server {
    Server::with_nfs4(config(exports), None, &Nfs4Config::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// A server with one RAM-disk export at "/export".
pub(crate) fn server() -> Server {
    server_with(vec![export("/export", mem())])
}

/// A scratch directory with `export/` (served by a `dir:` backend) and `state/` (the state directory),
/// removed on drop.
pub(crate) struct Dirs {
    base: std::path::PathBuf,
}

impl Dirs {
    pub(crate) fn new() -> Dirs {
        let base =
            std::env::temp_dir().join(format!("nfsbench-v4-{}-{:x}", std::process::id(), crate::handle::random_u64()));
        std::fs::create_dir_all(base.join("export")).expect("scratch export");
        Dirs { base }
    }

    /// A server of `export/` at "/export" with `state/` as its state directory.
    pub(crate) fn server(&self) -> Server {
        let dir = crate::backend::dir::DirBackend::new(&self.base.join("export")).expect("open export");
        let exports = vec![export("/export", Arc::new(dir))];
        Server::with_nfs4(config(exports), Some(&self.base.join("state")), &Nfs4Config::default())
            .unwrap_or_else(|e| panic!("server: {e}"))
    }
}

impl Drop for Dirs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.base);
    }
}

/// A decoded reply's owner: the reply and the operations it answers.
pub(crate) struct Answer {
    pub reply: Reply,
    bytes: Vec<u8>,
    ops: Vec<OpNum4>,
}

impl Answer {
    /// The RPC header's xid.
    pub(crate) fn xid(&self) -> u32 {
        RpcMessage::peek_xid(&self.bytes).unwrap_or_else(|| panic!("no xid"))
    }

    /// The COMPOUND4res body (after the RPC header).
    pub(crate) fn body(&self) -> &[u8] {
        let (msg, body) = RpcMessage::decode(&self.bytes).unwrap_or_else(|e| panic!("reply does not decode: {e}"));
        match msg.as_reply() {
            Some(ReplyBody::Accepted(a)) if a.stat == AcceptStat::Success => body,
            other => panic!("not a successful RPC reply: {other:?}"),
        }
    }

    /// The results, checked against the operations sent.
    pub(crate) fn res(&self) -> Compound4Res<'_> {
        Compound4Res::decode_reply(self.body(), &self.ops).unwrap_or_else(|e| panic!("COMPOUND4res: {e}"))
    }

    pub(crate) fn status(&self) -> NfsStat4 {
        self.res().status
    }

    /// Each result's status in order.
    pub(crate) fn statuses(&self) -> Vec<NfsStat4> {
        self.res().resarray.iter().map(NfsResOp::status).collect()
    }

    /// The accept status of the RPC reply.
    pub(crate) fn accept_stat(&self) -> AcceptStat {
        match RpcMessage::decode(&self.bytes).map(|(m, _)| m.as_reply().copied()) {
            Ok(Some(ReplyBody::Accepted(a))) => a.stat,
            other => panic!("not an accepted reply: {other:?}"),
        }
    }

    /// The handle GETFH answered.
    pub(crate) fn fh(&self) -> NfsFh4 {
        self.res()
            .resarray
            .iter()
            .find_map(|r| match r {
                NfsResOp::Getfh(Nfs4Result::Ok(ok)) => Some(ok.object),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no GETFH result: {:?}", self.statuses()))
    }

    /// The stateid OPEN answered.
    pub(crate) fn open_stateid(&self) -> Stateid4 {
        self.res()
            .resarray
            .iter()
            .find_map(|r| match r {
                NfsResOp::Open(Nfs4Result::Ok(ok)) => Some(ok.stateid),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no OPEN result: {:?}", self.statuses()))
    }

    /// The attributes GETATTR answered.
    pub(crate) fn attrs(&self) -> RawFattr4<'static> {
        self.res()
            .resarray
            .iter()
            .find_map(|r| match r {
                NfsResOp::Getattr(Nfs4Result::Ok(ok)) => Some(ok.obj_attributes.clone().into_owned()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no GETATTR result: {:?}", self.statuses()))
    }
}

/// A client of a test server: its identity, its connection, and its session's slot 0.
pub(crate) struct Client<'s> {
    pub server: &'s Server,
    pub conn: ConnectionInfo,
    pub uid: u32,
    pub gid: u32,
    pub minor: u32,
    pub owner: Vec<u8>,
    pub verifier: [u8; 8],
    xid: Cell<u32>,
    pub clientid: Cell<u64>,
    pub session: Cell<SessionId4>,
    /// The last sequence id used on slot 0.
    pub seq: Cell<u32>,
    pub cachethis: Cell<bool>,
}

impl<'s> Client<'s> {
    /// Root (uid 0) from 127.0.0.1:800, minor version 1, owner `name`.
    pub(crate) fn new(server: &'s Server, name: &str) -> Self {
        let conn = ConnectionInfo {
            id: ConnectionId::next(),
            peer: addr("127.0.0.1:800"),
            local: addr("127.0.0.1:2049"),
            transport: TransportKind::Tcp,
        };
        Client {
            server,
            conn,
            uid: 0,
            gid: 0,
            minor: 1,
            owner: name.as_bytes().to_vec(),
            verifier: [7; 8],
            xid: Cell::new(0x4000),
            clientid: Cell::new(0),
            session: Cell::new(SessionId4::default()),
            seq: Cell::new(0),
            cachethis: Cell::new(false),
        }
    }

    pub(crate) fn user(mut self, uid: u32, gid: u32) -> Self {
        self.uid = uid;
        self.gid = gid;
        self
    }

    pub(crate) fn minor(mut self, minor: u32) -> Self {
        self.minor = minor;
        self
    }

    pub(crate) fn next_xid(&self) -> u32 {
        self.xid.set(self.xid.get().wrapping_add(1));
        self.xid.get()
    }

    /// A COMPOUND call record of `body` under `xid`, AUTH_SYS.
    pub(crate) fn record(&self, xid: u32, proc: u32, body: &[u8]) -> Vec<u8> {
        let mut cred_buf = Vec::new();
        let cred = AuthSysParms::new(1, b"v4test", self.uid, self.gid, &[])
            .unwrap_or_else(|e| panic!("{e}"))
            .to_opaque_auth(&mut cred_buf);
        let msg = RpcMessage::call(xid, CallHeader::new(NFS4_PROGRAM, NFS_V4, proc, cred, OpaqueAuth::NONE));
        let mut w = msg.header_writer(body.len());
        w.put_raw(body);
        w.into_vec()
    }

    /// Sends an encoded COMPOUND body answering operations `ops`.
    pub(crate) fn send_body(&self, xid: u32, body: &[u8], ops: Vec<OpNum4>) -> Answer {
        let reply = self.server.handle(&self.record(xid, 1, body), &self.conn).unwrap_or_else(|| panic!("no reply"));
        Answer { bytes: reply.to_vec(), reply, ops }
    }

    /// A COMPOUND of exactly `ops`, minor version `self.minor`.
    pub(crate) fn compound(&self, ops: Vec<NfsArgOp<'_>>) -> Answer {
        let args = Compound4Args { tag: b"test", minorversion: self.minor, argarray: ops };
        self.send_body(self.next_xid(), &encode(&args), args.ops())
    }

    /// SEQUENCE on slot 0 with the sequence id after the last.
    pub(crate) fn sequence(&self) -> NfsArgOp<'static> {
        self.seq.set(self.seq.get().wrapping_add(1));
        self.sequence_with(self.seq.get())
    }

    pub(crate) fn sequence_with(&self, sequenceid: u32) -> NfsArgOp<'static> {
        NfsArgOp::Sequence(SequenceArgs {
            sessionid: self.session.get(),
            sequenceid,
            slotid: 0,
            highest_slotid: 0,
            cachethis: self.cachethis.get(),
        })
    }

    /// SEQUENCE then `ops`.
    pub(crate) fn seq(&self, ops: Vec<NfsArgOp<'_>>) -> Answer {
        let mut all = vec![self.sequence()];
        all.extend(ops);
        self.compound(all)
    }

    pub(crate) fn exchange_id(&self) -> Answer {
        self.compound(vec![NfsArgOp::ExchangeId(ExchangeIdArgs {
            clientowner: ClientOwner4 { verifier: Verifier4(self.verifier), ownerid: Opaque4(&self.owner) },
            flags: 0,
            state_protect: StateProtect4A::None,
            client_impl_id: None,
        })])
    }

    pub(crate) fn create_session(&self, sequence: u32, flags: u32) -> Answer {
        self.compound(vec![NfsArgOp::CreateSession(CreateSessionArgs {
            clientid: self.clientid.get(),
            sequence,
            flags,
            fore_chan_attrs: fore_attrs(),
            back_chan_attrs: ChannelAttrs4 {
                headerpadsize: 0,
                maxrequestsize: 4096,
                maxresponsesize: 4096,
                maxresponsesize_cached: 0,
                maxoperations: 2,
                maxrequests: 1,
                rdma_ird: None,
            },
            cb_program: 0x4000_0000,
            sec_parms: vec![CallbackSecParms4::None],
        })])
    }

    /// EXCHANGE_ID, CREATE_SESSION and RECLAIM_COMPLETE, as the Linux client mounts.
    pub(crate) fn mount(&self) -> &Self {
        self.mount_flags(0)
    }

    /// As [`Client::mount`], CREATE_SESSION with `flags`.
    pub(crate) fn mount_flags(&self, flags: u32) -> &Self {
        self.session_only(flags);
        let done = self.seq(vec![NfsArgOp::ReclaimComplete(ReclaimCompleteArgs { one_fs: false })]);
        assert_eq!(done.statuses(), [NfsStat4::Ok, NfsStat4::Ok], "RECLAIM_COMPLETE");
        self
    }

    /// EXCHANGE_ID and CREATE_SESSION only.
    pub(crate) fn session_only(&self, flags: u32) -> &Self {
        let exchange = self.exchange_id();
        let ok = match &exchange.res().resarray[..] {
            [NfsResOp::ExchangeId(Nfs4Result::Ok(ok))] => (ok.clientid, ok.sequenceid),
            other => panic!("EXCHANGE_ID: {other:?}"),
        };
        self.clientid.set(ok.0);
        let created = self.create_session(ok.1, flags);
        let session = match &created.res().resarray[..] {
            [NfsResOp::CreateSession(Nfs4Result::Ok(ok))] => ok.sessionid,
            other => panic!("CREATE_SESSION: {other:?}"),
        };
        self.session.set(session);
        self.seq.set(0);
        self
    }

    /// The handle of "/export", through the pseudo root.
    pub(crate) fn export_fh(&self) -> NfsFh4 {
        self.path_fh(&["export"])
    }

    /// The handle at `path` from the pseudo root.
    pub(crate) fn path_fh(&self, path: &[&str]) -> NfsFh4 {
        let mut ops = vec![NfsArgOp::Putrootfh];
        ops.extend(path.iter().map(|c| NfsArgOp::Lookup(LookupArgs { objname: Component4(c.as_bytes()) })));
        ops.push(NfsArgOp::Getfh);
        let answer = self.seq(ops);
        assert_eq!(answer.status(), NfsStat4::Ok, "lookup of {path:?}: {:?}", answer.statuses());
        answer.fh()
    }

    /// OPEN with `how` of `name` in `dir` for `access`/`deny`: the answer (PUTFH, OPEN, GETFH).
    pub(crate) fn open_how(&self, dir: NfsFh4, name: &str, how: OpenFlag4<'_>, access: u32, deny: u32) -> Answer {
        let owner = StateOwner4 { clientid: self.clientid.get(), owner: Opaque4(&self.owner) };
        self.seq(vec![
            NfsArgOp::Putfh(PutfhArgs { object: dir }),
            NfsArgOp::Open(OpenArgs {
                seqid: 0,
                share_access: access,
                share_deny: deny,
                owner,
                openhow: how,
                claim: OpenClaim4::Null(Component4(name.as_bytes())),
            }),
            NfsArgOp::Getfh,
        ])
    }

    /// Creates (UNCHECKED4, mode 0644) and opens `name` in `dir` for reading and writing.
    pub(crate) fn create(&self, dir: NfsFh4, name: &str) -> (Stateid4, NfsFh4) {
        let how = OpenFlag4::Create(CreateHow4::Unchecked(mode_attrs(0o644)));
        let answer = self.open_how(dir, name, how, OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE);
        assert_eq!(answer.status(), NfsStat4::Ok, "OPEN {name}: {:?}", answer.statuses());
        (answer.open_stateid(), answer.fh())
    }

    /// WRITE `data` at `offset` (FILE_SYNC) under `stateid`.
    pub(crate) fn write(&self, fh: NfsFh4, stateid: Stateid4, offset: u64, data: &[u8]) -> Answer {
        self.seq(vec![
            NfsArgOp::Putfh(PutfhArgs { object: fh }),
            NfsArgOp::Write(WriteArgs { stateid, offset, stable: StableHow4::FileSync, data }),
        ])
    }

    /// READ of `count` bytes at `offset` under `stateid`: the data and eof.
    pub(crate) fn read(
        &self,
        fh: NfsFh4,
        stateid: Stateid4,
        offset: u64,
        count: u32,
    ) -> Result<(Vec<u8>, bool), NfsStat4> {
        let answer = self
            .seq(vec![NfsArgOp::Putfh(PutfhArgs { object: fh }), NfsArgOp::Read(ReadArgs { stateid, offset, count })]);
        let res = answer.res();
        match res.resarray.last() {
            Some(NfsResOp::Read(Nfs4Result::Ok(ok))) => Ok((ok.data.to_vec(), ok.eof)),
            Some(other) => Err(other.status()),
            None => Err(res.status),
        }
    }

    /// CLOSE of `stateid` on `fh`.
    pub(crate) fn close(&self, fh: NfsFh4, stateid: Stateid4) -> Answer {
        self.seq(vec![
            NfsArgOp::Putfh(PutfhArgs { object: fh }),
            NfsArgOp::Close(CloseArgs { seqid: 0, open_stateid: stateid }),
        ])
    }
}

/// The fore channel the tests ask for.
pub(crate) fn fore_attrs() -> ChannelAttrs4 {
    ChannelAttrs4 {
        headerpadsize: 0,
        maxrequestsize: 1 << 20,
        maxresponsesize: 1 << 20,
        maxresponsesize_cached: 4096,
        maxoperations: 16,
        maxrequests: 8,
        rdma_ird: None,
    }
}

pub(crate) fn encode<T: XdrEncode>(value: &T) -> Vec<u8> {
    let mut w = XdrWriter::new();
    value.encode(&mut w);
    w.to_vec()
}

/// A `fattr4` setting the mode alone.
pub(crate) fn mode_attrs(mode: u32) -> RawFattr4<'static> {
    Fattr4 { mode: Some(mode), ..Fattr4::default() }.to_raw()
}

/// A GETATTR request of `bits`.
pub(crate) fn getattr(bits: &[u32]) -> NfsArgOp<'static> {
    NfsArgOp::Getattr(GetattrArgs { attr_request: Bitmap4::from_bits(bits.iter().copied()) })
}

/// LOOKUP of `name`.
pub(crate) fn lookup(name: &str) -> NfsArgOp<'_> {
    NfsArgOp::Lookup(LookupArgs { objname: Component4(name.as_bytes()) })
}

pub(crate) fn putfh(object: NfsFh4) -> NfsArgOp<'static> {
    NfsArgOp::Putfh(PutfhArgs { object })
}

/// `NfsStat4` of an error.
pub(crate) fn err(e: NfsErr4) -> NfsStat4 {
    e.status()
}

pub(crate) const OK: NfsStat4 = NfsStat4::Ok;
