//! EXCHANGE_ID (RFC 8881 §18.35): establish a client id and learn the server's owner and scope.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs4Result;
use crate::types::{ClientId4, ClientOwner4, NfsImplId4, Opaque4, SequenceId4, ServerOwner4};
use crate::types::{StateProtect4A, StateProtect4R};

/// RFC 8881 §18.35.1: `eia_flags` / `eir_flags` bits.
pub const EXCHGID4_FLAG_SUPP_MOVED_REFER: u32 = 0x0000_0001;
pub const EXCHGID4_FLAG_SUPP_MOVED_MIGR: u32 = 0x0000_0002;
pub const EXCHGID4_FLAG_BIND_PRINC_STATEID: u32 = 0x0000_0100;
pub const EXCHGID4_FLAG_USE_NON_PNFS: u32 = 0x0001_0000;
pub const EXCHGID4_FLAG_USE_PNFS_MDS: u32 = 0x0002_0000;
pub const EXCHGID4_FLAG_USE_PNFS_DS: u32 = 0x0004_0000;
pub const EXCHGID4_FLAG_MASK_PNFS: u32 = 0x0007_0000;
pub const EXCHGID4_FLAG_UPD_CONFIRMED_REC_A: u32 = 0x4000_0000;
pub const EXCHGID4_FLAG_CONFIRMED_R: u32 = 0x8000_0000;

/// `nfs_impl_id4<1>`: zero or one implementation id, which encodes exactly as XDR optional data.
pub type ImplId<'a> = Option<NfsImplId4<'a>>;

/// `EXCHANGE_ID4args`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExchangeIdArgs<'a> {
    pub clientowner: ClientOwner4<'a>,
    pub flags: u32,
    pub state_protect: StateProtect4A<'a>,
    pub client_impl_id: ImplId<'a>,
}

impl XdrEncode for ExchangeIdArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.clientowner.encode(w);
        w.put_u32(self.flags);
        self.state_protect.encode(w);
        self.client_impl_id.encode(w);
    }
}

impl<'a> XdrDecode<'a> for ExchangeIdArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ExchangeIdArgs {
            clientowner: ClientOwner4::decode(r)?,
            flags: r.get_u32()?,
            state_protect: StateProtect4A::decode(r)?,
            client_impl_id: ImplId::decode(r)?,
        })
    }
}

/// `EXCHANGE_ID4resok`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ExchangeIdResOk<'a> {
    pub clientid: ClientId4,
    pub sequenceid: SequenceId4,
    pub flags: u32,
    pub state_protect: StateProtect4R<'a>,
    pub server_owner: ServerOwner4<'a>,
    pub server_scope: Opaque4<'a>,
    pub server_impl_id: ImplId<'a>,
}

impl XdrEncode for ExchangeIdResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.clientid);
        w.put_u32(self.sequenceid);
        w.put_u32(self.flags);
        self.state_protect.encode(w);
        self.server_owner.encode(w);
        self.server_scope.encode(w);
        self.server_impl_id.encode(w);
    }
}

impl<'a> XdrDecode<'a> for ExchangeIdResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ExchangeIdResOk {
            clientid: r.get_u64()?,
            sequenceid: r.get_u32()?,
            flags: r.get_u32()?,
            state_protect: StateProtect4R::decode(r)?,
            server_owner: ServerOwner4::decode(r)?,
            server_scope: Opaque4::decode(r)?,
            server_impl_id: ImplId::decode(r)?,
        })
    }
}

/// `EXCHANGE_ID4res`.
pub type ExchangeIdRes<'a> = Nfs4Result<ExchangeIdResOk<'a>>;
