//! FSINFO (RFC 1813 §3.3.19): get static file system information (transfer sizes, properties).

use crate::status::Nfs3Result;
use crate::types::{FileHandle3, NfsTime3, PostOpAttr, Size3};

/// RFC 1813 §3.3.19: the file system supports hard links.
pub const FSF3_LINK: u32 = 0x0001;
/// The file system supports symbolic links.
pub const FSF3_SYMLINK: u32 = 0x0002;
/// PATHCONF information is the same for every file and directory in the file system.
pub const FSF3_HOMOGENEOUS: u32 = 0x0008;
/// The server can set a file's times with SETATTR.
pub const FSF3_CANSETTIME: u32 = 0x0010;

xdr_struct! {
    /// `FSINFO3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct FsinfoArgs {
        pub fsroot: FileHandle3,
    }
}

xdr_struct! {
    /// `FSINFO3resok`: READ/WRITE/READDIR size limits and preferences; `properties` is a mask of `FSF3_*`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct FsinfoResOk {
        pub obj_attributes: PostOpAttr,
        pub rtmax: u32,
        pub rtpref: u32,
        pub rtmult: u32,
        pub wtmax: u32,
        pub wtpref: u32,
        pub wtmult: u32,
        pub dtpref: u32,
        pub maxfilesize: Size3,
        pub time_delta: NfsTime3,
        pub properties: u32,
    }
}

xdr_struct! {
    /// `FSINFO3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct FsinfoResFail {
        pub obj_attributes: PostOpAttr,
    }
}

/// `FSINFO3res`.
pub type FsinfoRes = Nfs3Result<FsinfoResOk, FsinfoResFail>;
