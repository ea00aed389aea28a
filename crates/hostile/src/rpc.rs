//! A blocking raw RPC client: calls framed by hand (RFC 5531 §11 record marking, one fragment), any
//! RPC version and AUTH_SYS identity, replies matched by xid. It trusts nothing and assumes one call
//! at a time unless the caller pipelines with [`encode_call`] itself.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use nfs3_proto::mount::MountRes3;
use nfs3_proto::{
    CreateArgs, CreateHow3, DirOpArgs3, Fattr3, FileHandle3, GetattrArgs, Nfs3Proc, Nfs3Reply, NfsErr3, Sattr3,
    SetattrArgs, StableHow, WriteArgs, WriteResOk, MOUNT_PROGRAM, MOUNT_V3, NFS_PROGRAM, NFS_V3,
};
use onc_rpc::{
    frame_record, AcceptStat, AuthSysParms, CallHeader, OpaqueAuth, RecordDecoder, RecordLimits, ReplyBody, RpcMessage,
    MAX_FRAGMENT_LEN,
};
use xdr::{XdrEncode, XdrWriter};

/// MOUNT v3's MNT procedure (RFC 1813 Appendix I).
const MOUNTPROC3_MNT: u32 = 1;
/// How long a check waits for any one reply before calling the server unresponsive.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);

/// A server to attack: where it listens (NFS and MOUNT on one port, as `nfsbench serve`) and an export.
#[derive(Debug, Clone)]
pub struct Target {
    pub addr: SocketAddr,
    pub export: String,
}

/// Why a raw call did not give results.
#[derive(Debug, thiserror::Error)]
pub enum RpcFailure {
    #[error("socket: {0}")]
    Io(#[from] io::Error),
    #[error("the server closed the connection")]
    Closed,
    #[error("malformed reply: {0}")]
    Malformed(String),
    #[error("call not executed: {0}")]
    NotAccepted(String),
    #[error("NFS error {0:?}")]
    Nfs(NfsErr3),
    #[error("NFSv4 {step}: {outcome}")]
    Nfs4 { step: String, outcome: String },
    #[error("MOUNT refused: {0}")]
    Mount(String),
    #[error("RDMA: {0}")]
    Rdma(String),
    #[error("RDMA connection to {addr} refused{}", reason.as_deref().map(|r| format!(": {r}")).unwrap_or_default())]
    RdmaRefused { addr: String, reason: Option<String> },
}

/// What a call asks for: program, version, procedure, and the RPC version of its header (2 is the only
/// one there is, RFC 5531 §9; attacks send others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proc {
    pub rpcvers: u32,
    pub prog: u32,
    pub vers: u32,
    pub proc: u32,
}

impl Proc {
    /// An NFSv3 procedure.
    pub fn nfs3(proc: u32) -> Proc {
        Proc { rpcvers: 2, prog: NFS_PROGRAM, vers: NFS_V3, proc }
    }
}

/// A framed call record: marker, RPC header of `p`, AUTH_SYS `uid`/`gid`, then `args`.
pub fn encode_call(xid: u32, p: Proc, (uid, gid): (u32, u32), args: &[u8]) -> Vec<u8> {
    let Proc { rpcvers, prog, vers, proc } = p;
    let mut cred_buf = Vec::new();
    let cred = match AuthSysParms::new(1, b"hostile", uid, gid, &[gid]) {
        Ok(parms) => parms.to_opaque_auth(&mut cred_buf),
        Err(_) => OpaqueAuth::NONE,
    };
    let mut w =
        RpcMessage::call(xid, CallHeader::new(prog, vers, proc, cred, OpaqueAuth::NONE)).header_writer(args.len());
    w.put_raw(args);
    let mut record = w.to_vec();
    // rpc_msg: xid, msg_type, then rpcvers (RFC 5531 §9); the header encoder always writes 2.
    if let Some(word) = record.get_mut(8..12) {
        word.copy_from_slice(&rpcvers.to_be_bytes());
    }
    frame_record(&record, MAX_FRAGMENT_LEN as usize)
}

