//! Name space operations: LOOKUP (RFC 8881 §18.13), CREATE (§18.4, the non-regular file types; NF4LNK's
//! link data is DDP-eligible, RFC 8267 §4.2, and so a payload), LINK (§18.9), REMOVE (§18.25), RENAME
//! (§18.26).

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::attr::RawFattr4;
use crate::status::{Nfs4Result, Void};
use crate::types::{Bitmap4, ChangeInfo4, Component4, NfsFtype4, SpecData4, LINKTEXT4_MAX};

xdr_struct! {
    /// `LOOKUP4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LookupArgs<'a> {
        pub objname: Component4<'a>,
    }
}

/// `LOOKUP4res`: status only.
pub type LookupRes = Nfs4Result<Void>;

/// `createtype4` (RFC 8881 §18.4.1): what CREATE makes. Regular files are made by OPEN; `Other` keeps the
/// union's `default: void` arm (NF4REG, NF4ATTRDIR, NF4NAMEDATTR), which a server answers NFS4ERR_BADTYPE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CreateType4<'a> {
    /// NF4LNK with its link text, borrowed on decode and a payload on encode.
    Link(&'a [u8]),
    Block(SpecData4),
    Char(SpecData4),
    Socket,
    Fifo,
    Dir,
    Other(NfsFtype4),
}

impl CreateType4<'_> {
    pub fn ftype(&self) -> NfsFtype4 {
        match self {
            CreateType4::Link(_) => NfsFtype4::Lnk,
            CreateType4::Block(_) => NfsFtype4::Blk,
            CreateType4::Char(_) => NfsFtype4::Chr,
            CreateType4::Socket => NfsFtype4::Sock,
            CreateType4::Fifo => NfsFtype4::Fifo,
            CreateType4::Dir => NfsFtype4::Dir,
            CreateType4::Other(t) => *t,
        }
    }
}

impl XdrEncode for CreateType4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.ftype().as_u32());
        match self {
            CreateType4::Link(data) => w.put_payload(data),
            CreateType4::Block(d) | CreateType4::Char(d) => d.encode(w),
            _ => {}
        }
    }
}

impl<'a> XdrDecode<'a> for CreateType4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match NfsFtype4::decode(r)? {
            NfsFtype4::Lnk => CreateType4::Link(r.get_opaque("linktext4", LINKTEXT4_MAX)?),
            NfsFtype4::Blk => CreateType4::Block(SpecData4::decode(r)?),
            NfsFtype4::Chr => CreateType4::Char(SpecData4::decode(r)?),
            NfsFtype4::Sock => CreateType4::Socket,
            NfsFtype4::Fifo => CreateType4::Fifo,
            NfsFtype4::Dir => CreateType4::Dir,
            other => CreateType4::Other(other),
        })
    }
}

xdr_struct! {
    /// `CREATE4args`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct CreateArgs<'a> {
        pub objtype: CreateType4<'a>,
        pub objname: Component4<'a>,
        pub createattrs: RawFattr4<'a>,
    }
}

xdr_struct! {
    /// `CREATE4resok`: the directory's change info and the attributes that were set.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CreateResOk {
        pub cinfo: ChangeInfo4,
        pub attrset: Bitmap4,
    }
}

/// `CREATE4res`.
pub type CreateRes = Nfs4Result<CreateResOk>;

xdr_struct! {
    /// `LINK4args`: link the saved file handle as `newname` in the current directory.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LinkArgs<'a> {
        pub newname: Component4<'a>,
    }
}

xdr_struct! {
    /// `LINK4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct LinkResOk {
        pub cinfo: ChangeInfo4,
    }
}

/// `LINK4res`.
pub type LinkRes = Nfs4Result<LinkResOk>;

xdr_struct! {
    /// `REMOVE4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RemoveArgs<'a> {
        pub target: Component4<'a>,
    }
}

xdr_struct! {
    /// `REMOVE4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RemoveResOk {
        pub cinfo: ChangeInfo4,
    }
}

/// `REMOVE4res`.
pub type RemoveRes = Nfs4Result<RemoveResOk>;

xdr_struct! {
    /// `RENAME4args`: from the saved directory to the current one.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RenameArgs<'a> {
        pub oldname: Component4<'a>,
        pub newname: Component4<'a>,
    }
}

xdr_struct! {
    /// `RENAME4resok`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RenameResOk {
        pub source_cinfo: ChangeInfo4,
        pub target_cinfo: ChangeInfo4,
    }
}

/// `RENAME4res`.
pub type RenameRes = Nfs4Result<RenameResOk>;
