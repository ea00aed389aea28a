//! The file calls of [`NfsClient`](crate::NfsClient) over an NFSv4 session: the same version-neutral
//! operations as NFSv3's, made of COMPOUNDs. Opens are the client's own ([`super::opens`]): one OPEN per
//! file shared by its users and one CLOSE by the last; I/O carries the open's stateid, or the anonymous
//! one on a file the client has not opened. READ, WRITE and COMMIT go out at once when a slot is free
//! (the two-phase `submit_*`), else as soon as one is.

use std::sync::Arc;

use bytes::Bytes;
use nfs4_proto::NfsErr4;

use super::compound::Compound;
use super::opens::OpenState;
use super::requests::entry_name;
use super::requests::io::{Commit, Getattr, Read, Setattr, Write};
use super::requests::names::{Lookup, Mkdir, Remove};
use super::requests::open::{Close, Open};
use super::session::{Mode, Session};
use super::started::Started;
use crate::error::ClientError;
use crate::pending::Pending;
use crate::types::{Attr, CreateHow, FileHandle, ReadReply, StableHow, WriteReply};

impl Session {
    /// Sends `req` now if a slot is free, and returns its future: a [`Started`] call whose first reply
    /// is read without the retry loop, or the loop waiting for a slot.
    fn start<R: Compound + Unpin>(self: &Arc<Self>, req: R) -> Pending<R::Output> {
        let proc = req.name();
        match self.try_send(&req, Mode::Normal) {
            Err(e) => Pending::refused(e, proc),
            Ok(Some(flight)) => Pending::session(proc, Box::pin(Started::new(req, flight))),
            Ok(None) => {
                let session = self.clone();
                Pending::session(proc, Box::pin(async move { session.run(&req, None, Mode::Normal).await }))
            }
        }
    }

    async fn call<R: Compound>(self: &Arc<Self>, req: R) -> Result<R::Output, ClientError> {
        self.run(&req, None, Mode::Normal).await
    }

    /// The open of `fh` given, or the client's open of it, if any.
    fn open_of(&self, fh: &FileHandle, given: Option<&Arc<OpenState>>) -> Option<Arc<OpenState>> {
        given.cloned().or_else(|| self.opens().get(fh))
    }

    pub(crate) async fn getattr(self: &Arc<Self>, fh: &FileHandle) -> Result<Attr, ClientError> {
        self.call(Getattr { fh: fh.clone() }).await
    }

    /// LOOKUP; `None` for NFS4ERR_NOENT.
    pub(crate) async fn lookup(
        self: &Arc<Self>,
        dir: &FileHandle,
        name: &str,
    ) -> Result<Option<(FileHandle, Attr)>, ClientError> {
        let name = entry_name("LOOKUP", name)?.to_owned();
        match self.call(Lookup { dir: dir.clone(), name }).await {
            Err(ClientError::Nfs4 { status: NfsErr4::NoEnt, .. }) => Ok(None),
            other => other.map(Some),
        }
    }

    pub(crate) async fn mkdir(
        self: &Arc<Self>,
        dir: &FileHandle,
        name: &str,
        mode: u32,
    ) -> Result<(FileHandle, Attr), ClientError> {
        let name = entry_name("MKDIR", name)?.to_owned();
        self.call(Mkdir { dir: dir.clone(), name, mode }).await
    }

    pub(crate) async fn remove(self: &Arc<Self>, dir: &FileHandle, name: &str) -> Result<(), ClientError> {
        let name = entry_name("REMOVE", name)?.to_owned();
        self.call(Remove { dir: dir.clone(), name }).await
    }

    /// OPEN of `name` in `dir` with share `access`, created as `create` says: the handle, its
    /// attributes and the client's open of it (an EXCLUSIVE4_1 create whose mode the server did not
    /// set gets it with SETATTR, as NFSv3's exclusive CREATE).
    pub(crate) async fn open(
        self: &Arc<Self>,
        dir: &FileHandle,
        name: &str,
        access: u32,
        create: Option<(CreateHow, u32)>,
    ) -> Result<(FileHandle, Attr, Arc<OpenState>), ClientError> {
        let name = entry_name("OPEN", name)?.to_owned();
        let (fh, mut attr, opened) = self.call(Open { dir: dir.clone(), name, access, create }).await?;
        let state = self.opens().opened(&fh, access, opened.stateid);
        self.return_delegation(&fh, opened.delegation);
        if let Some((CreateHow::Exclusive(_), mode)) = create.filter(|_| !opened.mode_set) {
            match self.call(Setattr { fh: fh.clone(), open: None, mode: Some(mode), size: None }).await {
                Ok(set) => attr = set,
                Err(e) => {
                    // The caller gets no open to close: close it here (its error is the SETATTR's).
                    let _ = self.close(&state).await;
                    return Err(e);
                }
            }
        }
        Ok((fh, attr, state))
    }

    /// One user of `open` is done; the last one's CLOSE goes to the server.
    pub(crate) async fn close(self: &Arc<Self>, open: &Arc<OpenState>) -> Result<(), ClientError> {
        let last = self.opens().release(&open.fh);
        match last {
            Some(state) => match self.call(Close { open: state }).await {
                // The server forgot the open already (it restarted and the reclaim failed): it is closed.
                Err(ClientError::Nfs4 {
                    status: NfsErr4::BadStateId | NfsErr4::StaleStateId | NfsErr4::Expired,
                    ..
                }) => Ok(()),
                other => other,
            },
            None => Ok(()),
        }
    }

    /// SETATTR of the size, with the stateid of the client's open of the file if there is one.
    pub(crate) async fn set_size(
        self: &Arc<Self>,
        fh: &FileHandle,
        open: Option<&Arc<OpenState>>,
        size: u64,
    ) -> Result<Attr, ClientError> {
        let open = self.open_of(fh, open);
        self.call(Setattr { fh: fh.clone(), open, mode: None, size: Some(size) }).await
    }

    pub(crate) fn submit_read(
        self: &Arc<Self>,
        fh: &FileHandle,
        open: Option<&Arc<OpenState>>,
        offset: u64,
        count: u32,
    ) -> Pending<ReadReply> {
        self.start(Read { fh: fh.clone(), open: self.open_of(fh, open), offset, count })
    }

    pub(crate) fn submit_write(
        self: &Arc<Self>,
        fh: &FileHandle,
        open: Option<&Arc<OpenState>>,
        offset: u64,
        data: Bytes,
        stable: StableHow,
    ) -> Pending<WriteReply> {
        self.start(Write { fh: fh.clone(), open: self.open_of(fh, open), offset, stable, data })
    }

    pub(crate) fn submit_commit(self: &Arc<Self>, fh: &FileHandle, offset: u64, count: u32) -> Pending<[u8; 8]> {
        self.start(Commit { fh: fh.clone(), offset, count })
    }
}
