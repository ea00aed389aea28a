//! COMMIT (RFC 1813 §3.3.21): commit cached data on a server to stable storage.

use crate::status::Nfs3Result;
use crate::types::{Count3, FileHandle3, Offset3, WccData, WriteVerf3};

xdr_struct! {
    /// `COMMIT3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct CommitArgs {
        pub file: FileHandle3,
        pub offset: Offset3,
        pub count: Count3,
    }
}

xdr_struct! {
    /// `COMMIT3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CommitResOk {
        pub file_wcc: WccData,
        pub verf: WriteVerf3,
    }
}

xdr_struct! {
    /// `COMMIT3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CommitResFail {
        pub file_wcc: WccData,
    }
}

/// `COMMIT3res`.
pub type CommitRes = Nfs3Result<CommitResOk, CommitResFail>;
