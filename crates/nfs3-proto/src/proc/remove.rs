//! REMOVE (RFC 1813 §3.3.12): remove a file.

use crate::status::Nfs3Result;
use crate::types::{DirOpArgs3, WccData};

xdr_struct! {
    /// `REMOVE3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct RemoveArgs<'a> {
        pub object: DirOpArgs3<'a>,
    }
}

xdr_struct! {
    /// `REMOVE3resok`; RMDIR returns the same structure.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RemoveResOk {
        pub dir_wcc: WccData,
    }
}

xdr_struct! {
    /// `REMOVE3resfail`; RMDIR returns the same structure.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RemoveResFail {
        pub dir_wcc: WccData,
    }
}

/// `REMOVE3res`.
pub type RemoveRes = Nfs3Result<RemoveResOk, RemoveResFail>;
