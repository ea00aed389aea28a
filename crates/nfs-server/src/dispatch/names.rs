//! File name rules. NFS names are bytes (RFC 1813 §2.5 `filename3`); this server, like knfsd, takes them
//! as single POSIX path components of at most [`NAME_MAX`] bytes.

use nfs3_proto::NfsErr3;

/// Longest name (PATHCONF name_max).
pub(crate) const NAME_MAX: usize = 255;
/// Longest symbolic link target (NFS3_MAXPATHLEN in knfsd, MNTPATHLEN in RFC 1813 §5.1.4).
pub(crate) const PATH_MAX: usize = 1024;

/// "." or "..".
pub(crate) fn is_dot(name: &[u8]) -> bool {
    name == b"." || name == b".."
}

/// Any name: not empty, no '/' or NUL (ACCES, as knfsd's component lookup answers), at most 255 bytes
/// (NAMETOOLONG, RFC 1813 §3.3.3).
pub(crate) fn check_name(name: &[u8]) -> Result<(), NfsErr3> {
    if name.len() > NAME_MAX {
        return Err(NfsErr3::NameTooLong);
    }
    if name.is_empty() || name.iter().any(|&b| b == b'/' || b == 0) {
        return Err(NfsErr3::Acces);
    }
    Ok(())
}

/// A name to create (CREATE, MKDIR, SYMLINK, MKNOD, LINK, RENAME target): "." and ".." already exist
/// (EXIST, as knfsd).
pub(crate) fn check_new_name(name: &[u8]) -> Result<(), NfsErr3> {
    check_name(name)?;
    if is_dot(name) {
        return Err(NfsErr3::Exist);
    }
    Ok(())
}

/// A name to remove or rename away (REMOVE, RMDIR, RENAME source): "." and ".." are INVAL, as POSIX
/// rmdir(".") and rename("..") are.
pub(crate) fn check_old_name(name: &[u8]) -> Result<(), NfsErr3> {
    check_name(name)?;
    if is_dot(name) {
        return Err(NfsErr3::Inval);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_slash_or_nul_or_nothing_are_refused() {
        for bad in [&b""[..], b"a/b", b"/", b"a\0b"] {
            assert_eq!(check_name(bad), Err(NfsErr3::Acces), "{bad:?}");
        }
    }

    #[test]
    fn names_over_255_bytes_are_too_long() {
        assert!(check_name(&[b'x'; 255]).is_ok());
        assert_eq!(check_name(&[b'x'; 256]), Err(NfsErr3::NameTooLong));
    }

    #[test]
    fn dot_names_exist_for_creation_and_are_invalid_for_removal() {
        assert_eq!(check_new_name(b".."), Err(NfsErr3::Exist));
        assert_eq!(check_old_name(b"."), Err(NfsErr3::Inval));
        assert!(check_new_name(b"...").is_ok());
    }
}
