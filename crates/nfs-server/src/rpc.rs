//! The RPC layer's pieces (RFC 5531): authenticating a call's credential, and building reply headers.
//! Every reply carries an AUTH_NONE verifier (RFC 5531 §8.2: what AUTH_NONE and AUTH_SYS servers send).

use onc_rpc::{AcceptStat, AuthFlavor, AuthStat, AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use xdr::XdrWriter;

use crate::access::{Cred, Identity};
use crate::Reply;

/// Bytes of an accepted-success reply header: xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier (flavor,
/// length), SUCCESS.
pub(crate) const SUCCESS_HEADER_LEN: usize = 24;

/// What a program handler produced.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// The procedure ran; `status` is its result status for statistics (0 = success).
    Done { reply: Reply, status: u32 },
    /// The call was accepted but not executed (GARBAGE_ARGS, PROC_UNAVAIL ...).
    Refused(AcceptStat),
    /// A retransmission answered with the reply the original got (duplicate request cache).
    Replayed(Reply),
    /// Send nothing (a retransmission whose original is still executing).
    Drop,
}

/// RFC 5531 §9 / Appendix A: the caller's identity from its credential. AUTH_SYS and AUTH_NONE are
/// accepted; AUTH_SYS needs a well-formed body (else AUTH_BADCRED), AUTH_NONE an empty one, and both an
/// empty AUTH_NONE verifier (else AUTH_BADVERF), as knfsd checks. Any other flavor is AUTH_TOOWEAK
/// (RFC 2623 §2.3.2: the flavor is not acceptable to this server).
pub(crate) fn authenticate(call: &CallHeader<'_>) -> Result<Identity, AuthStat> {
    let identity = match call.cred.flavor {
        AuthFlavor::AUTH_SYS => {
            let parms = AuthSysParms::from_opaque_auth(&call.cred).map_err(|_| AuthStat::BadCred)?;
            Identity::Unix(Cred::new(parms.uid(), parms.gid(), parms.gids()))
        }
        AuthFlavor::AUTH_NONE if call.cred.body.is_empty() => Identity::Anonymous,
        AuthFlavor::AUTH_NONE => return Err(AuthStat::BadCred),
        _ => return Err(AuthStat::TooWeak),
    };
    if call.verf.flavor != AuthFlavor::AUTH_NONE || !call.verf.body.is_empty() {
        return Err(AuthStat::BadVerf);
    }
    Ok(identity)
}

/// A writer holding an accepted-success header for `xid`, with room for `body_capacity` more bytes; the
/// caller appends the procedure's results.
pub(crate) fn success_writer<'p>(xid: u32, body_capacity: usize) -> XdrWriter<'p> {
    let mut w = XdrWriter::with_capacity(SUCCESS_HEADER_LEN + body_capacity);
    RpcMessage::reply(xid, ReplyBody::success(OpaqueAuth::NONE)).encode_header(&mut w);
    w
}

/// A reply with no results: MSG_ACCEPTED with a non-success status, or MSG_DENIED.
pub(crate) fn header_only(xid: u32, body: ReplyBody<'_>) -> Reply {
    let msg = RpcMessage::reply(xid, body);
    let mut w = XdrWriter::with_capacity(msg.encoded_len());
    msg.encode_header(&mut w);
    Reply::from_inline(w.into_vec())
}

pub(crate) fn accepted(xid: u32, stat: AcceptStat) -> Reply {
    header_only(xid, ReplyBody::accepted(stat))
}

#[cfg(test)]
mod tests {
    use onc_rpc::NFS_PROGRAM;

    use super::*;

    #[test]
    fn the_success_header_is_24_bytes_with_an_auth_none_verifier() {
        let w = success_writer(0x01020304, 0);
        assert_eq!(w.inline_bytes(), &[1, 2, 3, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn auth_sys_credentials_become_unix_identities() {
        let mut buf = Vec::new();
        let parms = AuthSysParms::new(0, b"host", 1000, 100, &[4, 5]).unwrap_or_else(|e| panic!("{e}"));
        let cred = parms.to_opaque_auth(&mut buf);
        let call = CallHeader::new(NFS_PROGRAM, 3, 1, cred, OpaqueAuth::NONE);
        assert_eq!(authenticate(&call), Ok(Identity::Unix(Cred::new(1000, 100, &[4, 5]))));
    }

    #[test]
    fn malformed_auth_sys_is_badcred_and_unknown_flavors_are_too_weak() {
        let junk = OpaqueAuth { flavor: AuthFlavor::AUTH_SYS, body: &[0, 0, 0, 1] };
        assert_eq!(authenticate(&CallHeader::new(NFS_PROGRAM, 3, 0, junk, OpaqueAuth::NONE)), Err(AuthStat::BadCred));
        let gss = OpaqueAuth { flavor: AuthFlavor::RPCSEC_GSS, body: &[] };
        assert_eq!(authenticate(&CallHeader::new(NFS_PROGRAM, 3, 0, gss, OpaqueAuth::NONE)), Err(AuthStat::TooWeak));
    }

    #[test]
    fn a_verifier_other_than_auth_none_is_badverf() {
        let verf = OpaqueAuth { flavor: AuthFlavor::AUTH_SYS, body: &[] };
        assert_eq!(authenticate(&CallHeader::new(NFS_PROGRAM, 3, 0, OpaqueAuth::NONE, verf)), Err(AuthStat::BadVerf));
    }
}
