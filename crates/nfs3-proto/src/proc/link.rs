//! LINK (RFC 1813 §3.3.15): create a hard link.

use crate::status::Nfs3Result;
use crate::types::{DirOpArgs3, FileHandle3, PostOpAttr, WccData};

xdr_struct! {
    /// `LINK3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LinkArgs<'a> {
        pub file: FileHandle3,
        pub link: DirOpArgs3<'a>,
    }
}

xdr_struct! {
    /// `LINK3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LinkResOk {
        pub file_attributes: PostOpAttr,
        pub linkdir_wcc: WccData,
    }
}

xdr_struct! {
    /// `LINK3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LinkResFail {
        pub file_attributes: PostOpAttr,
        pub linkdir_wcc: WccData,
    }
}

/// `LINK3res`.
pub type LinkRes = Nfs3Result<LinkResOk, LinkResFail>;
