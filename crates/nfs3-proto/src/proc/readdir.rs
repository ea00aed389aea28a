//! READDIR (RFC 1813 §3.3.16): read entries from a directory. The entries are an XDR linked list
//! (`entry3 *nextentry`); names are borrowed from the reply.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::Nfs3Result;
use crate::types::{encode_list, Cookie3, CookieVerf3, Count3, FileHandle3, FileId3, PostOpAttr, UNBOUNDED};

xdr_struct! {
    /// `READDIR3args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct ReaddirArgs {
        pub dir: FileHandle3,
        pub cookie: Cookie3,
        pub cookieverf: CookieVerf3,
        pub count: Count3,
    }
}

/// `entry3` without its `nextentry` link, which [`DirList3`] encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Entry3<'a> {
    pub fileid: FileId3,
    pub name: &'a [u8],
    pub cookie: Cookie3,
}

impl XdrEncode for Entry3<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u64(self.fileid);
        w.put_opaque(self.name);
        w.put_u64(self.cookie);
    }
}

impl<'a> XdrDecode<'a> for Entry3<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(Entry3 { fileid: r.get_u64()?, name: r.get_string("filename3", UNBOUNDED)?, cookie: r.get_u64()? })
    }
}

/// `dirlist3`: the entries (the linked list flattened; each costs bytes, so the buffer bounds the count).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DirList3<'a> {
    pub entries: Vec<Entry3<'a>>,
    pub eof: bool,
}

impl XdrEncode for DirList3<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(&self.entries, w);
        w.put_bool(self.eof);
    }
}

impl<'a> XdrDecode<'a> for DirList3<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(DirList3 { entries: r.get_list(Entry3::decode)?, eof: r.get_bool()? })
    }
}

xdr_struct! {
    /// `READDIR3resok`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    pub struct ReaddirResOk<'a> {
        pub dir_attributes: PostOpAttr,
        pub cookieverf: CookieVerf3,
        pub reply: DirList3<'a>,
    }
}

xdr_struct! {
    /// `READDIR3resfail`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReaddirResFail {
        pub dir_attributes: PostOpAttr,
    }
}

/// `READDIR3res`.
pub type ReaddirRes<'a> = Nfs3Result<ReaddirResOk<'a>, ReaddirResFail>;
