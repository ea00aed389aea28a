//! LOOKUP (RFC 1813 §3.3.3): look up a file name in a directory.

use crate::status::Nfs3Result;
use crate::types::{DirOpArgs3, FileHandle3, PostOpAttr};

xdr_struct! {
    /// `LOOKUP3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LookupArgs<'a> {
        pub what: DirOpArgs3<'a>,
    }
}

xdr_struct! {
    /// `LOOKUP3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LookupResOk {
        pub object: FileHandle3,
        pub obj_attributes: PostOpAttr,
        pub dir_attributes: PostOpAttr,
    }
}

xdr_struct! {
    /// `LOOKUP3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LookupResFail {
        pub dir_attributes: PostOpAttr,
    }
}

/// `LOOKUP3res`.
pub type LookupRes = Nfs3Result<LookupResOk, LookupResFail>;
