//! READLINK (RFC 1813 §3.3.5): read the data of a symbolic link.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs3Result;
use crate::types::{FileHandle3, PostOpAttr, UNBOUNDED};

xdr_struct! {
    /// `READLINK3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct ReadlinkArgs {
        pub symlink: FileHandle3,
    }
}

/// `READLINK3resok`: `data` is the link's `nfspath3`, borrowed from the reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadlinkResOk<'a> {
    pub symlink_attributes: PostOpAttr,
    pub data: &'a [u8],
}

impl XdrEncode for ReadlinkResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.symlink_attributes.encode(w);
        // RFC 8267 §4.1 lets RPC-over-RDMA place this path directly, so it is recorded as a payload.
        w.put_payload(self.data);
    }
}

impl<'a> XdrDecode<'a> for ReadlinkResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ReadlinkResOk { symlink_attributes: PostOpAttr::decode(r)?, data: r.get_string("nfspath3", UNBOUNDED)? })
    }
}

xdr_struct! {
    /// `READLINK3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReadlinkResFail {
        pub symlink_attributes: PostOpAttr,
    }
}

/// `READLINK3res`.
pub type ReadlinkRes<'a> = Nfs3Result<ReadlinkResOk<'a>, ReadlinkResFail>;
