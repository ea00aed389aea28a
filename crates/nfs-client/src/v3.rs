//! NFSv3 (RFC 1813) under [`NfsClient`](crate::NfsClient): the mount (port mapper, MOUNT, the
//! connections, FSINFO) and the procedures (§3.3), each encoding its arguments after the RPC header,
//! handing the call to the transport and decoding the reply in [`Pending`].

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use mount_options::{MountSpec, NFS_RDMA_PORT};
use nfs3_proto::{
    CommitArgs, CreateArgs, CreateHow3, CreateVerf3, DirOpArgs3, FileHandle3, FsinfoArgs, FsinfoResOk, GetattrArgs,
    LookupArgs, MkdirArgs, Nfs3Proc, ReadArgs, RemoveArgs, Sattr3, SetattrArgs, MOUNT_PROGRAM, MOUNT_V3, NFS_PROGRAM,
    NFS_V3,
};
use xdr::{XdrEncode, XdrWriter};

use crate::decode;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::mount;
use crate::pending::{Decoder, Pending};
use crate::rdma::{RdmaConfig, RdmaTransport};
use crate::retransmit::RetransmitPolicy;
use crate::tcp::{TcpOptions, TcpTransport, REPLY_HEADROOM};
use crate::transport::{reply_channel, BulkPayload, RpcCall, RpcTransport};
use crate::types::{Attr, CreateHow, FileHandle, ReadReply, StableHow, WriteReply};

/// Argument bytes to reserve beyond the header: a 64-byte handle and a few words, or a short name.
const ARGS_CAPACITY: usize = 128;

/// An NFSv3 mount: its connections, its credential, and where MOUNT answered (for UMNT).
#[derive(Debug)]
pub(crate) struct V3 {
    pub(crate) transport: Box<dyn RpcTransport>,
    pub(crate) encoder: CallEncoder,
    mount_addr: SocketAddr,
    export: String,
    exchange_timeout: Duration,
}

