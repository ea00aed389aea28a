//! `fattr4` as it travels (RFC 8881 §3.3.10): a bitmap of the attributes present and `attrlist4`, their
//! values concatenated in bit order. Operations carry this form; [`Fattr4`](super::Fattr4) is the typed one.

use std::borrow::Cow;

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::{AttrError, Fattr4};
use crate::types::Bitmap4;

/// The longest `attrlist4` decoded: attributes are small (the longest are owner names and an empty
/// `fs_locations4`), so 64 KiB is generous.
pub const ATTRLIST4_MAX: u32 = 1 << 16;

/// `fattr4` on the wire: the mask and the undecoded values, borrowed when decoded and owned when built
/// from a [`Fattr4`]. Keeping values undecoded lets a server answer NFS4ERR_ATTRNOTSUPP for one operation
/// (instead of failing the whole COMPOUND's decoding) and compare VERIFY's bytes directly.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct RawFattr4<'a> {
    pub attrmask: Bitmap4,
    pub attr_vals: Cow<'a, [u8]>,
}

impl RawFattr4<'_> {
    /// The empty `fattr4`: no attributes.
    pub const EMPTY: RawFattr4<'static> = RawFattr4 { attrmask: Bitmap4::EMPTY, attr_vals: Cow::Borrowed(&[]) };

    /// Decodes the values into typed attributes. An attribute bit this crate does not know is
    /// [`AttrError::NotSupported`] (RFC 8881 §5.5: answer NFS4ERR_ATTRNOTSUPP); values that do not
    /// exactly fill `attr_vals` are [`AttrError::Xdr`] (answer NFS4ERR_BADXDR).
    pub fn decode_attrs(&self) -> Result<Fattr4<'_>, AttrError> {
        Fattr4::decode_values(&self.attrmask, &self.attr_vals)
    }

    /// Copies borrowed values so the result outlives the input buffer.
    pub fn into_owned(self) -> RawFattr4<'static> {
        RawFattr4 { attrmask: self.attrmask, attr_vals: Cow::Owned(self.attr_vals.into_owned()) }
    }
}

impl XdrEncode for RawFattr4<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.attrmask.encode(w);
        w.put_opaque(&self.attr_vals);
    }
}

impl<'a> XdrDecode<'a> for RawFattr4<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RawFattr4 {
            attrmask: Bitmap4::decode(r)?,
            attr_vals: Cow::Borrowed(r.get_opaque("attrlist4", ATTRLIST4_MAX)?),
        })
    }
}
