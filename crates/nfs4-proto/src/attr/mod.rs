//! File attributes (RFC 8881 §5, RFC 7862 §12.2, RFC 8275, RFC 8276): [`Fattr4`], a typed struct with one
//! `Option` per attribute this crate knows, and [`RawFattr4`], the wire form operations carry.
//!
//! - Encoding ([`Fattr4::to_raw`], [`Fattr4::to_raw_masked`]) writes the bitmap of the attributes present
//!   (and, for a server answering GETATTR or READDIR, also requested) and their values in bit order
//!   (RFC 8881 §3.3.10).
//! - Decoding ([`RawFattr4::decode_attrs`]) walks the bits in order; a bit this crate does not know is
//!   [`AttrError::NotSupported`] so a server can answer NFS4ERR_ATTRNOTSUPP (RFC 8881 §5.5), and the
//!   values must fill `attr_vals` exactly.
//! - [`Fattr4::known()`] is the set of attributes this crate can carry: a server answers `supported_attrs`
//!   with the part of it its backend fills.

mod raw;
mod values;

pub use raw::{RawFattr4, ATTRLIST4_MAX};
pub use values::*;

use std::borrow::Cow;

use thiserror::Error;
use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::status::{NfsErr4, NfsStat4};
use crate::types::{Bitmap4, Fsid4, NfsFh4, NfsFtype4, NfsTime4, SpecData4, Utf8Str};

/// Why an `fattr4`'s values did not decode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AttrError {
    /// RFC 8881 §5.5: an attribute this crate does not know (the lowest such bit); NFS4ERR_ATTRNOTSUPP.
    #[error("attribute {bit} is not supported")]
    NotSupported { bit: u32 },
    /// The values are malformed or do not fill `attrlist4` exactly; NFS4ERR_BADXDR.
    #[error("malformed attribute values: {0}")]
    Xdr(#[from] XdrError),
}

impl AttrError {
    /// The status a server answers the operation with.
    pub fn status(&self) -> NfsErr4 {
        match self {
            AttrError::NotSupported { .. } => NfsErr4::AttrNotSupp,
            AttrError::Xdr(_) => NfsErr4::BadXdr,
        }
    }
}

