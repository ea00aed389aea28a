//! Credentials and verifiers as they travel in every message: `opaque_auth` (RFC 5531 §8.2).
//!
//! The body is kept opaque and borrowed; flavor-specific decoding lives beside it (AUTH_SYS in
//! [`crate::auth_sys`]). Flavors this crate does not interpret (AUTH_DH, RPCSEC_GSS, ...) pass through
//! untouched, so a server can answer them with `AUTH_ERROR` and a proxy can forward them.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::RpcError;

/// RFC 5531 §8.2: `opaque body<400>`.
pub const MAX_AUTH_BYTES: usize = 400;

/// An `auth_flavor` value (RFC 5531 §8.2, IANA "RPC Authentication Flavor Numbers").
///
/// A newtype rather than an enum: the set is open-ended and unknown flavors are legal on the wire (the
/// server answers them with `AUTH_ERROR`/`AUTH_REJECTEDCRED` instead of failing to decode the call).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AuthFlavor(pub u32);

impl AuthFlavor {
    /// No authentication (a.k.a. AUTH_NULL).
    pub const AUTH_NONE: AuthFlavor = AuthFlavor(0);
    /// Unix-style uid/gid/groups, RFC 5531 Appendix A (a.k.a. AUTH_UNIX).
    pub const AUTH_SYS: AuthFlavor = AuthFlavor(1);
    /// Short-hand handle returned by a server in place of an AUTH_SYS credential.
    pub const AUTH_SHORT: AuthFlavor = AuthFlavor(2);
    /// Diffie-Hellman (a.k.a. AUTH_DES), RFC 2695.
    pub const AUTH_DH: AuthFlavor = AuthFlavor(3);
    /// Kerberos 4, RFC 2695.
    pub const AUTH_KERB: AuthFlavor = AuthFlavor(4);
    /// RSA authentication.
    pub const AUTH_RSA: AuthFlavor = AuthFlavor(5);
    /// GSS-API based security, RFC 2203 / RFC 5403.
    pub const RPCSEC_GSS: AuthFlavor = AuthFlavor(6);
    /// RPC-over-TLS probe, RFC 9289.
    pub const AUTH_TLS: AuthFlavor = AuthFlavor(7);

    /// The RFC name of a well-known flavor.
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "AUTH_NONE",
            1 => "AUTH_SYS",
            2 => "AUTH_SHORT",
            3 => "AUTH_DH",
            4 => "AUTH_KERB",
            5 => "AUTH_RSA",
            6 => "RPCSEC_GSS",
            7 => "AUTH_TLS",
            _ => return None,
        })
    }
}

/// `struct opaque_auth { auth_flavor flavor; opaque body<400>; }` (RFC 5531 §8.2), body borrowed.
///
/// The public fields make any value constructible; [`OpaqueAuth::new`] checks the 400-byte limit. A
/// longer body encodes as-is and is then refused by every decoder, this one included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpaqueAuth<'a> {
    pub flavor: AuthFlavor,
    pub body: &'a [u8],
}

impl<'a> OpaqueAuth<'a> {
    /// AUTH_NONE with an empty body: the verifier of almost every call and reply.
    pub const NONE: OpaqueAuth<'static> = OpaqueAuth { flavor: AuthFlavor::AUTH_NONE, body: &[] };

    /// Builds a credential or verifier, refusing a body over 400 bytes (RFC 5531 §8.2).
    pub fn new(flavor: AuthFlavor, body: &'a [u8]) -> Result<Self, RpcError> {
        if body.len() > MAX_AUTH_BYTES {
            return Err(RpcError::OverLimit { what: "opaque_auth body", len: body.len(), max: MAX_AUTH_BYTES });
        }
        Ok(OpaqueAuth { flavor, body })
    }

    /// Bytes this takes on the wire: flavor, length word, body and padding.
    pub fn encoded_len(&self) -> usize {
        8 + self.body.len() + xdr::padding(self.body.len())
    }

    /// Appends the encoding to a writer of any lifetime (the body is copied, being small).
    pub fn encode_into(&self, w: &mut XdrWriter<'_>) {
        w.put_u32(self.flavor.0);
        w.put_opaque(self.body);
    }
}

impl Default for OpaqueAuth<'_> {
    fn default() -> Self {
        OpaqueAuth::NONE
    }
}

impl XdrEncode for OpaqueAuth<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.encode_into(w);
    }
}

impl<'a> XdrDecode<'a> for OpaqueAuth<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        let flavor = AuthFlavor(r.get_u32()?);
        // RFC 5531 §8.2: opaque body<400>.
        let body = r.get_opaque("opaque_auth body", MAX_AUTH_BYTES as u32)?;
        Ok(OpaqueAuth { flavor, body })
    }
}
