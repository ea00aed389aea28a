//! The NFSv3 procedures (RFC 1813 §3.3) on [`NfsClient`]: each encodes its arguments after the RPC
//! header, hands the call to the transport and decodes the reply in [`Pending`]. READ, WRITE and
//! COMMIT also come in a two-phase form (`submit_*`) for load engines that time submission apart
//! from completion.

use bytes::Bytes;
use nfs3_proto::{
    CommitArgs, CreateArgs, CreateHow3, CreateVerf3, DirOpArgs3, FsinfoArgs, FsinfoResOk, GetattrArgs, LookupArgs,
    MkdirArgs, Nfs3Proc, ReadArgs, RemoveArgs, Sattr3, SetattrArgs, NFS_PROGRAM, NFS_V3,
};
use xdr::{XdrEncode, XdrWriter};

use crate::client::NfsClient;
use crate::decode;
use crate::error::ClientError;
use crate::pending::{Decoder, Pending};
use crate::transport::{reply_channel, BulkPayload, RpcCall};
use crate::types::{Attr, CreateHow, FileHandle, ReadReply, StableHow, WriteReply};

/// Argument bytes to reserve beyond the header: a 64-byte handle and a few words, or a short name.
const ARGS_CAPACITY: usize = 128;

/// A name for a directory entry: not empty, no `/`, no NUL (RFC 1813 §3.3.3 leaves names to the
/// server, but these can never name one entry).
fn entry_name<'a>(proc: &'static str, name: &'a str) -> Result<&'a [u8], ClientError> {
    if name.is_empty() || name.contains(['/', '\0']) {
        let detail = format!("{name:?} is not a file name (empty, or contains '/' or NUL)");
        return Err(ClientError::InvalidArgument { proc, detail });
    }
    Ok(name.as_bytes())
}

fn mode_only(mode: u32) -> Sattr3 {
    Sattr3 { mode: Some(mode), ..Sattr3::default() }
}

