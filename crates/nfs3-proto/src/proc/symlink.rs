//! SYMLINK (RFC 1813 §3.3.10): create a symbolic link.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::proc::create::{CreateResFail, CreateResOk};
use crate::sattr::Sattr3;
use crate::status::Nfs3Result;
use crate::types::{DirOpArgs3, UNBOUNDED};

/// `symlinkdata3`: attributes of the new link and its target path (`nfspath3`, borrowed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SymlinkData3<'a> {
    pub symlink_attributes: Sattr3,
    pub symlink_data: &'a [u8],
}

impl XdrEncode for SymlinkData3<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.symlink_attributes.encode(w);
        // RFC 8267 §4.1 lets RPC-over-RDMA place this path directly, so it is recorded as a payload.
        w.put_payload(self.symlink_data);
    }
}

impl<'a> XdrDecode<'a> for SymlinkData3<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(SymlinkData3 { symlink_attributes: Sattr3::decode(r)?, symlink_data: r.get_string("nfspath3", UNBOUNDED)? })
    }
}

xdr_struct! {
    /// `SYMLINK3args`. The RFC's field `where` is `where_`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct SymlinkArgs<'a> {
        pub where_: DirOpArgs3<'a>,
        pub symlink: SymlinkData3<'a>,
    }
}

/// `SYMLINK3resok`: the same fields as `CREATE3resok`.
pub type SymlinkResOk = CreateResOk;
/// `SYMLINK3resfail`: `dir_wcc`.
pub type SymlinkResFail = CreateResFail;
/// `SYMLINK3res`.
pub type SymlinkRes = Nfs3Result<SymlinkResOk, SymlinkResFail>;
