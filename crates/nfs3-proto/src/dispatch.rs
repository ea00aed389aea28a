//! Whole-message NFSv3 bodies: [`Nfs3Call`] (arguments) and [`Nfs3Reply`] (results), one variant per
//! procedure, selected by the procedure number from the RPC header.

use crate::proc::access::{AccessArgs, AccessRes};
use crate::proc::commit::{CommitArgs, CommitRes};
use crate::proc::create::{CreateArgs, CreateRes};
use crate::proc::fsinfo::{FsinfoArgs, FsinfoRes};
use crate::proc::fsstat::{FsstatArgs, FsstatRes};
use crate::proc::getattr::{GetattrArgs, GetattrRes};
use crate::proc::link::{LinkArgs, LinkRes};
use crate::proc::lookup::{LookupArgs, LookupRes};
use crate::proc::mkdir::{MkdirArgs, MkdirRes};
use crate::proc::mknod::{MknodArgs, MknodRes};
use crate::proc::pathconf::{PathconfArgs, PathconfRes};
use crate::proc::read::{ReadArgs, ReadRes};
use crate::proc::readdir::{ReaddirArgs, ReaddirRes};
use crate::proc::readdirplus::{ReaddirplusArgs, ReaddirplusRes};
use crate::proc::readlink::{ReadlinkArgs, ReadlinkRes};
use crate::proc::remove::{RemoveArgs, RemoveRes};
use crate::proc::rename::{RenameArgs, RenameRes};
use crate::proc::rmdir::{RmdirArgs, RmdirRes};
use crate::proc::setattr::{SetattrArgs, SetattrRes};
use crate::proc::symlink::{SymlinkArgs, SymlinkRes};
use crate::proc::write::{WriteArgs, WriteRes};
use crate::proc::Nfs3Proc;

dispatch_enum! {
    /// The arguments of any NFSv3 call (RFC 1813 §3.3). Encoding writes the body only (no RPC header).
    pub enum Nfs3Call<'a> by Nfs3Proc {
        void { Null }
        Getattr(GetattrArgs),
        Setattr(SetattrArgs),
        Lookup(LookupArgs<'a>),
        Access(AccessArgs),
        Readlink(ReadlinkArgs),
        Read(ReadArgs),
        Write(WriteArgs<'a>),
        Create(CreateArgs<'a>),
        Mkdir(MkdirArgs<'a>),
        Symlink(SymlinkArgs<'a>),
        Mknod(MknodArgs<'a>),
        Remove(RemoveArgs<'a>),
        Rmdir(RmdirArgs<'a>),
        Rename(RenameArgs<'a>),
        Link(LinkArgs<'a>),
        Readdir(ReaddirArgs),
        Readdirplus(ReaddirplusArgs),
        Fsstat(FsstatArgs),
        Fsinfo(FsinfoArgs),
        Pathconf(PathconfArgs),
        Commit(CommitArgs),
    }
}

dispatch_enum! {
    /// The result of any NFSv3 call (RFC 1813 §3.3): status word then the `resok` or `resfail` arm.
    /// Decoding needs the procedure number of the call it answers.
    pub enum Nfs3Reply<'a> by Nfs3Proc {
        void { Null }
        Getattr(GetattrRes),
        Setattr(SetattrRes),
        Lookup(LookupRes),
        Access(AccessRes),
        Readlink(ReadlinkRes<'a>),
        Read(ReadRes<'a>),
        Write(WriteRes),
        Create(CreateRes),
        Mkdir(MkdirRes),
        Symlink(SymlinkRes),
        Mknod(MknodRes),
        Remove(RemoveRes),
        Rmdir(RmdirRes),
        Rename(RenameRes),
        Link(LinkRes),
        Readdir(ReaddirRes<'a>),
        Readdirplus(ReaddirplusRes<'a>),
        Fsstat(FsstatRes),
        Fsinfo(FsinfoRes),
        Pathconf(PathconfRes),
        Commit(CommitRes),
    }
}

impl Nfs3Reply<'_> {
    /// The `nfsstat3` of the result; NULL, which has no status, counts as `NFS3_OK`.
    pub fn status(&self) -> crate::NfsStat3 {
        match self {
            Nfs3Reply::Null => crate::NfsStat3::Ok,
            Nfs3Reply::Getattr(r) => r.status(),
            Nfs3Reply::Setattr(r) => r.status(),
            Nfs3Reply::Lookup(r) => r.status(),
            Nfs3Reply::Access(r) => r.status(),
            Nfs3Reply::Readlink(r) => r.status(),
            Nfs3Reply::Read(r) => r.status(),
            Nfs3Reply::Write(r) => r.status(),
            Nfs3Reply::Create(r) => r.status(),
            Nfs3Reply::Mkdir(r) => r.status(),
            Nfs3Reply::Symlink(r) => r.status(),
            Nfs3Reply::Mknod(r) => r.status(),
            Nfs3Reply::Remove(r) => r.status(),
            Nfs3Reply::Rmdir(r) => r.status(),
            Nfs3Reply::Rename(r) => r.status(),
            Nfs3Reply::Link(r) => r.status(),
            Nfs3Reply::Readdir(r) => r.status(),
            Nfs3Reply::Readdirplus(r) => r.status(),
            Nfs3Reply::Fsstat(r) => r.status(),
            Nfs3Reply::Fsinfo(r) => r.status(),
            Nfs3Reply::Pathconf(r) => r.status(),
            Nfs3Reply::Commit(r) => r.status(),
        }
    }
}