/// Declares [`Fattr4`] from one table of `(bit, constant, field, type)` in ascending bit order, with the
/// encoder and decoder that walk it.
macro_rules! fattr4_table {
    ( $( $(#[$doc:meta])* $bit:literal => $konst:ident, $field:ident : $ty:ty; )+ ) => {
        $( $(#[$doc])* pub const $konst: u32 = $bit; )+

        /// The attributes of a file, one `Option` per attribute this crate knows (RFC 8881 §5.6–§5.8,
        /// RFC 7862 §12.2, RFC 8275, RFC 8276). Strings are borrowed.
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        pub struct Fattr4<'a> {
            $( $(#[$doc])* pub $field: Option<$ty>, )+
        }

        impl<'a> Fattr4<'a> {
            /// The attribute numbers this crate encodes and decodes, ascending.
            pub const KNOWN_BITS: &'static [u32] = &[$( $bit ),+];

            /// The mask of the attributes present.
            pub fn mask(&self) -> Bitmap4 {
                let mut m = Bitmap4::EMPTY;
                $( if self.$field.is_some() { m.set($bit); } )+
                m
            }

            /// Encodes the attributes present and, when `requested` is given, in it (a server answering
            /// GETATTR or READDIR: RFC 8881 §18.7.3 returns only what was asked and is supported).
            fn encode_values(&self, requested: Option<&Bitmap4>) -> (Bitmap4, Vec<u8>) {
                let mut mask = Bitmap4::EMPTY;
                let mut w = XdrWriter::new();
                $(
                    if let Some(v) = &self.$field {
                        if requested.is_none_or(|m| m.is_set($bit)) {
                            mask.set($bit);
                            v.encode(&mut w);
                        }
                    }
                )+
                (mask, w.into_vec())
            }

            /// Decodes `vals` as the values of the attributes in `mask`, in bit order, consuming exactly
            /// all of `vals`.
            pub fn decode_values(mask: &Bitmap4, vals: &'a [u8]) -> Result<Fattr4<'a>, AttrError> {
                let mut out = Fattr4::default();
                let mut r = XdrReader::new(vals);
                for bit in mask.iter() {
                    match bit {
                        $( $bit => out.$field = Some(<$ty as XdrDecode<'a>>::decode(&mut r)?), )+
                        _ => return Err(AttrError::NotSupported { bit }),
                    }
                }
                r.finish()?;
                Ok(out)
            }
        }
    };
}

fattr4_table! {
    /// `supported_attrs` (RFC 8881 §5.8.1.1).
    0 => FATTR4_SUPPORTED_ATTRS, supported_attrs: Bitmap4;
    /// `type` (§5.8.1.2); the field is `ftype`.
    1 => FATTR4_TYPE, ftype: NfsFtype4;
    /// `fh_expire_type` (§5.8.1.3).
    2 => FATTR4_FH_EXPIRE_TYPE, fh_expire_type: u32;
    /// `change` (§5.8.1.4).
    3 => FATTR4_CHANGE, change: u64;
    /// `size` (§5.8.1.5).
    4 => FATTR4_SIZE, size: u64;
    /// `link_support` (§5.8.1.6).
    5 => FATTR4_LINK_SUPPORT, link_support: bool;
    /// `symlink_support` (§5.8.1.7).
    6 => FATTR4_SYMLINK_SUPPORT, symlink_support: bool;
    /// `named_attr` (§5.8.1.8).
    7 => FATTR4_NAMED_ATTR, named_attr: bool;
    /// `fsid` (§5.8.1.9).
    8 => FATTR4_FSID, fsid: Fsid4;
    /// `unique_handles` (§5.8.1.10).
    9 => FATTR4_UNIQUE_HANDLES, unique_handles: bool;
    /// `lease_time` (§5.8.1.11), seconds.
    10 => FATTR4_LEASE_TIME, lease_time: u32;
    /// `rdattr_error` (§5.8.1.12): READDIR's per-entry error.
    11 => FATTR4_RDATTR_ERROR, rdattr_error: NfsStat4;
    /// `aclsupport` (§6.2.1.2).
    13 => FATTR4_ACLSUPPORT, aclsupport: u32;
    /// `archive` (§5.8.2.1).
    14 => FATTR4_ARCHIVE, archive: bool;
    /// `cansettime` (§5.8.2.2).
    15 => FATTR4_CANSETTIME, cansettime: bool;
    /// `case_insensitive` (§5.8.2.3).
    16 => FATTR4_CASE_INSENSITIVE, case_insensitive: bool;
    /// `case_preserving` (§5.8.2.4).
    17 => FATTR4_CASE_PRESERVING, case_preserving: bool;
    /// `chown_restricted` (§5.8.2.5).
    18 => FATTR4_CHOWN_RESTRICTED, chown_restricted: bool;
    /// `filehandle` (§5.8.1.13).
    19 => FATTR4_FILEHANDLE, filehandle: NfsFh4;
    /// `fileid` (§5.8.2.6).
    20 => FATTR4_FILEID, fileid: u64;
    /// `files_avail` (§5.8.2.7).
    21 => FATTR4_FILES_AVAIL, files_avail: u64;
    /// `files_free` (§5.8.2.8).
    22 => FATTR4_FILES_FREE, files_free: u64;
    /// `files_total` (§5.8.2.9).
    23 => FATTR4_FILES_TOTAL, files_total: u64;
    /// `fs_locations` (§5.8.2.10).
    24 => FATTR4_FS_LOCATIONS, fs_locations: FsLocations4<'a>;
    /// `hidden` (§5.8.2.12).
    25 => FATTR4_HIDDEN, hidden: bool;
    /// `homogeneous` (§5.8.2.13).
    26 => FATTR4_HOMOGENEOUS, homogeneous: bool;
    /// `maxfilesize` (§5.8.2.14).
    27 => FATTR4_MAXFILESIZE, maxfilesize: u64;
    /// `maxlink` (§5.8.2.15).
    28 => FATTR4_MAXLINK, maxlink: u32;
    /// `maxname` (§5.8.2.16).
    29 => FATTR4_MAXNAME, maxname: u32;
    /// `maxread` (§5.8.2.17).
    30 => FATTR4_MAXREAD, maxread: u64;
    /// `maxwrite` (§5.8.2.18).
    31 => FATTR4_MAXWRITE, maxwrite: u64;
    /// `mode` (§6.2.4).
    33 => FATTR4_MODE, mode: u32;
    /// `no_trunc` (§5.8.2.20).
    34 => FATTR4_NO_TRUNC, no_trunc: bool;
    /// `numlinks` (§5.8.2.21).
    35 => FATTR4_NUMLINKS, numlinks: u32;
    /// `owner` (§5.8.2.22).
    36 => FATTR4_OWNER, owner: Utf8Str<'a>;
    /// `owner_group` (§5.8.2.23).
    37 => FATTR4_OWNER_GROUP, owner_group: Utf8Str<'a>;
    /// `rawdev` (§5.8.2.27).
    41 => FATTR4_RAWDEV, rawdev: SpecData4;
    /// `space_avail` (§5.8.2.28).
    42 => FATTR4_SPACE_AVAIL, space_avail: u64;
    /// `space_free` (§5.8.2.29).
    43 => FATTR4_SPACE_FREE, space_free: u64;
    /// `space_total` (§5.8.2.30).
    44 => FATTR4_SPACE_TOTAL, space_total: u64;
    /// `space_used` (§5.8.2.31).
    45 => FATTR4_SPACE_USED, space_used: u64;
    /// `system` (§5.8.2.32).
    46 => FATTR4_SYSTEM, system: bool;
    /// `time_access` (§5.8.2.33).
    47 => FATTR4_TIME_ACCESS, time_access: NfsTime4;
    /// `time_access_set` (§5.8.2.34): write-only.
    48 => FATTR4_TIME_ACCESS_SET, time_access_set: SetTime4;
    /// `time_create` (§5.8.2.36).
    50 => FATTR4_TIME_CREATE, time_create: NfsTime4;
    /// `time_delta` (§5.8.2.37).
    51 => FATTR4_TIME_DELTA, time_delta: NfsTime4;
    /// `time_metadata` (§5.8.2.38).
    52 => FATTR4_TIME_METADATA, time_metadata: NfsTime4;
    /// `time_modify` (§5.8.2.39).
    53 => FATTR4_TIME_MODIFY, time_modify: NfsTime4;
    /// `time_modify_set` (§5.8.2.40): write-only.
    54 => FATTR4_TIME_MODIFY_SET, time_modify_set: SetTime4;
    /// `mounted_on_fileid` (§5.8.2.19).
    55 => FATTR4_MOUNTED_ON_FILEID, mounted_on_fileid: u64;
    /// `fs_layout_types` (§5.12.2).
    62 => FATTR4_FS_LAYOUT_TYPES, fs_layout_types: LayoutTypes;
    /// `layout_blksize` (§5.12.4).
    65 => FATTR4_LAYOUT_BLKSIZE, layout_blksize: u32;
    /// `suppattr_exclcreat` (§5.8.1.14).
    75 => FATTR4_SUPPATTR_EXCLCREAT, suppattr_exclcreat: Bitmap4;
    /// `clone_blksize` (RFC 7862 §12.2.1).
    77 => FATTR4_CLONE_BLKSIZE, clone_blksize: u32;
    /// `space_freed` (RFC 7862 §12.2.2).
    78 => FATTR4_SPACE_FREED, space_freed: u64;
    /// `change_attr_type` (RFC 7862 §12.2.3).
    79 => FATTR4_CHANGE_ATTR_TYPE, change_attr_type: ChangeAttrType4;
    /// `mode_umask` (RFC 8275 §3): write-only.
    81 => FATTR4_MODE_UMASK, mode_umask: ModeUmask4;
    /// `xattr_support` (RFC 8276 §8.1).
    82 => FATTR4_XATTR_SUPPORT, xattr_support: bool;
}

impl<'a> Fattr4<'a> {
    /// The set of attributes this crate can carry.
    pub fn known() -> Bitmap4 {
        Bitmap4::from_bits(Self::KNOWN_BITS.iter().copied())
    }

    /// The wire form of every attribute present.
    pub fn to_raw(&self) -> RawFattr4<'static> {
        let (attrmask, vals) = self.encode_values(None);
        RawFattr4 { attrmask, attr_vals: Cow::Owned(vals) }
    }

    /// The wire form of the attributes present and in `requested`: what a server answers GETATTR and
    /// READDIR with (attributes asked for but absent are left out of the mask, RFC 8881 §18.7.3).
    pub fn to_raw_masked(&self, requested: &Bitmap4) -> RawFattr4<'static> {
        let (attrmask, vals) = self.encode_values(Some(requested));
        RawFattr4 { attrmask, attr_vals: Cow::Owned(vals) }
    }
}
