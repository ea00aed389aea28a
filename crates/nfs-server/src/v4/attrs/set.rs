//! Attributes a client sets (SETATTR, OPEN and CREATE's `createattrs`, RFC 8881 §18.30) as the backend's
//! `sattr3`: size, mode (or `mode_umask`, RFC 8275), owner and group as decimal ids, and the two times.
//!
//! Errors, as RFC 8881 §18.30.3 and knfsd order them: malformed values → BADXDR; an attribute this server
//! does not support → ATTRNOTSUPP; a supported but read-only one → INVAL; both `mode` and `mode_umask` →
//! INVAL; an owner or group that is not a decimal id (no idmapper runs here) → BADOWNER; a time whose
//! nanoseconds reach a second, or that `nfstime3` cannot hold → INVAL.

use nfs3_proto::{NfsTime3, Sattr3, SetTime3};
use nfs4_proto::attr::{SetTime4, FATTR4_MODE, FATTR4_MODE_UMASK};
use nfs4_proto::{Bitmap4, NfsErr4, NfsTime4, RawFattr4};

use super::{supported, writable};

/// Decoded settable attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Settable {
    pub sattr: Sattr3,
    /// The attributes given (what `attrsset` reports once applied).
    pub mask: Bitmap4,
}

/// `owner` / `owner_group` as an id: decimal digits only ("1000"), as the Linux client sends them with
/// sec=sys and idmapping off.
pub(crate) fn owner_id(text: &[u8]) -> Result<u32, NfsErr4> {
    if text.is_empty() || text.len() > 10 || !text.iter().all(u8::is_ascii_digit) {
        return Err(NfsErr4::BadOwner);
    }
    // Digits only, so the text is ASCII; a value past u32::MAX is no id either.
    std::str::from_utf8(text).ok().and_then(|t| t.parse::<u32>().ok()).ok_or(NfsErr4::BadOwner)
}

fn time3(t: &NfsTime4) -> Result<NfsTime3, NfsErr4> {
    if t.nseconds >= 1_000_000_000 {
        return Err(NfsErr4::Inval);
    }
    let seconds = u32::try_from(t.seconds).map_err(|_| NfsErr4::Inval)?;
    Ok(NfsTime3 { seconds, nseconds: t.nseconds })
}

fn set_time(t: Option<SetTime4>) -> Result<SetTime3, NfsErr4> {
    Ok(match t {
        None => SetTime3::DontChange,
        Some(SetTime4::ServerTime) => SetTime3::SetToServerTime,
        Some(SetTime4::ClientTime(t)) => SetTime3::SetToClientTime(time3(&t)?),
    })
}

/// Decodes `raw` as attributes to set in minor version `minor`.
pub(crate) fn decode_settable(raw: &RawFattr4<'_>, minor: u32) -> Result<Settable, NfsErr4> {
    let mask = raw.attrmask;
    let attrs = raw.decode_attrs().map_err(|e| e.status())?;
    if !mask.difference(&supported(minor)).is_empty() {
        return Err(NfsErr4::AttrNotSupp);
    }
    if !mask.difference(&writable(minor)).is_empty() {
        return Err(NfsErr4::Inval);
    }
    if mask.is_set(FATTR4_MODE) && mask.is_set(FATTR4_MODE_UMASK) {
        return Err(NfsErr4::Inval);
    }
    let mode = match (attrs.mode, attrs.mode_umask) {
        (Some(mode), _) => Some(mode & 0o7777),
        (None, Some(mu)) => Some(mu.mode & !mu.umask & 0o7777),
        (None, None) => None,
    };
    let sattr = Sattr3 {
        mode,
        uid: attrs.owner.map(|o| owner_id(&o)).transpose()?,
        gid: attrs.owner_group.map(|g| owner_id(&g)).transpose()?,
        size: attrs.size,
        atime: set_time(attrs.time_access_set)?,
        mtime: set_time(attrs.time_modify_set)?,
    };
    Ok(Settable { sattr, mask })
}

