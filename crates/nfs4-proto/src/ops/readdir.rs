//! READDIR (RFC 8881 §18.23) and READLINK (§18.24). Directory entries are an XDR linked list whose
//! names and attribute values are borrowed; READLINK's link text is DDP-eligible (RFC 8267 §4.2) and so
//! a payload on encode.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::attr::RawFattr4;
use crate::status::Nfs4Result;
use crate::types::{Bitmap4, Component4, Count4, NfsCookie4, Verifier4, LINKTEXT4_MAX};

xdr_struct! {
    /// `READDIR4args`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ReaddirArgs {
        pub cookie: NfsCookie4,
        pub cookieverf: Verifier4,
        pub dircount: Count4,
        pub maxcount: Count4,
        pub attr_request: Bitmap4,
    }
}

xdr_struct! {
    /// `entry4` without its `nextentry` link, which [`DirList4`] encodes.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct Entry4<'a> {
        pub cookie: NfsCookie4,
        pub name: Component4<'a>,
        pub attrs: RawFattr4<'a>,
    }
}

/// `dirlist4`: the entries (the linked list flattened; each costs bytes, so the buffer bounds the count).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct DirList4<'a> {
    pub entries: Vec<Entry4<'a>>,
    pub eof: bool,
}

impl XdrEncode for DirList4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        for e in &self.entries {
            w.put_bool(true);
            e.encode(w);
        }
        w.put_bool(false);
        w.put_bool(self.eof);
    }
}

impl<'a> XdrDecode<'a> for DirList4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(DirList4 { entries: r.get_list(Entry4::decode)?, eof: r.get_bool()? })
    }
}

xdr_struct! {
    /// `READDIR4resok`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
    pub struct ReaddirResOk<'a> {
        pub cookieverf: Verifier4,
        pub reply: DirList4<'a>,
    }
}

/// `READDIR4res`.
pub type ReaddirRes<'a> = Nfs4Result<ReaddirResOk<'a>>;

/// `READLINK4resok`: the link text, borrowed on decode and a payload on encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ReadlinkResOk<'a> {
    pub link: &'a [u8],
}

impl XdrEncode for ReadlinkResOk<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_payload(self.link);
    }
}

impl<'a> XdrDecode<'a> for ReadlinkResOk<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ReadlinkResOk { link: r.get_opaque("linktext4", LINKTEXT4_MAX)? })
    }
}

/// `READLINK4res`.
pub type ReadlinkRes<'a> = Nfs4Result<ReadlinkResOk<'a>>;
