//! The file calls of [`NfsClient`], the same for every version: each goes to NFSv3's procedure
//! (`v3.rs`) or to NFSv4's COMPOUNDs (`v4/api.rs`). READ, WRITE and COMMIT also come in a two-phase form
//! (`submit_*`) for load engines that time submission apart from completion; their size checks against
//! rsize/wsize are made here, once for both.

use bytes::Bytes;
use nfs3_proto::FsinfoResOk;

use crate::client::{NfsClient, Protocol};
use crate::error::ClientError;
use crate::open_file::{Access, FileRef, OpenFile};
use crate::pending::Pending;
use crate::types::{Attr, CreateHow, FileHandle, ReadReply, StableHow, WriteReply};

impl NfsClient {
    /// NULL (RFC 1813 §3.3.0, RFC 8881 §16.1): a round trip that does nothing; over NFSv4 a
    /// SEQUENCE-only COMPOUND, which also renews the lease.
    pub async fn null(&self) -> Result<(), ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.null().await,
            Protocol::V4(s) => s.run(&crate::v4::requests::io::Renew, None, crate::v4::session::Mode::Normal).await,
        }
    }

    /// GETATTR (RFC 1813 §3.3.1, RFC 8881 §18.7).
    pub async fn getattr(&self, fh: &FileHandle) -> Result<Attr, ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.getattr(fh).await,
            Protocol::V4(s) => s.getattr(fh).await,
        }
    }

    /// FSINFO (RFC 1813 §3.3.19): the server's transfer sizes and properties. NFSv3 only (NFSv4 reads
    /// them as attributes of the root at mount).
    pub async fn fsinfo(&self, fh: &FileHandle) -> Result<FsinfoResOk, ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.fsinfo(fh).await,
            Protocol::V4(_) => Err(ClientError::Unsupported("FSINFO is an NFSv3 procedure".into())),
        }
    }

    /// LOOKUP of `name` in `dir`; `None` when the server answers that it does not exist.
    pub async fn lookup(&self, dir: &FileHandle, name: &str) -> Result<Option<(FileHandle, Attr)>, ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.lookup(dir, name).await,
            Protocol::V4(s) => s.lookup(dir, name).await,
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

    /// Creates a regular file (NFSv3 CREATE, RFC 1813 §3.3.8; NFSv4 OPEN with the create mode, then
    /// CLOSE). For `Exclusive`, `mode` is set with SETATTR when the create could not carry it.
    pub async fn create(
        &self,
        dir: &FileHandle,
        name: &str,
        how: CreateHow,
        mode: u32,
    ) -> Result<(FileHandle, Attr), ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.create(dir, name, how, mode).await,
            Protocol::V4(s) => {
                let (fh, attr, open) = s.open(dir, name, Access::ReadWrite.share_access(), Some((how, mode))).await?;
                s.close(&open).await?;
                Ok((fh, attr))
            }
        }
    }

    /// Opens `name` in `dir` for `access`, creating it first as `create` says (`(how, mode)`; `None`: it
    /// must exist). NFSv3: LOOKUP, then CREATE when missing and asked. NFSv4: one OPEN (UNCHECKED4,
    /// GUARDED4 or EXCLUSIVE4_1; no delegation wanted), the client's one open of the file that every
    /// [`OpenFile`] clone shares. Each `open` is matched by one [`close`](Self::close).
    pub async fn open(
        &self,
        dir: &FileHandle,
        name: &str,
        access: Access,
        create: Option<(CreateHow, u32)>,
    ) -> Result<(OpenFile, Attr), ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => {
                let found = match (v3.lookup(dir, name).await?, create) {
                    (Some(found), None | Some((CreateHow::Unchecked, _))) => found,
                    (None, None) => {
                        return Err(ClientError::Nfs { proc: "LOOKUP", status: nfs3_proto::NfsErr3::NoEnt })
                    }
                    (_, Some((how, mode))) => v3.create(dir, name, how, mode).await?,
                };
                Ok((OpenFile { fh: found.0, state: None }, found.1))
            }
            Protocol::V4(s) => {
                let (fh, attr, state) = s.open(dir, name, access.share_access(), create).await?;
                Ok((OpenFile { fh, state: Some(state) }, attr))
            }
        }
    }

    /// Done with an open: over NFSv4 the last `close` of the file sends CLOSE; over NFSv3 nothing.
    pub async fn close(&self, file: &OpenFile) -> Result<(), ClientError> {
        match (&self.inner.protocol, &file.state) {
            (Protocol::V4(s), Some(state)) => s.close(state).await,
            _ => Ok(()),
        }
    }

    /// MKDIR (RFC 1813 §3.3.9; NFSv4 CREATE of NF4DIR, RFC 8881 §18.4).
    pub async fn mkdir(&self, dir: &FileHandle, name: &str, mode: u32) -> Result<(FileHandle, Attr), ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.mkdir(dir, name, mode).await,
            Protocol::V4(s) => s.mkdir(dir, name, mode).await,
        }
    }

    /// SETATTR of the size: truncates or extends the file.
    pub async fn set_size(&self, fh: &FileHandle, size: u64) -> Result<Attr, ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.set_size(fh, size).await,
            Protocol::V4(s) => s.set_size(fh, None, size).await,
        }
    }

    /// REMOVE (RFC 1813 §3.3.12, RFC 8881 §18.25) of a file.
    pub async fn remove(&self, dir: &FileHandle, name: &str) -> Result<(), ClientError> {
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.remove(dir, name).await,
            Protocol::V4(s) => s.remove(dir, name).await,
        }
    }

    /// READ of at most `count` bytes (`count <= rsize()`).
    pub async fn read<'a>(
        &self,
        file: impl Into<FileRef<'a>>,
        offset: u64,
        count: u32,
    ) -> Result<ReadReply, ClientError> {
        self.submit_read(file, offset, count).await
    }

    /// WRITE of `data` (`len <= wsize()`), sent without copying it.
    pub async fn write<'a>(
        &self,
        file: impl Into<FileRef<'a>>,
        offset: u64,
        data: Bytes,
        stable: StableHow,
    ) -> Result<WriteReply, ClientError> {
        self.submit_write(file, offset, data, stable).await
    }

    /// COMMIT of `count` bytes from `offset` (0 and 0: the whole file); returns the write verifier.
    pub async fn commit<'a>(
        &self,
        file: impl Into<FileRef<'a>>,
        offset: u64,
        count: u32,
    ) -> Result<[u8; 8], ClientError> {
        self.submit_commit(file, offset, count).await
    }

    /// Encodes a READ and hands it to a connection now; the returned future waits for the reply.
    /// A `count` over [`rsize`](Self::rsize) fails at once with `InvalidArgument`.
    pub fn submit_read<'a>(&self, file: impl Into<FileRef<'a>>, offset: u64, count: u32) -> Pending<ReadReply> {
        let file = file.into();
        let rsize = self.rsize();
        if count > rsize {
            let detail = format!("READ of {count} bytes exceeds rsize {rsize}");
            return Pending::refused(ClientError::InvalidArgument { proc: "READ", detail }, "READ");
        }
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.submit_read(file.fh, offset, count),
            Protocol::V4(s) => s.submit_read(file.fh, file.state, offset, count),
        }
    }

    /// Encodes a WRITE (data borrowed, not copied) and hands it to a connection now. More than
    /// [`wsize`](Self::wsize) bytes fail at once with `InvalidArgument`.
    pub fn submit_write<'a>(
        &self,
        file: impl Into<FileRef<'a>>,
        offset: u64,
        data: Bytes,
        stable: StableHow,
    ) -> Pending<WriteReply> {
        let file = file.into();
        let wsize = self.wsize();
        if u32::try_from(data.len()).map_or(true, |len| len > wsize) {
            let detail = format!("WRITE of {} bytes exceeds wsize {wsize}", data.len());
            return Pending::refused(ClientError::InvalidArgument { proc: "WRITE", detail }, "WRITE");
        }
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.submit_write(file.fh, offset, data, stable),
            Protocol::V4(s) => s.submit_write(file.fh, file.state, offset, data, stable),
        }
    }

    /// Encodes a COMMIT and hands it to a connection now.
    pub fn submit_commit<'a>(&self, file: impl Into<FileRef<'a>>, offset: u64, count: u32) -> Pending<[u8; 8]> {
        let file = file.into();
        match &self.inner.protocol {
            Protocol::V3(v3) => v3.submit_commit(file.fh, offset, count),
            Protocol::V4(s) => s.submit_commit(file.fh, offset, count),
        }
    }
}
