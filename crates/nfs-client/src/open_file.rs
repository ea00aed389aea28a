//! Open files in the version-neutral API: [`OpenFile`] (a handle, and over NFSv4 the client's open of
//! it with its stateid), [`Access`] (the share access an open asks), and [`FileRef`], what READ, WRITE
//! and COMMIT take — an open file, or a bare handle (NFSv3; over NFSv4 the client's open of it if it
//! has one, else the anonymous stateid of RFC 8881 §8.2.3).

use std::fmt;
use std::sync::Arc;

use crate::types::FileHandle;
use crate::v4::opens::{OpenState, SHARE_ACCESS_BOTH, SHARE_ACCESS_READ, SHARE_ACCESS_WRITE};

/// What an open is for (NFSv4 `share_access`, RFC 8881 §18.16.1; NFSv3 has no opens).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
    ReadWrite,
}

impl Access {
    pub(crate) fn share_access(self) -> u32 {
        match self {
            Access::Read => SHARE_ACCESS_READ,
            Access::Write => SHARE_ACCESS_WRITE,
            Access::ReadWrite => SHARE_ACCESS_BOTH,
        }
    }
}

/// A file opened with [`NfsClient::open`](crate::NfsClient::open). Cheap to clone; the clones share
/// the one open, closed with [`NfsClient::close`](crate::NfsClient::close) once for every `open`.
#[derive(Clone)]
pub struct OpenFile {
    pub(crate) fh: FileHandle,
    /// The NFSv4 open (`None` over NFSv3).
    pub(crate) state: Option<Arc<OpenState>>,
}

impl OpenFile {
    /// The file's handle.
    pub fn handle(&self) -> &FileHandle {
        &self.fh
    }
}

impl fmt::Debug for OpenFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stateid = self.state.as_ref().map(|s| s.stateid());
        f.debug_struct("OpenFile").field("fh", &self.fh).field("stateid", &stateid).finish()
    }
}

/// The file a READ, WRITE or COMMIT is about: `&OpenFile` or `&FileHandle`.
#[derive(Debug, Clone, Copy)]
pub struct FileRef<'a> {
    pub(crate) fh: &'a FileHandle,
    pub(crate) state: Option<&'a Arc<OpenState>>,
}

impl<'a> From<&'a FileHandle> for FileRef<'a> {
    fn from(fh: &'a FileHandle) -> Self {
        FileRef { fh, state: None }
    }
}

impl<'a> From<&'a OpenFile> for FileRef<'a> {
    fn from(file: &'a OpenFile) -> Self {
        FileRef { fh: &file.fh, state: file.state.as_ref() }
    }
}
