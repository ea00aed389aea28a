//! Basic data types of RFC 1813 §2.5–§2.6 and the attribute structures of §2.6 used by every procedure.

use std::fmt;

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

/// RFC 1813 §2.4: the maximum size in bytes of the opaque file handle.
pub const NFS3_FHSIZE: usize = 64;
/// RFC 1813 §2.4: size in bytes of the opaque cookie verifier passed by READDIR and READDIRPLUS.
pub const NFS3_COOKIEVERFSIZE: usize = 8;
/// RFC 1813 §2.4: size in bytes of the opaque verifier used for exclusive CREATE.
pub const NFS3_CREATEVERFSIZE: usize = 8;
/// RFC 1813 §2.4: size in bytes of the opaque verifier used for asynchronous WRITE.
pub const NFS3_WRITEVERFSIZE: usize = 8;

/// `filename3` and `nfspath3` are `string<>` (RFC 1813 §2.5): no declared maximum, only the buffer bounds them.
pub(crate) const UNBOUNDED: u32 = u32::MAX;

/// Encodes an XDR linked list (`*entry` chains, RFC 4506 §4.19 optional-data): TRUE before every item,
/// FALSE after the last. [`XdrReader::get_list`] decodes it.
pub(crate) fn encode_list<'p, T: XdrEncode>(items: &'p [T], w: &mut XdrWriter<'p>) {
    for item in items {
        w.put_bool(true);
        item.encode(w);
    }
    w.put_bool(false);
}

/// `uint64 fileid3` (RFC 1813 §2.5).
pub type FileId3 = u64;
/// `uint64 cookie3`.
pub type Cookie3 = u64;
/// `uint32 uid3`.
pub type Uid3 = u32;
/// `uint32 gid3`.
pub type Gid3 = u32;
/// `uint32 mode3`.
pub type Mode3 = u32;
/// `uint64 size3`.
pub type Size3 = u64;
/// `uint64 offset3`.
pub type Offset3 = u64;
/// `uint32 count3`.
pub type Count3 = u32;

/// Declares an 8-byte opaque verifier (`opaque x[8]`, RFC 4506 §4.9: fixed length, no padding needed).
macro_rules! verifier {
    ($(#[$meta:meta])* $name:ident, $size:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name(pub [u8; $size]);

        impl XdrEncode for $name {
            fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
                w.put_opaque_fixed(&self.0);
            }
        }

        impl<'a> XdrDecode<'a> for $name {
            fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
                Ok($name(r.get_array()?))
            }
        }
    };
}

verifier!(
    /// `cookieverf3` (RFC 1813 §2.5).
    CookieVerf3,
    NFS3_COOKIEVERFSIZE
);
verifier!(
    /// `createverf3` (RFC 1813 §2.5).
    CreateVerf3,
    NFS3_CREATEVERFSIZE
);
verifier!(
    /// `writeverf3` (RFC 1813 §2.5).
    WriteVerf3,
    NFS3_WRITEVERFSIZE
);

/// `nfs_fh3` (RFC 1813 §2.6): `opaque data<NFS3_FHSIZE>`, stored inline so it can be kept and hashed
/// without a lifetime. The bytes past `len` are always zero, so derived equality and hashing are exact.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileHandle3 {
    len: u8,
    bytes: [u8; NFS3_FHSIZE],
}