/// The XDR bytes of `value`.
pub fn xdr_bytes<T: XdrEncode>(value: &T) -> Vec<u8> {
    let mut w = XdrWriter::new();
    value.encode(&mut w);
    w.to_vec()
}

/// One connection, one call at a time.
#[derive(Debug)]
pub struct RawClient {
    stream: TcpStream,
    decoder: RecordDecoder,
    xid: u32,
    uid: u32,
    gid: u32,
}

impl RawClient {
    /// Connects as root (uid 0, gid 0).
    pub fn connect(addr: SocketAddr) -> Result<RawClient, RpcFailure> {
        let stream = TcpStream::connect_timeout(&addr, REPLY_TIMEOUT)?;
        stream.set_read_timeout(Some(REPLY_TIMEOUT))?;
        stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
        stream.set_nodelay(true)?;
        Ok(RawClient { stream, decoder: RecordDecoder::new(RecordLimits::default()), xid: 0x5eed_0000, uid: 0, gid: 0 })
    }

    /// Calls from now on carry this AUTH_SYS identity.
    pub fn identity(&mut self, uid: u32, gid: u32) -> &mut Self {
        (self.uid, self.gid) = (uid, gid);
        self
    }

    /// One call: the results of an accepted, successful reply.
    pub fn call(&mut self, prog: u32, vers: u32, proc: u32, args: &[u8]) -> Result<Vec<u8>, RpcFailure> {
        self.xid = self.xid.wrapping_add(1);
        let xid = self.xid;
        let p = Proc { rpcvers: 2, prog, vers, proc };
        self.stream.write_all(&encode_call(xid, p, (self.uid, self.gid), args))?;
        loop {
            let record = self.next_record()?;
            let (msg, results) = RpcMessage::decode(&record).map_err(|e| RpcFailure::Malformed(e.to_string()))?;
            if msg.xid != xid {
                continue; // A late reply to an earlier call.
            }
            return match msg.as_reply() {
                Some(ReplyBody::Accepted(a)) if a.stat == AcceptStat::Success => Ok(results.to_vec()),
                Some(other) => Err(RpcFailure::NotAccepted(format!("{other:?}"))),
                None => Err(RpcFailure::Malformed("a call where a reply was expected".into())),
            };
        }
    }

    fn next_record(&mut self) -> Result<Vec<u8>, RpcFailure> {
        let mut buf = [0u8; 16 << 10];
        loop {
            if let Some(record) = self.decoder.pop() {
                return Ok(record);
            }
            let n = self.stream.read(&mut buf)?;
            if n == 0 {
                return Err(RpcFailure::Closed);
            }
            self.decoder.push(&buf[..n]).map_err(|e| RpcFailure::Malformed(e.to_string()))?;
        }
    }

    /// NFSv3 NULL: the server answers at all.
    pub fn null(&mut self) -> Result<(), RpcFailure> {
        self.call(NFS_PROGRAM, NFS_V3, 0, &[]).map(drop)
    }

    /// MOUNT v3 MNT of `export`: its root handle.
    pub fn mount(&mut self, export: &str) -> Result<FileHandle3, RpcFailure> {
        let mut w = XdrWriter::new();
        w.put_opaque(export.as_bytes());
        let results = self.call(MOUNT_PROGRAM, MOUNT_V3, MOUNTPROC3_MNT, &w.to_vec())?;
        let mut r = xdr::XdrReader::new(&results);
        match <MountRes3 as xdr::XdrDecode>::decode(&mut r).map_err(|e| RpcFailure::Malformed(e.to_string()))? {
            MountRes3::Ok(ok) => Ok(ok.fhandle),
            MountRes3::Fail(err) => Err(RpcFailure::Mount(format!("{err:?}"))),
        }
    }

    /// An NFSv3 call's results, for [`decode`].
    fn nfs(&mut self, proc: Nfs3Proc, args: &[u8]) -> Result<Vec<u8>, RpcFailure> {
        self.call(NFS_PROGRAM, NFS_V3, proc as u32, args)
    }