#[cfg(test)]
mod tests {
    use nfs4_proto::attr::ModeUmask4;
    use nfs4_proto::{Fattr4, Utf8Str};

    use super::*;

    fn raw(attrs: Fattr4<'_>) -> RawFattr4<'static> {
        attrs.to_raw()
    }

    #[test]
    fn numeric_owners_are_ids_and_names_are_badowner() {
        assert_eq!(owner_id(b"1000"), Ok(1000));
        assert_eq!(owner_id(b"0"), Ok(0));
        for bad in [&b""[..], b"root", b"1000@example.com", b"-1", b"+5", b"4294967296", b"12345678901"] {
            assert_eq!(owner_id(bad), Err(NfsErr4::BadOwner), "{bad:?}");
        }
    }

    #[test]
    fn settable_attributes_become_sattr3() {
        let given = Fattr4 {
            size: Some(7),
            mode: Some(0o100644),
            owner: Some(Utf8Str(b"12")),
            owner_group: Some(Utf8Str(b"34")),
            time_access_set: Some(SetTime4::ServerTime),
            time_modify_set: Some(SetTime4::ClientTime(NfsTime4 { seconds: 5, nseconds: 6 })),
            ..Fattr4::default()
        };
        let got = decode_settable(&raw(given.clone()), 1).expect("settable");
        assert_eq!(got.mask, given.mask());
        assert_eq!(got.sattr.mode, Some(0o644));
        assert_eq!((got.sattr.uid, got.sattr.gid, got.sattr.size), (Some(12), Some(34), Some(7)));
        assert_eq!(got.sattr.atime, SetTime3::SetToServerTime);
        assert_eq!(got.sattr.mtime, SetTime3::SetToClientTime(NfsTime3 { seconds: 5, nseconds: 6 }));
    }

    #[test]
    fn mode_umask_is_v42_only_and_not_with_mode() {
        let mu = Fattr4 { mode_umask: Some(ModeUmask4 { mode: 0o777, umask: 0o022 }), ..Fattr4::default() };
        assert_eq!(decode_settable(&raw(mu.clone()), 2).map(|s| s.sattr.mode), Ok(Some(0o755)));
        assert_eq!(decode_settable(&raw(mu.clone()), 1), Err(NfsErr4::AttrNotSupp));
        let both = Fattr4 { mode: Some(0o600), ..mu };
        assert_eq!(decode_settable(&raw(both), 2), Err(NfsErr4::Inval));
    }

    #[test]
    fn read_only_unsupported_and_malformed_attributes_are_refused_by_kind() {
        let read_only = Fattr4 { fileid: Some(3), ..Fattr4::default() };
        assert_eq!(decode_settable(&raw(read_only), 1), Err(NfsErr4::Inval));
        let unsupported = Fattr4 { hidden: Some(true), ..Fattr4::default() };
        assert_eq!(decode_settable(&raw(unsupported), 1), Err(NfsErr4::AttrNotSupp));
        let mut short = raw(Fattr4 { size: Some(1), ..Fattr4::default() });
        short.attr_vals = std::borrow::Cow::Owned(vec![0, 0, 0]);
        assert_eq!(decode_settable(&short, 1), Err(NfsErr4::BadXdr));
        let bad_time = Fattr4 {
            time_modify_set: Some(SetTime4::ClientTime(NfsTime4 { seconds: 1, nseconds: 1_000_000_000 })),
            ..Fattr4::default()
        };
        assert_eq!(decode_settable(&raw(bad_time), 1), Err(NfsErr4::Inval));
        let name = Fattr4 { owner: Some(Utf8Str(b"alice@example.com")), ..Fattr4::default() };
        assert_eq!(decode_settable(&raw(name), 1), Err(NfsErr4::BadOwner));
    }
}
