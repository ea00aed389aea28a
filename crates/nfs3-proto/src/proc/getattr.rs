//! GETATTR (RFC 1813 §3.3.1): get file attributes.

use crate::status::{Nfs3Result, Void};
use crate::types::{Fattr3, FileHandle3};

xdr_struct! {
    /// `GETATTR3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct GetattrArgs {
        pub object: FileHandle3,
    }
}

xdr_struct! {
    /// `GETATTR3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct GetattrResOk {
        pub obj_attributes: Fattr3,
    }
}

/// GETATTR's failure arm is `void`.
pub type GetattrResFail = Void;

/// `GETATTR3res`.
pub type GetattrRes = Nfs3Result<GetattrResOk, GetattrResFail>;