impl NfsClient {
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
        let inner = &self.inner;
        let (xid, inline) = inner.encoder.encode(NFS_PROGRAM, NFS_V3, proc as u32, ARGS_CAPACITY, args);
        let payload = payload.map(|data| BulkPayload { offset: inline.len(), data });
        let (tx, rx) = reply_channel();
        let name = proc.name();
        inner.transport.submit(RpcCall { xid, proc: name, inline, payload, reply_payload }, tx);
        Pending::new(rx, name, decode, arg)
    }

    /// NULL (RFC 1813 §3.3.0): a round trip that does nothing.
    pub async fn null(&self) -> Result<(), ClientError> {
        self.call(Nfs3Proc::Null, |_| {}, None, 0, decode::null, 0).await
    }

    /// GETATTR (RFC 1813 §3.3.1).
    pub async fn getattr(&self, fh: &FileHandle) -> Result<Attr, ClientError> {
        let args = GetattrArgs { object: fh.0 };
        self.call(Nfs3Proc::Getattr, |w| args.encode(w), None, 0, decode::getattr, 0).await
    }

    /// FSINFO (RFC 1813 §3.3.19): the server's transfer sizes and properties.
    pub async fn fsinfo(&self, fh: &FileHandle) -> Result<FsinfoResOk, ClientError> {
        let args = FsinfoArgs { fsroot: fh.0 };
        self.call(Nfs3Proc::Fsinfo, |w| args.encode(w), None, 0, decode::fsinfo, 0).await
    }

    /// LOOKUP (RFC 1813 §3.3.3) of `name` in `dir`; `None` when the server answers NFS3ERR_NOENT.
    pub async fn lookup(&self, dir: &FileHandle, name: &str) -> Result<Option<(FileHandle, Attr)>, ClientError> {
        let args = LookupArgs { what: DirOpArgs3 { dir: dir.0, name: entry_name("LOOKUP", name)? } };
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

    /// Looks up a `/`-separated path relative to the export root (empty and `.` components are
    /// skipped; `""` is the root itself). A missing component is [`ClientError::NotFound`].
    pub async fn lookup_path(&self, path: &str) -> Result<(FileHandle, Attr), ClientError> {
        let mut fh = self.root().clone();
        let mut attr = None;
        let mut walked = String::new();
        for name in path.split('/').filter(|c| !c.is_empty() && *c != ".") {
            walked.push('/');
            walked.push_str(name);
            match self.lookup(&fh, name).await? {
                Some((next, next_attr)) => {
                    fh = next;
                    attr = Some(next_attr);
                }
                None => return Err(ClientError::NotFound { path: walked }),
            }
        }
        let attr = match attr {
            Some(attr) => attr,
            None => self.getattr(&fh).await?,
        };
        Ok((fh, attr))
    }

    /// CREATE (RFC 1813 §3.3.8) a regular file. For `Exclusive`, `mode` is set afterwards with
    /// SETATTR, as the RFC asks (the server may keep the verifier in the attributes).
    pub async fn create(
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
        let args = CreateArgs { where_: DirOpArgs3 { dir: dir.0, name: entry_name("CREATE", name)? }, how: how3 };
        let made = self.call(Nfs3Proc::Create, |w| args.encode(w), None, 0, decode::create, 0).await?;
        let (fh, attr) = self.complete_new_entry("CREATE", dir, name, made).await?;
        if matches!(how, CreateHow::Exclusive(_)) {
            let attr = self.setattr(&fh, mode_only(mode)).await?;
            return Ok((fh, attr));
        }
        Ok((fh, attr))
    }

    /// MKDIR (RFC 1813 §3.3.9).
    pub async fn mkdir(&self, dir: &FileHandle, name: &str, mode: u32) -> Result<(FileHandle, Attr), ClientError> {
        let args = MkdirArgs {
            where_: DirOpArgs3 { dir: dir.0, name: entry_name("MKDIR", name)? },
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
        let args = SetattrArgs { object: fh.0, new_attributes: attributes, guard: None };
        match self.call(Nfs3Proc::Setattr, |w| args.encode(w), None, 0, decode::setattr, 0).await? {
            Some(attr) => Ok(attr),
            None => self.getattr(fh).await,
        }
    }

    /// SETATTR of the size: truncates or extends the file.
    pub async fn set_size(&self, fh: &FileHandle, size: u64) -> Result<Attr, ClientError> {
        self.setattr(fh, Sattr3 { size: Some(size), ..Sattr3::default() }).await
    }

    /// REMOVE (RFC 1813 §3.3.12) of a file.
    pub async fn remove(&self, dir: &FileHandle, name: &str) -> Result<(), ClientError> {
        let args = RemoveArgs { object: DirOpArgs3 { dir: dir.0, name: entry_name("REMOVE", name)? } };
        self.call(Nfs3Proc::Remove, |w| args.encode(w), None, 0, decode::remove, 0).await
    }

    /// READ (RFC 1813 §3.3.6) of at most `count` bytes (`count <= rsize()`).
    pub async fn read(&self, fh: &FileHandle, offset: u64, count: u32) -> Result<ReadReply, ClientError> {
        self.submit_read(fh, offset, count).await
    }

    /// WRITE (RFC 1813 §3.3.7) of `data` (`len <= wsize()`), sent without copying it.
    pub async fn write(
        &self,
        fh: &FileHandle,
        offset: u64,
        data: Bytes,
        stable: StableHow,
    ) -> Result<WriteReply, ClientError> {
        self.submit_write(fh, offset, data, stable).await
    }

    /// COMMIT (RFC 1813 §3.3.21) of `count` bytes from `offset` (0 and 0: the whole file); returns
    /// the write verifier.
    pub async fn commit(&self, fh: &FileHandle, offset: u64, count: u32) -> Result<[u8; 8], ClientError> {
        self.submit_commit(fh, offset, count).await
    }

    /// Encodes a READ and hands it to a connection now; the returned future waits for the reply.
    /// A `count` over [`rsize`](Self::rsize) fails at once with `InvalidArgument`.
    pub fn submit_read(&self, fh: &FileHandle, offset: u64, count: u32) -> Pending<ReadReply> {
        let rsize = self.rsize();
        if count > rsize {
            let detail = format!("READ of {count} bytes exceeds rsize {rsize}");
            return Pending::failed(ClientError::InvalidArgument { proc: "READ", detail }, "READ", decode::read);
        }
        let args = ReadArgs { file: fh.0, offset, count };
        self.call(Nfs3Proc::Read, |w| args.encode(w), None, count, decode::read, count)
    }

    /// Encodes a WRITE (data borrowed, not copied) and hands it to a connection now. More than
    /// [`wsize`](Self::wsize) bytes fail at once with `InvalidArgument`.
    pub fn submit_write(&self, fh: &FileHandle, offset: u64, data: Bytes, stable: StableHow) -> Pending<WriteReply> {
        let wsize = self.wsize();
        let len = match u32::try_from(data.len()) {
            Ok(len) if len <= wsize => len,
            _ => {
                let detail = format!("WRITE of {} bytes exceeds wsize {wsize}", data.len());
                let err = ClientError::InvalidArgument { proc: "WRITE", detail };
                return Pending::failed(err, "WRITE", decode::write);
            }
        };
        let file = fh.0;
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

    /// Encodes a COMMIT and hands it to a connection now.
    pub fn submit_commit(&self, fh: &FileHandle, offset: u64, count: u32) -> Pending<[u8; 8]> {
        let args = CommitArgs { file: fh.0, offset, count };
        self.call(Nfs3Proc::Commit, |w| args.encode(w), None, 0, decode::commit, 0)
    }
}
