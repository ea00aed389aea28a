//! CREATE (RFC 1813 §3.3.8): create a regular file, unchecked, guarded or exclusive.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::sattr::Sattr3;
use crate::status::Nfs3Result;
use crate::types::{CreateVerf3, DirOpArgs3, PostOpAttr, PostOpFh3, WccData};

xdr_enum! {
    /// `createmode3` (RFC 1813 §3.3.8): the discriminant of `createhow3`.
    pub enum CreateMode3 as "createmode3" {
        Unchecked = 0 => "UNCHECKED",
        Guarded = 1 => "GUARDED",
        Exclusive = 2 => "EXCLUSIVE",
    }
}

/// `createhow3` (RFC 1813 §3.3.8): initial attributes for UNCHECKED and GUARDED, a verifier for EXCLUSIVE.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CreateHow3 {
    Unchecked(Sattr3),
    Guarded(Sattr3),
    Exclusive(CreateVerf3),
}

impl CreateHow3 {
    pub fn mode(&self) -> CreateMode3 {
        match self {
            CreateHow3::Unchecked(_) => CreateMode3::Unchecked,
            CreateHow3::Guarded(_) => CreateMode3::Guarded,
            CreateHow3::Exclusive(_) => CreateMode3::Exclusive,
        }
    }
}

impl XdrEncode for CreateHow3 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.mode().as_u32());
        match self {
            CreateHow3::Unchecked(a) | CreateHow3::Guarded(a) => a.encode(w),
            CreateHow3::Exclusive(v) => v.encode(w),
        }
    }
}

impl<'a> XdrDecode<'a> for CreateHow3 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match CreateMode3::decode(r)? {
            CreateMode3::Unchecked => CreateHow3::Unchecked(Sattr3::decode(r)?),
            CreateMode3::Guarded => CreateHow3::Guarded(Sattr3::decode(r)?),
            CreateMode3::Exclusive => CreateHow3::Exclusive(CreateVerf3::decode(r)?),
        })
    }
}

xdr_struct! {
    /// `CREATE3args`. The RFC's field `where` is `where_`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct CreateArgs<'a> {
        pub where_: DirOpArgs3<'a>,
        pub how: CreateHow3,
    }
}

xdr_struct! {
    /// `CREATE3resok`; MKDIR, SYMLINK and MKNOD return the same structure.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CreateResOk {
        pub obj: PostOpFh3,
        pub obj_attributes: PostOpAttr,
        pub dir_wcc: WccData,
    }
}

xdr_struct! {
    /// `CREATE3resfail`; MKDIR, SYMLINK and MKNOD return the same structure.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct CreateResFail {
        pub dir_wcc: WccData,
    }
}

/// `CREATE3res`.
pub type CreateRes = Nfs3Result<CreateResOk, CreateResFail>;
