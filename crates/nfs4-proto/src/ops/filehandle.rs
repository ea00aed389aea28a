//! Current and saved file handle operations (RFC 8881 §16.2.3.1.1): PUTFH (§18.19), PUTPUBFH (§18.20),
//! PUTROOTFH (§18.21), GETFH (§18.8), SAVEFH (§18.28), RESTOREFH (§18.27), LOOKUPP (§18.14). Their
//! arguments are void except PUTFH's, so only PUTFH has an argument type.

use crate::status::{Nfs4Result, Void};
use crate::types::NfsFh4;

xdr_struct! {
    /// `PUTFH4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct PutfhArgs {
        pub object: NfsFh4,
    }
}

/// `PUTFH4res`: status only.
pub type PutfhRes = Nfs4Result<Void>;
/// `PUTPUBFH4res`.
pub type PutpubfhRes = Nfs4Result<Void>;
/// `PUTROOTFH4res`.
pub type PutrootfhRes = Nfs4Result<Void>;
/// `SAVEFH4res`.
pub type SavefhRes = Nfs4Result<Void>;
/// `RESTOREFH4res`.
pub type RestorefhRes = Nfs4Result<Void>;
/// `LOOKUPP4res`.
pub type LookuppRes = Nfs4Result<Void>;

xdr_struct! {
    /// `GETFH4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetfhResOk {
        pub object: NfsFh4,
    }
}

/// `GETFH4res`.
pub type GetfhRes = Nfs4Result<GetfhResOk>;
