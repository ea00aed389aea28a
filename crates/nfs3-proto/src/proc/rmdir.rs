//! RMDIR (RFC 1813 §3.3.13): remove a directory.

use crate::proc::remove::{RemoveResFail, RemoveResOk};
use crate::status::Nfs3Result;
use crate::types::DirOpArgs3;

xdr_struct! {
    /// `RMDIR3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct RmdirArgs<'a> {
        pub object: DirOpArgs3<'a>,
    }
}

/// `RMDIR3resok`: the same field as `REMOVE3resok` (`dir_wcc`).
pub type RmdirResOk = RemoveResOk;
/// `RMDIR3resfail`: `dir_wcc`.
pub type RmdirResFail = RemoveResFail;
/// `RMDIR3res`.
pub type RmdirRes = Nfs3Result<RmdirResOk, RmdirResFail>;
