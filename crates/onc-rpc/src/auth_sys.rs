//! AUTH_SYS credentials (RFC 5531 Appendix A): the uid/gid/groups every NFSv3 client sends.
//!
//! Decoded without allocation (the group list is a fixed array of 16), the machine name borrowed.
//! The fields are private so that every value honours the RFC limits and therefore encodes to bytes
//! that decode again.

use std::fmt;

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::auth::{AuthFlavor, OpaqueAuth};
use crate::RpcError;

/// RFC 5531 Appendix A: `string machinename<255>`.
pub const MAX_MACHINE_NAME: usize = 255;
/// RFC 5531 Appendix A: `unsigned int gids<16>`.
pub const MAX_GIDS: usize = 16;

/// `struct authsys_parms` (RFC 5531 Appendix A):
/// `{ unsigned int stamp; string machinename<255>; unsigned int uid; unsigned int gid; unsigned int gids<16>; }`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct AuthSysParms<'a> {
    stamp: u32,
    machinename: &'a [u8],
    uid: u32,
    gid: u32,
    /// Only the first `ngids` are meaningful; the rest stay zero so that derived equality is exact.
    gids: [u32; MAX_GIDS],
    ngids: u8,
}

impl<'a> AuthSysParms<'a> {
    /// Builds a credential, refusing a machine name over 255 bytes or more than 16 groups.
    pub fn new(stamp: u32, machinename: &'a [u8], uid: u32, gid: u32, gids: &[u32]) -> Result<Self, RpcError> {
        if machinename.len() > MAX_MACHINE_NAME {
            return Err(RpcError::OverLimit {
                what: "AUTH_SYS machinename",
                len: machinename.len(),
                max: MAX_MACHINE_NAME,
            });
        }
        if gids.len() > MAX_GIDS {
            return Err(RpcError::OverLimit { what: "AUTH_SYS gids", len: gids.len(), max: MAX_GIDS });
        }
        let mut array = [0; MAX_GIDS];
        for (slot, gid) in array.iter_mut().zip(gids) {
            *slot = *gid;
        }
        Ok(AuthSysParms { stamp, machinename, uid, gid, gids: array, ngids: gids.len() as u8 })
    }

    /// Arbitrary id chosen by the caller's machine (Linux uses a boot-time counter, libtirpc the time).
    pub fn stamp(&self) -> u32 {
        self.stamp
    }

    /// The caller's host name, bytes in no particular encoding.
    pub fn machinename(&self) -> &'a [u8] {
        self.machinename
    }

    pub fn uid(&self) -> u32 {
        self.uid
    }

    pub fn gid(&self) -> u32 {
        self.gid
    }

    /// Supplementary groups, at most 16.
    pub fn gids(&self) -> &[u32] {
        self.gids.get(..usize::from(self.ngids)).unwrap_or(&[])
    }

    /// Decodes the body of an AUTH_SYS credential. The body must hold exactly one `authsys_parms`.
    pub fn from_opaque_auth(auth: &OpaqueAuth<'a>) -> Result<Self, RpcError> {
        if auth.flavor != AuthFlavor::AUTH_SYS {
            return Err(RpcError::WrongAuthFlavor { expected: AuthFlavor::AUTH_SYS, found: auth.flavor });
        }
        Ok(xdr::decode_exact(auth.body)?)
    }

    /// Bytes of the encoded `authsys_parms` (at most 340, well under the 400 of an `opaque_auth`).
    pub fn encoded_len(&self) -> usize {
        20 + self.machinename.len() + xdr::padding(self.machinename.len()) + 4 * usize::from(self.ngids)
    }

    /// Encodes the parameters alone: the body of an AUTH_SYS `opaque_auth`.
    pub fn encode_body(&self) -> Vec<u8> {
        let mut w = XdrWriter::with_capacity(self.encoded_len());
        self.encode_into(&mut w);
        w.into_vec()
    }

    /// Encodes into `buf` (replacing its content) and returns the credential that borrows it. Clients
    /// build this once per identity and reuse it for every call.
    pub fn to_opaque_auth<'b>(&self, buf: &'b mut Vec<u8>) -> OpaqueAuth<'b> {
        *buf = self.encode_body();
        OpaqueAuth { flavor: AuthFlavor::AUTH_SYS, body: buf.as_slice() }
    }

    /// Appends the encoding to a writer of any lifetime.
    pub fn encode_into(&self, w: &mut XdrWriter<'_>) {
        w.put_u32(self.stamp);
        w.put_opaque(self.machinename);
        w.put_u32(self.uid);
        w.put_u32(self.gid);
        let gids = self.gids();
        w.put_u32(gids.len() as u32);
        for gid in gids {
            w.put_u32(*gid);
        }
    }
}

impl fmt::Debug for AuthSysParms<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuthSysParms")
            .field("stamp", &self.stamp)
            .field("machinename", &String::from_utf8_lossy(self.machinename))
            .field("uid", &self.uid)
            .field("gid", &self.gid)
            .field("gids", &self.gids())
            .finish()
    }
}

impl XdrEncode for AuthSysParms<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.encode_into(w);
    }
}

impl<'a> XdrDecode<'a> for AuthSysParms<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let stamp = r.get_u32()?;
        // RFC 5531 Appendix A: string machinename<255>.
        let machinename = r.get_string("authsys_parms machinename", MAX_MACHINE_NAME as u32)?;
        let uid = r.get_u32()?;
        let gid = r.get_u32()?;
        // RFC 5531 Appendix A: unsigned int gids<16>.
        let ngids = r.get_array_len("authsys_parms gids", MAX_GIDS as u32, 4)?;
        let mut gids = [0; MAX_GIDS];
        for slot in gids.iter_mut().take(ngids) {
            *slot = r.get_u32()?;
        }
        Ok(AuthSysParms { stamp, machinename, uid, gid, gids, ngids: ngids as u8 })
    }
}
