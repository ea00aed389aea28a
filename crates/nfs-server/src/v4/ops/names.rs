//! Component names (RFC 8881 §14.2, `component4`): checked as knfsd's check_filename does — empty is
//! INVAL, past NAME_MAX is NAMETOOLONG, "." and ".." and names holding '/' (or NUL, which no POSIX name
//! holds) are BADNAME. Names are bytes here; UTF-8 is not enforced (RFC 8881 §14.4 leaves it to the server).

use nfs4_proto::NfsErr4;

use crate::v4::attrs::NAME_MAX;

/// A name to look up, create, remove or rename.
pub(crate) fn check(name: &[u8]) -> Result<(), NfsErr4> {
    if name.is_empty() {
        return Err(NfsErr4::Inval);
    }
    if name.len() > NAME_MAX {
        return Err(NfsErr4::NameTooLong);
    }
    if name == b"." || name == b".." || name.iter().any(|&b| b == b'/' || b == 0) {
        return Err(NfsErr4::BadName);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_as_knfsd_does() {
        assert_eq!(check(b"file"), Ok(()));
        assert_eq!(check(b""), Err(NfsErr4::Inval));
        assert_eq!(check(&[b'a'; 256]), Err(NfsErr4::NameTooLong));
        assert_eq!(check(&[b'a'; 255]), Ok(()));
        for bad in [&b"."[..], b"..", b"a/b", b"a\0"] {
            assert_eq!(check(bad), Err(NfsErr4::BadName), "{bad:?}");
        }
    }
}
