//! MKDIR (RFC 1813 §3.3.9): create a directory.

use crate::proc::create::{CreateResFail, CreateResOk};
use crate::sattr::Sattr3;
use crate::status::Nfs3Result;
use crate::types::DirOpArgs3;

xdr_struct! {
    /// `MKDIR3args`. The RFC's field `where` is `where_`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct MkdirArgs<'a> {
        pub where_: DirOpArgs3<'a>,
        pub attributes: Sattr3,
    }
}

/// `MKDIR3resok`: the same fields as `CREATE3resok` (`obj`, `obj_attributes`, `dir_wcc`).
pub type MkdirResOk = CreateResOk;
/// `MKDIR3resfail`: `dir_wcc`.
pub type MkdirResFail = CreateResFail;
/// `MKDIR3res`.
pub type MkdirRes = Nfs3Result<MkdirResOk, MkdirResFail>;
