//! READDIRPLUS (RFC 1813 §3.3.17): read entries with their attributes and handles. The entries are an XDR
//! linked list (`entryplus3 *nextentry`); names are borrowed from the reply.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs3Result;
use crate::types::{encode_list, Cookie3, CookieVerf3, Count3, FileHandle3, FileId3, PostOpAttr, PostOpFh3, UNBOUNDED};

xdr_struct! {
    /// `READDIRPLUS3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct ReaddirplusArgs {
        pub dir: FileHandle3,
        pub cookie: Cookie3,
        pub cookieverf: CookieVerf3,
        pub dircount: Count3,
        pub maxcount: Count3,
    }
}

/// `entryplus3` without its `nextentry` link, which [`DirListPlus3`] encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryPlus3<'a> {
    pub fileid: FileId3,
    pub name: &'a [u8],
    pub cookie: Cookie3,
    pub name_attributes: PostOpAttr,
    pub name_handle: PostOpFh3,
}

impl XdrEncode for EntryPlus3<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.fileid);
        w.put_opaque(self.name);
        w.put_u64(self.cookie);
        self.name_attributes.encode(w);
        self.name_handle.encode(w);
    }
}

impl<'a> XdrDecode<'a> for EntryPlus3<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(EntryPlus3 {
            fileid: r.get_u64()?,
            name: r.get_string("filename3", UNBOUNDED)?,
            cookie: r.get_u64()?,
            name_attributes: PostOpAttr::decode(r)?,
            name_handle: PostOpFh3::decode(r)?,
        })
    }
}

/// `dirlistplus3`: the entries (the linked list flattened) and the end-of-directory flag.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DirListPlus3<'a> {
    pub entries: Vec<EntryPlus3<'a>>,
    pub eof: bool,
}

impl XdrEncode for DirListPlus3<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(&self.entries, w);
        w.put_bool(self.eof);
    }
}

impl<'a> XdrDecode<'a> for DirListPlus3<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(DirListPlus3 { entries: r.get_list(EntryPlus3::decode)?, eof: r.get_bool()? })
    }
}

xdr_struct! {
    /// `READDIRPLUS3resok`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct ReaddirplusResOk<'a> {
        pub dir_attributes: PostOpAttr,
        pub cookieverf: CookieVerf3,
        pub reply: DirListPlus3<'a>,
    }
}

xdr_struct! {
    /// `READDIRPLUS3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReaddirplusResFail {
        pub dir_attributes: PostOpAttr,
    }
}

/// `READDIRPLUS3res`.
pub type ReaddirplusRes<'a> = Nfs3Result<ReaddirplusResOk<'a>, ReaddirplusResFail>;
