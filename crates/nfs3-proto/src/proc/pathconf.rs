//! PATHCONF (RFC 1813 §3.3.20): retrieve POSIX information.

use crate::status::Nfs3Result;
use crate::types::{FileHandle3, PostOpAttr};

xdr_struct! {
    /// `PATHCONF3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct PathconfArgs {
        pub object: FileHandle3,
    }
}

xdr_struct! {
    /// `PATHCONF3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PathconfResOk {
        pub obj_attributes: PostOpAttr,
        pub linkmax: u32,
        pub name_max: u32,
        pub no_trunc: bool,
        pub chown_restricted: bool,
        pub case_insensitive: bool,
        pub case_preserving: bool,
    }
}

xdr_struct! {
    /// `PATHCONF3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PathconfResFail {
        pub obj_attributes: PostOpAttr,
    }
}

/// `PATHCONF3res`.
pub type PathconfRes = Nfs3Result<PathconfResOk, PathconfResFail>;
