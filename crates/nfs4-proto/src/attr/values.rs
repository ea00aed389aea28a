//! Attribute value types that are not plain scalars: `settime4` (RFC 8881 §3.3.2), `fs_locations4`
//! (§11.16), `mode_umask4` (RFC 8275 §3), `change_attr_type4` (RFC 7862 §12.2.3) and the layout type list.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::types::{encode_array, Component4, LayoutType4, NfsTime4, Utf8Str, SMALL_ARRAY_MAX};

xdr_enum! {
    /// `time_how4` (RFC 8881 §3.3.2): the discriminant of `settime4`.
    pub enum TimeHow4 as "time_how4" {
        SetToServerTime = 0 => "SET_TO_SERVER_TIME4",
        SetToClientTime = 1 => "SET_TO_CLIENT_TIME4",
    }
}

/// `settime4` (RFC 8881 §3.3.2): the value of `time_access_set` and `time_modify_set`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetTime4 {
    ServerTime,
    ClientTime(NfsTime4),
}

impl XdrEncode for SetTime4 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            SetTime4::ServerTime => TimeHow4::SetToServerTime.encode(w),
            SetTime4::ClientTime(t) => {
                TimeHow4::SetToClientTime.encode(w);
                t.encode(w);
            }
        }
    }
}

impl<'a> XdrDecode<'a> for SetTime4 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match TimeHow4::decode(r)? {
            TimeHow4::SetToServerTime => SetTime4::ServerTime,
            TimeHow4::SetToClientTime => SetTime4::ClientTime(NfsTime4::decode(r)?),
        })
    }
}

/// The most components in a decoded `pathname4`.
const PATHNAME4_MAX: u32 = 256;

fn decode_pathname<'a>(r: &mut XdrReader<'a>) -> Result<Vec<Component4<'a>>, XdrError> {
    r.get_vec("pathname4", PATHNAME4_MAX, 4, Component4::decode)
}

/// `fs_location4` (RFC 8881 §11.16): servers holding a file system and its path there.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FsLocation4<'a> {
    pub server: Vec<Utf8Str<'a>>,
    pub rootpath: Vec<Component4<'a>>,
}

impl XdrEncode for FsLocation4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.server, w);
        encode_array(&self.rootpath, w);
    }
}

impl<'a> XdrDecode<'a> for FsLocation4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(FsLocation4 {
            server: r.get_vec("fs_location4.server", SMALL_ARRAY_MAX, 4, Utf8Str::decode)?,
            rootpath: decode_pathname(r)?,
        })
    }
}

/// `fs_locations4` (RFC 8881 §11.16). A server without migration or referrals answers the empty one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FsLocations4<'a> {
    pub fs_root: Vec<Component4<'a>>,
    pub locations: Vec<FsLocation4<'a>>,
}

impl XdrEncode for FsLocations4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.fs_root, w);
        encode_array(&self.locations, w);
    }
}

impl<'a> XdrDecode<'a> for FsLocations4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(FsLocations4 {
            fs_root: decode_pathname(r)?,
            locations: r.get_vec("fs_locations4.locations", SMALL_ARRAY_MAX, 8, FsLocation4::decode)?,
        })
    }
}

/// `fs_layout_types` (RFC 8881 §5.12.2): `layouttype4<>`; empty for a server without pNFS.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LayoutTypes(pub Vec<LayoutType4>);

impl XdrEncode for LayoutTypes {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_array(&self.0, w);
    }
}

impl<'a> XdrDecode<'a> for LayoutTypes {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(LayoutTypes(r.get_vec("fs_layout_types", SMALL_ARRAY_MAX, 4, XdrReader::get_u32)?))
    }
}

xdr_struct! {
    /// `mode_umask4` (RFC 8275 §3): a mode to create with and the umask the server applies to it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct ModeUmask4 {
        pub mode: u32,
        pub umask: u32,
    }
}

xdr_enum! {
    /// `change_attr_type4` (RFC 7862 §12.2.3): how the `change` attribute moves.
    pub enum ChangeAttrType4 as "change_attr_type4" {
        MonotonicIncr = 0 => "NFS4_CHANGE_TYPE_IS_MONOTONIC_INCR",
        VersionCounter = 1 => "NFS4_CHANGE_TYPE_IS_VERSION_COUNTER",
        VersionCounterNoPnfs = 2 => "NFS4_CHANGE_TYPE_IS_VERSION_COUNTER_NOPNFS",
        TimeMetadata = 3 => "NFS4_CHANGE_TYPE_IS_TIME_METADATA",
        Undefined = 4 => "NFS4_CHANGE_TYPE_IS_UNDEFINED",
    }
}
