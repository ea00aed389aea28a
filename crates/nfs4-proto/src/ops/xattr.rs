//! Extended attributes (RFC 8276 §8.4): GETXATTR, SETXATTR, LISTXATTRS, REMOVEXATTR. Names are
//! `component4`s; values are opaque and bounded by [`XATTR_VALUE_MAX`].

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs4Result;
use crate::types::{encode_array, ChangeInfo4, Component4, Count4, NfsCookie4};

/// The largest xattr value decoded: Linux's XATTR_SIZE_MAX (64 KiB).
pub const XATTR_VALUE_MAX: u32 = 1 << 16;
/// The most names one LISTXATTRS result decodes.
pub const LISTXATTRS_NAMES_MAX: u32 = 4096;

xdr_struct! {
    /// `GETXATTR4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct GetxattrArgs<'a> {
        pub name: Component4<'a>,
    }
}

/// `GETXATTR4resok`: the value, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GetxattrResOk<'a> {
    pub value: &'a [u8],
}

impl XdrEncode for GetxattrResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.value);
    }
}

impl<'a> XdrDecode<'a> for GetxattrResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(GetxattrResOk { value: r.get_opaque("xattrvalue4", XATTR_VALUE_MAX)? })
    }
}

/// `GETXATTR4res`.
pub type GetxattrRes<'a> = Nfs4Result<GetxattrResOk<'a>>;

xdr_enum! {
    /// `setxattr_option4` (RFC 8276 §8.4.2.1).
    pub enum SetxattrOption4 as "setxattr_option4" {
        Either = 0 => "SETXATTR4_EITHER",
        Create = 1 => "SETXATTR4_CREATE",
        Replace = 2 => "SETXATTR4_REPLACE",
    }
}

/// `SETXATTR4args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SetxattrArgs<'a> {
    pub option: SetxattrOption4,
    pub key: Component4<'a>,
    pub value: &'a [u8],
}

impl XdrEncode for SetxattrArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.option.encode(w);
        self.key.encode(w);
        w.put_opaque(self.value);
    }
}

impl<'a> XdrDecode<'a> for SetxattrArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(SetxattrArgs {
            option: SetxattrOption4::decode(r)?,
            key: Component4::decode(r)?,
            value: r.get_opaque("xattrvalue4", XATTR_VALUE_MAX)?,
        })
    }
}

xdr_struct! {
    /// `SETXATTR4resok` and `REMOVEXATTR4resok`: the file's change info.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct XattrChangeResOk {
        pub cinfo: ChangeInfo4,
    }
}

/// `SETXATTR4res`.
pub type SetxattrRes = Nfs4Result<XattrChangeResOk>;

xdr_struct! {
    /// `LISTXATTRS4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ListxattrsArgs {
        pub cookie: NfsCookie4,
        pub maxcount: Count4,
    }
}

/// `LISTXATTRS4resok`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ListxattrsResOk<'a> {
    pub cookie: NfsCookie4,
    pub names: Vec<Component4<'a>>,
    pub eof: bool,
}

impl XdrEncode for ListxattrsResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.cookie);
        encode_array(&self.names, w);
        w.put_bool(self.eof);
    }
}

impl<'a> XdrDecode<'a> for ListxattrsResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ListxattrsResOk {
            cookie: r.get_u64()?,
            names: r.get_vec("lxr_names", LISTXATTRS_NAMES_MAX, 4, Component4::decode)?,
            eof: r.get_bool()?,
        })
    }
}

/// `LISTXATTRS4res`.
pub type ListxattrsRes<'a> = Nfs4Result<ListxattrsResOk<'a>>;

xdr_struct! {
    /// `REMOVEXATTR4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RemovexattrArgs<'a> {
        pub name: Component4<'a>,
    }
}

/// `REMOVEXATTR4res`.
pub type RemovexattrRes = Nfs4Result<XattrChangeResOk>;