impl FileHandle3 {
    /// A handle holding `data`; `None` when longer than [`NFS3_FHSIZE`].
    pub fn new(data: &[u8]) -> Option<Self> {
        let mut bytes = [0u8; NFS3_FHSIZE];
        bytes.get_mut(..data.len())?.copy_from_slice(data);
        Some(FileHandle3 { len: data.len() as u8, bytes })
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get(..usize::from(self.len)).unwrap_or(&self.bytes)
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Decodes `opaque<NFS3_FHSIZE>`, naming the XDR type (`nfs_fh3`, MOUNT's `fhandle3`) in errors.
    pub(crate) fn decode_named(r: &mut XdrReader<'_>, what: &'static str) -> Result<Self, XdrError> {
        // RFC 1813 §2.4 (NFS3_FHSIZE) and §5.1.4 (FHSIZE3): a file handle is at most 64 bytes.
        let data = r.get_opaque(what, NFS3_FHSIZE as u32)?;
        FileHandle3::new(data).ok_or_else(|| r.invalid(what))
    }
}

impl Default for FileHandle3 {
    /// The empty handle.
    fn default() -> Self {
        FileHandle3 { len: 0, bytes: [0; NFS3_FHSIZE] }
    }
}

impl fmt::Debug for FileHandle3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FileHandle3(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

impl XdrEncode for FileHandle3 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.as_bytes());
    }
}

impl<'a> XdrDecode<'a> for FileHandle3 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        FileHandle3::decode_named(r, "nfs_fh3")
    }
}

xdr_enum! {
    /// `ftype3` (RFC 1813 §2.6): the type of a file.
    pub enum Ftype3 as "ftype3" {
        Reg = 1 => "NF3REG",
        Dir = 2 => "NF3DIR",
        Blk = 3 => "NF3BLK",
        Chr = 4 => "NF3CHR",
        Lnk = 5 => "NF3LNK",
        Sock = 6 => "NF3SOCK",
        Fifo = 7 => "NF3FIFO",
    }
}

xdr_struct! {
    /// `specdata3` (RFC 1813 §2.6): major and minor device numbers for block and character devices.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct SpecData3 {
        pub specdata1: u32,
        pub specdata2: u32,
    }
}

xdr_struct! {
    /// `nfstime3` (RFC 1813 §2.6): seconds and nanoseconds since 1970-01-01 UTC.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
    pub struct NfsTime3 {
        pub seconds: u32,
        pub nseconds: u32,
    }
}

xdr_struct! {
    /// `fattr3` (RFC 1813 §2.6): the attributes of a file, 84 bytes on the wire. The RFC's `type` is `ftype`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Fattr3 {
        pub ftype: Ftype3,
        pub mode: Mode3,
        pub nlink: u32,
        pub uid: Uid3,
        pub gid: Gid3,
        pub size: Size3,
        pub used: Size3,
        pub rdev: SpecData3,
        pub fsid: u64,
        pub fileid: FileId3,
        pub atime: NfsTime3,
        pub mtime: NfsTime3,
        pub ctime: NfsTime3,
    }
}

/// `post_op_attr` (RFC 1813 §2.6): `union switch (bool attributes_follow) { case TRUE: fattr3; case FALSE: void; }`,
/// which is exactly XDR optional data.
pub type PostOpAttr = Option<Fattr3>;

xdr_struct! {
    /// `wcc_attr` (RFC 1813 §2.6): the attributes weak cache consistency compares.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct WccAttr {
        pub size: Size3,
        pub mtime: NfsTime3,
        pub ctime: NfsTime3,
    }
}

/// `pre_op_attr` (RFC 1813 §2.6): optional `wcc_attr`.
pub type PreOpAttr = Option<WccAttr>;

xdr_struct! {
    /// `wcc_data` (RFC 1813 §2.6): attributes before and after an operation that modifies an object.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct WccData {
        pub before: PreOpAttr,
        pub after: PostOpAttr,
    }
}

/// `post_op_fh3` (RFC 1813 §2.6): optional `nfs_fh3`.
pub type PostOpFh3 = Option<FileHandle3>;

/// `diropargs3` (RFC 1813 §2.6): a directory handle and a name in it (borrowed; names are bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DirOpArgs3<'a> {
    pub dir: FileHandle3,
    pub name: &'a [u8],
}

impl XdrEncode for DirOpArgs3<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.dir.encode(w);
        w.put_opaque(self.name);
    }
}

impl<'a> XdrDecode<'a> for DirOpArgs3<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(DirOpArgs3 { dir: FileHandle3::decode(r)?, name: r.get_string("filename3", UNBOUNDED)? })
    }
}
