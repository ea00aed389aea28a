//! ACCESS (RFC 1813 §3.3.4): check access permission.

use crate::status::Nfs3Result;
use crate::types::{FileHandle3, PostOpAttr};

/// RFC 1813 §3.3.4: read data from file or read a directory.
pub const ACCESS3_READ: u32 = 0x0001;
/// Look up a name in a directory (no meaning for non-directory objects).
pub const ACCESS3_LOOKUP: u32 = 0x0002;
/// Rewrite existing file data or modify existing directory entries.
pub const ACCESS3_MODIFY: u32 = 0x0004;
/// Write new data or add directory entries.
pub const ACCESS3_EXTEND: u32 = 0x0008;
/// Delete an existing directory entry.
pub const ACCESS3_DELETE: u32 = 0x0010;
/// Execute file (no meaning for a directory).
pub const ACCESS3_EXECUTE: u32 = 0x0020;

xdr_struct! {
    /// `ACCESS3args`: `access` is a bit mask of `ACCESS3_*`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct AccessArgs {
        pub object: FileHandle3,
        pub access: u32,
    }
}

xdr_struct! {
    /// `ACCESS3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct AccessResOk {
        pub obj_attributes: PostOpAttr,
        pub access: u32,
    }
}

xdr_struct! {
    /// `ACCESS3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct AccessResFail {
        pub obj_attributes: PostOpAttr,
    }
}

/// `ACCESS3res`.
pub type AccessRes = Nfs3Result<AccessResOk, AccessResFail>;
