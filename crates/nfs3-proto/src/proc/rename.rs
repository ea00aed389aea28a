//! RENAME (RFC 1813 §3.3.14): rename a file or directory.

use crate::status::Nfs3Result;
use crate::types::{DirOpArgs3, WccData};

xdr_struct! {
    /// `RENAME3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct RenameArgs<'a> {
        pub from: DirOpArgs3<'a>,
        pub to: DirOpArgs3<'a>,
    }
}

xdr_struct! {
    /// `RENAME3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RenameResOk {
        pub fromdir_wcc: WccData,
        pub todir_wcc: WccData,
    }
}

xdr_struct! {
    /// `RENAME3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RenameResFail {
        pub fromdir_wcc: WccData,
        pub todir_wcc: WccData,
    }
}

/// `RENAME3res`.
pub type RenameRes = Nfs3Result<RenameResOk, RenameResFail>;
