//! The operations of the forechannel (RFC 8881 §18, RFC 7862 §15, RFC 8276 §8.4), one module per
//! operation or small group of related ones, each with its `…Args` and `…Res` types in RFC terms, and
//! [`OpNum4`], the operation numbers.
//!
//! A result is an [`Nfs4Result`](crate::Nfs4Result) (status, then the body only on `NFS4_OK`) unless the
//! RFC gives an error arm a body: LOCK and LOCKT (`LOCK4DENIED` carries `LOCK4denied`), SETATTR (always
//! carries `attrsset`), LAYOUTGET (`NFS4ERR_LAYOUTTRYLATER` carries a boolean), GETDEVICEINFO
//! (`NFS4ERR_TOOSMALL` carries the size needed), COPY (`NFS4ERR_OFFLOAD_NO_REQS` carries
//! `copy_requirements4`) and SETCLIENTID (`NFS4ERR_CLID_INUSE` carries a `clientaddr4`). Those have their
//! [`Nfs4ResultOr`](crate::status::Nfs4ResultOr)s.

pub mod attrs;
pub mod copy;
pub mod delegation;
pub mod dir;
pub mod exchange_id;
pub mod filehandle;
pub mod io;
pub mod layout_stats;
pub mod lock;
pub mod open;
mod opnum;
pub mod pnfs;
pub mod readdir;
pub mod secinfo;
pub mod sequence;
pub mod session;
pub mod state;
pub mod v40;
pub mod v42;
pub mod xattr;

pub use opnum::{op_name, OpNum4};

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{NfsErr4, NfsStat4, OpResult};

/// `ILLEGAL4res` (RFC 8881 §18.52) and `CB_ILLEGAL4res` (§20.12): the status alone, NFS4ERR_OP_ILLEGAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IllegalRes {
    pub status: NfsStat4,
}

impl Default for IllegalRes {
    fn default() -> Self {
        IllegalRes { status: NfsStat4::OpIllegal }
    }
}

impl OpResult for IllegalRes {
    fn status(&self) -> NfsStat4 {
        self.status
    }

    fn from_error(err: NfsErr4) -> Self {
        IllegalRes { status: err.status() }
    }
}

impl XdrEncode for IllegalRes {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.status.encode(w);
    }
}

impl<'a> XdrDecode<'a> for IllegalRes {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(IllegalRes { status: NfsStat4::decode(r)? })
    }
}
