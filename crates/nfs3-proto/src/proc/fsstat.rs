//! FSSTAT (RFC 1813 §3.3.18): get dynamic file system information.

use crate::status::Nfs3Result;
use crate::types::{FileHandle3, PostOpAttr, Size3};

xdr_struct! {
    /// `FSSTAT3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct FsstatArgs {
        pub fsroot: FileHandle3,
    }
}

xdr_struct! {
    /// `FSSTAT3resok`: total, free and available bytes and file slots, and how long (seconds) they stay valid.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct FsstatResOk {
        pub obj_attributes: PostOpAttr,
        pub tbytes: Size3,
        pub fbytes: Size3,
        pub abytes: Size3,
        pub tfiles: Size3,
        pub ffiles: Size3,
        pub afiles: Size3,
        pub invarsec: u32,
    }
}

xdr_struct! {
    /// `FSSTAT3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct FsstatResFail {
        pub obj_attributes: PostOpAttr,
    }
}

/// `FSSTAT3res`.
pub type FsstatRes = Nfs3Result<FsstatResOk, FsstatResFail>;