/// Bound on each MOUNT / port mapper exchange: `timeo`, within 1 s ..= 60 s.
fn exchange_timeout(timeo: Duration) -> Duration {
    timeo.clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// A port given in the options (0 means "ask the port mapper", as with mount.nfs), or the port mapper's.
async fn port_of(given: Option<u16>, pmap: SocketAddr, prog: u32, vers: u32, t: Duration) -> Result<u16, ClientError> {
    match given {
        Some(port) if port != 0 => Ok(port),
        _ => mount::getport(pmap, prog, vers, t).await,
    }
}

/// The connections of a mount: TCP (through `link` when one is given), or RPC-over-RDMA over the
/// provider of `rdma`.
async fn connect_transport(
    spec: &MountSpec,
    addrs: &[SocketAddr],
    rdma: Option<&RdmaConfig>,
    link: Option<Arc<wan::Link>>,
) -> Result<Box<dyn RpcTransport>, ClientError> {
    let retransmit = RetransmitPolicy::of(spec);
    match rdma {
        None => {
            let options = TcpOptions { retransmit, max_record: spec.rsize as usize + REPLY_HEADROOM };
            Ok(Box::new(TcpTransport::connect_over(addrs, options, link).await?))
        }
        Some(config) => Ok(Box::new(RdmaTransport::connect(addrs, config, retransmit).await?)),
    }
}

/// A name for a directory entry: not empty, no `/`, no NUL (RFC 1813 §3.3.3 leaves names to the
/// server, but these can never name one entry).
fn entry_name<'a>(proc: &'static str, name: &'a str) -> Result<&'a [u8], ClientError> {
    if name.is_empty() || name.contains(['/', '\0']) {
        let detail = format!("{name:?} is not a file name (empty, or contains '/' or NUL)");
        return Err(ClientError::InvalidArgument { proc, detail });
    }
    Ok(name.as_bytes())
}

/// The NFSv3 form of a handle; longer than 64 bytes it came from elsewhere (an NFSv4 mount).
fn fh3(proc: &'static str, fh: &FileHandle) -> Result<FileHandle3, ClientError> {
    fh.as_nfs3().ok_or_else(|| ClientError::InvalidArgument {
        proc,
        detail: format!("a {}-byte file handle is not an NFSv3 one (at most 64 bytes)", fh.as_bytes().len()),
    })
}

fn mode_only(mode: u32) -> Sattr3 {
    Sattr3 { mode: Some(mode), ..Sattr3::default() }
}

impl V3 {
    /// Port mapper GETPORT for the ports not given, MOUNT MNT (both on short-lived TCP connections to
    /// the first address), then the connections; returns the mount and the root handle. FSINFO is the
    /// caller's, on the mount.
    pub(crate) async fn mount(
        spec: &MountSpec,
        rdma: Option<RdmaConfig>,
        link: Option<Arc<wan::Link>>,
    ) -> Result<(V3, FileHandle), ClientError> {
        let ips: Vec<IpAddr> = spec.connection_addrs()?;
        let Some(&first) = ips.first() else {
            return Err(ClientError::Unsupported("nconnect=0: a mount needs at least one connection".into()));
        };
        let t = exchange_timeout(spec.timeo);
        let pmap = SocketAddr::new(first, spec.portmapper_port);
        let nfs_port = match rdma {
            None => port_of(spec.port, pmap, NFS_PROGRAM, NFS_V3, t).await?,
            // The port mapper only knows TCP registrations here: rdma uses the port given, or 20049.
            Some(_) => spec.port.filter(|&p| p != 0).unwrap_or(NFS_RDMA_PORT),
        };
        let mount_port = port_of(spec.mountport, pmap, MOUNT_PROGRAM, MOUNT_V3, t).await?;
        let encoder = CallEncoder::new(spec.uid, spec.gid);
        let mount_addr = SocketAddr::new(first, mount_port);
        let root = mount::mnt(mount_addr, &spec.export, &encoder, t).await?;
        let addrs: Vec<SocketAddr> = ips.iter().map(|&ip| SocketAddr::new(ip, nfs_port)).collect();
        let transport = connect_transport(spec, &addrs, rdma.as_ref(), link).await?;
        tracing::debug!(export = %spec.export, ?addrs, "mounted over NFSv3");
        let v3 = V3 { transport, encoder, mount_addr, export: spec.export.clone(), exchange_timeout: t };
        Ok((v3, root))
    }

    /// MOUNT UMNT, then closes the connections; UMNT's error is returned, the connections close anyway.
    pub(crate) async fn unmount(&self) -> Result<(), ClientError> {
        let umnt = mount::umnt(self.mount_addr, &self.export, &self.encoder, self.exchange_timeout).await;
        self.transport.shutdown().await;
        umnt
    }

    /// Encodes and submits one NFSv3 call. `args` writes inline bytes only; `payload` goes after them.
    fn call<'a, T>(
        &self,
        proc: Nfs3Proc,
        args: impl FnOnce(&mut XdrWriter<'a>),
        payload: Option<Bytes>,
        reply_payload: u32,
        decode: Decoder<T>,
        arg: u32,
    ) -> Pending<T> {
        let (xid, inline) = self.encoder.encode(NFS_PROGRAM, NFS_V3, proc as u32, ARGS_CAPACITY, args);
        let payload = payload.map(|data| BulkPayload { offset: inline.len(), data });
        let (tx, rx) = reply_channel();
        let name = proc.name();
        self.transport.submit(RpcCall { xid, proc: name, inline, payload, reply_payload, reply_len: None }, tx);
        Pending::new(rx, name, decode, arg)
    }

    /// NULL (RFC 1813 §3.3.0).
    pub(crate) async fn null(&self) -> Result<(), ClientError> {
        self.call(Nfs3Proc::Null, |_| {}, None, 0, decode::null, 0).await
    }

    /// GETATTR (RFC 1813 §3.3.1).
    pub(crate) async fn getattr(&self, fh: &FileHandle) -> Result<Attr, ClientError> {
        let args = GetattrArgs { object: fh3("GETATTR", fh)? };
        self.call(Nfs3Proc::Getattr, |w| args.encode(w), None, 0, decode::getattr, 0).await
    }

    /// FSINFO (RFC 1813 §3.3.19).
    pub(crate) async fn fsinfo(&self, fh: &FileHandle) -> Result<FsinfoResOk, ClientError> {
        let args = FsinfoArgs { fsroot: fh3("FSINFO", fh)? };
        self.call(Nfs3Proc::Fsinfo, |w| args.encode(w), None, 0, decode::fsinfo, 0).await
    }

    /// LOOKUP (RFC 1813 §3.3.3); `None` for NFS3ERR_NOENT, the attributes fetched when the reply has none.
    pub(crate) async fn lookup(&self, dir: &FileHandle, name: &str) -> Result<Option<(FileHandle, Attr)>, ClientError> {
        let args = LookupArgs { what: DirOpArgs3 { dir: fh3("LOOKUP", dir)?, name: entry_name("LOOKUP", name)? } };
        let found = self.call(Nfs3Proc::Lookup, |w| args.encode(w), None, 0, decode::lookup, 0).await?;
        match found {
            None => Ok(None),
            Some((fh, Some(attr))) => Ok(Some((fh, attr))),
            Some((fh, None)) => {
                let attr = self.getattr(&fh).await?;
                Ok(Some((fh, attr)))
            }
        }
    }

    /// CREATE (RFC 1813 §3.3.8) of a regular file; for `Exclusive` the mode is set afterwards with
    /// SETATTR, as the RFC asks.
    pub(crate) async fn create(
        &self,
        dir: &FileHandle,
        name: &str,
        how: CreateHow,
        mode: u32,
    ) -> Result<(FileHandle, Attr), ClientError> {
        let how3 = match how {
            CreateHow::Unchecked => CreateHow3::Unchecked(mode_only(mode)),
            CreateHow::Guarded => CreateHow3::Guarded(mode_only(mode)),
            CreateHow::Exclusive(verf) => CreateHow3::Exclusive(CreateVerf3(verf)),
        };
        let where_ = DirOpArgs3 { dir: fh3("CREATE", dir)?, name: entry_name("CREATE", name)? };
        let args = CreateArgs { where_, how: how3 };
        let made = self.call(Nfs3Proc::Create, |w| args.encode(w), None, 0, decode::create, 0).await?;
        let (fh, attr) = self.complete_new_entry("CREATE", dir, name, made).await?;
        if matches!(how, CreateHow::Exclusive(_)) {
            let attr = self.setattr(&fh, mode_only(mode)).await?;
            return Ok((fh, attr));
        }
        Ok((fh, attr))
    }

    /// MKDIR (RFC 1813 §3.3.9).
    pub(crate) async fn mkdir(
        &self,
        dir: &FileHandle,
        name: &str,
        mode: u32,
    ) -> Result<(FileHandle, Attr), ClientError> {
        let args = MkdirArgs {
            where_: DirOpArgs3 { dir: fh3("MKDIR", dir)?, name: entry_name("MKDIR", name)? },
            attributes: mode_only(mode),
        };
        let made = self.call(Nfs3Proc::Mkdir, |w| args.encode(w), None, 0, decode::create, 0).await?;
        self.complete_new_entry("MKDIR", dir, name, made).await
    }

    /// The handle and attributes of a new entry; RFC 1813 §3.3.8 lets the server omit either, then
    /// LOOKUP / GETATTR fetch them.
    async fn complete_new_entry(
        &self,
        proc: &'static str,
        dir: &FileHandle,
        name: &str,
        made: (Option<FileHandle>, Option<Attr>),
    ) -> Result<(FileHandle, Attr), ClientError> {
        match made {
            (Some(fh), Some(attr)) => Ok((fh, attr)),
            (Some(fh), None) => {
                let attr = self.getattr(&fh).await?;
                Ok((fh, attr))
            }
            (None, _) => self.lookup(dir, name).await?.ok_or_else(|| {
                ClientError::protocol(proc, format!("{name:?} created without a handle, and LOOKUP does not find it"))
            }),
        }
    }

    /// SETATTR (RFC 1813 §3.3.2), unguarded; returns the attributes after.
    async fn setattr(&self, fh: &FileHandle, attributes: Sattr3) -> Result<Attr, ClientError> {
        let args = SetattrArgs { object: fh3("SETATTR", fh)?, new_attributes: attributes, guard: None };
        match self.call(Nfs3Proc::Setattr, |w| args.encode(w), None, 0, decode::setattr, 0).await? {
            Some(attr) => Ok(attr),
            None => self.getattr(fh).await,
        }
    }

    /// SETATTR of the size.
    pub(crate) async fn set_size(&self, fh: &FileHandle, size: u64) -> Result<Attr, ClientError> {
        self.setattr(fh, Sattr3 { size: Some(size), ..Sattr3::default() }).await
    }

    /// REMOVE (RFC 1813 §3.3.12).
    pub(crate) async fn remove(&self, dir: &FileHandle, name: &str) -> Result<(), ClientError> {
        let args = RemoveArgs { object: DirOpArgs3 { dir: fh3("REMOVE", dir)?, name: entry_name("REMOVE", name)? } };
        self.call(Nfs3Proc::Remove, |w| args.encode(w), None, 0, decode::remove, 0).await
    }

    /// READ (RFC 1813 §3.3.6), handed to a connection now (`count` already checked against rsize).
    pub(crate) fn submit_read(&self, fh: &FileHandle, offset: u64, count: u32) -> Pending<ReadReply> {
        let file = match fh3("READ", fh) {
            Ok(file) => file,
            Err(e) => return Pending::failed(e, "READ", decode::read),
        };
        let args = ReadArgs { file, offset, count };
        self.call(Nfs3Proc::Read, |w| args.encode(w), None, count, decode::read, count)
    }

    /// WRITE (RFC 1813 §3.3.7) of `data` (length checked against wsize), handed to a connection now.
    pub(crate) fn submit_write(
        &self,
        fh: &FileHandle,
        offset: u64,
        data: Bytes,
        stable: StableHow,
    ) -> Pending<WriteReply> {
        let file = match fh3("WRITE", fh) {
            Ok(file) => file,
            Err(e) => return Pending::failed(e, "WRITE", decode::write),
        };
        let len = data.len() as u32;
        let stable = stable.to_nfs3();
        // WRITE3args (RFC 1813 §3.3.7) up to the data's length word; the data follows as the payload.
        let args = move |w: &mut XdrWriter<'_>| {
            w.put_opaque(file.as_bytes());
            w.put_u64(offset);
            w.put_u32(len);
            w.put_u32(stable.as_u32());
            w.put_u32(len);
        };
        self.call(Nfs3Proc::Write, args, Some(data), 0, decode::write, len)
    }

    /// COMMIT (RFC 1813 §3.3.21), handed to a connection now.
    pub(crate) fn submit_commit(&self, fh: &FileHandle, offset: u64, count: u32) -> Pending<[u8; 8]> {
        let file = match fh3("COMMIT", fh) {
            Ok(file) => file,
            Err(e) => return Pending::failed(e, "COMMIT", decode::commit),
        };
        let args = CommitArgs { file, offset, count };
        self.call(Nfs3Proc::Commit, |w| args.encode(w), None, 0, decode::commit, 0)
    }
}
