//! SETATTR (RFC 1813 §3.3.2): set file attributes, optionally guarded by the object's ctime.

use crate::sattr::Sattr3;
use crate::status::Nfs3Result;
use crate::types::{FileHandle3, NfsTime3, WccData};

/// `sattrguard3`: `union switch (bool check) { case TRUE: nfstime3 obj_ctime; case FALSE: void; }`.
pub type SattrGuard3 = Option<NfsTime3>;

xdr_struct! {
    /// `SETATTR3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct SetattrArgs {
        pub object: FileHandle3,
        pub new_attributes: Sattr3,
        pub guard: SattrGuard3,
    }
}

xdr_struct! {
    /// `SETATTR3resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetattrResOk {
        pub obj_wcc: WccData,
    }
}

xdr_struct! {
    /// `SETATTR3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SetattrResFail {
        pub obj_wcc: WccData,
    }
}

/// `SETATTR3res`.
pub type SetattrRes = Nfs3Result<SetattrResOk, SetattrResFail>;