    /// CREATE (UNCHECKED) of `name` in `dir` with `mode`.
    pub fn create(&mut self, dir: &FileHandle3, name: &str, mode: u32) -> Result<FileHandle3, RpcFailure> {
        let attrs = Sattr3 { mode: Some(mode), ..Sattr3::default() };
        let args =
            CreateArgs { where_: DirOpArgs3 { dir: *dir, name: name.as_bytes() }, how: CreateHow3::Unchecked(attrs) };
        let results = self.nfs(Nfs3Proc::Create, &xdr_bytes(&args))?;
        match decode(Nfs3Proc::Create, &results)? {
            Nfs3Reply::Create(nfs3_proto::Nfs3Result::Ok(ok)) => {
                ok.obj.ok_or_else(|| RpcFailure::Malformed("CREATE returned no handle".into()))
            }
            Nfs3Reply::Create(nfs3_proto::Nfs3Result::Fail(err, _)) => Err(RpcFailure::Nfs(err)),
            other => Err(RpcFailure::Malformed(format!("not a CREATE reply: {}", other.name()))),
        }
    }

    /// SETATTR of `attrs` on `fh`, unguarded.
    pub fn setattr(&mut self, fh: &FileHandle3, attrs: Sattr3) -> Result<(), RpcFailure> {
        let args = SetattrArgs { object: *fh, new_attributes: attrs, guard: None };
        let results = self.nfs(Nfs3Proc::Setattr, &xdr_bytes(&args))?;
        match decode(Nfs3Proc::Setattr, &results)? {
            Nfs3Reply::Setattr(nfs3_proto::Nfs3Result::Ok(_)) => Ok(()),
            Nfs3Reply::Setattr(nfs3_proto::Nfs3Result::Fail(err, _)) => Err(RpcFailure::Nfs(err)),
            other => Err(RpcFailure::Malformed(format!("not a SETATTR reply: {}", other.name()))),
        }
    }

    /// WRITE of `data` at `offset`, FILE_SYNC.
    pub fn write(&mut self, fh: &FileHandle3, offset: u64, data: &[u8]) -> Result<WriteResOk, RpcFailure> {
        let args = WriteArgs { file: *fh, offset, count: data.len() as u32, stable: StableHow::FileSync, data };
        let results = self.nfs(Nfs3Proc::Write, &xdr_bytes(&args))?;
        match decode(Nfs3Proc::Write, &results)? {
            Nfs3Reply::Write(nfs3_proto::Nfs3Result::Ok(ok)) => Ok(ok),
            Nfs3Reply::Write(nfs3_proto::Nfs3Result::Fail(err, _)) => Err(RpcFailure::Nfs(err)),
            other => Err(RpcFailure::Malformed(format!("not a WRITE reply: {}", other.name()))),
        }
    }

    /// GETATTR of `fh`.
    pub fn getattr(&mut self, fh: &FileHandle3) -> Result<Fattr3, RpcFailure> {
        let results = self.nfs(Nfs3Proc::Getattr, &xdr_bytes(&GetattrArgs { object: *fh }))?;
        match decode(Nfs3Proc::Getattr, &results)? {
            Nfs3Reply::Getattr(nfs3_proto::Nfs3Result::Ok(ok)) => Ok(ok.obj_attributes),
            Nfs3Reply::Getattr(nfs3_proto::Nfs3Result::Fail(err, _)) => Err(RpcFailure::Nfs(err)),
            other => Err(RpcFailure::Malformed(format!("not a GETATTR reply: {}", other.name()))),
        }
    }
}

/// The reply to `proc` in `results`.
fn decode(proc: Nfs3Proc, results: &[u8]) -> Result<Nfs3Reply<'_>, RpcFailure> {
    Nfs3Reply::decode(proc as u32, results).map_err(|e| RpcFailure::Malformed(e.to_string()))
}
