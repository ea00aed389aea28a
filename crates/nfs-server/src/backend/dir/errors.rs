//! Turning system errors into `nfsstat3` values and checking the names clients send.

use nfs3_proto::NfsErr3;
use rustix::io::Errno;

/// The longest single name most Linux file systems accept (NAME_MAX).
const NAME_MAX: usize = 255;

/// Maps an errno to the `nfsstat3` value RFC 1813 §2.6 describes for it; anything without a closer match is
/// NFS3ERR_IO.
pub(crate) fn nfs_err(e: Errno) -> NfsErr3 {
    match e {
        Errno::NOENT => NfsErr3::NoEnt,
        Errno::EXIST => NfsErr3::Exist,
        Errno::NOTDIR => NfsErr3::NotDir,
        Errno::ISDIR => NfsErr3::IsDir,
        Errno::NOTEMPTY => NfsErr3::NotEmpty,
        Errno::NOSPC => NfsErr3::NoSpc,
        Errno::FBIG => NfsErr3::FBig,
        Errno::NAMETOOLONG => NfsErr3::NameTooLong,
        Errno::ACCESS => NfsErr3::Acces,
        Errno::PERM => NfsErr3::Perm,
        Errno::ROFS => NfsErr3::Rofs,
        Errno::XDEV => NfsErr3::Xdev,
        Errno::INVAL => NfsErr3::Inval,
        Errno::MLINK => NfsErr3::Mlink,
        Errno::DQUOT => NfsErr3::Dquot,
        Errno::STALE => NfsErr3::Stale,
        Errno::NXIO => NfsErr3::Nxio,
        Errno::NODEV => NfsErr3::NoDev,
        Errno::OPNOTSUPP => NfsErr3::NotSupp,
        _ => NfsErr3::Io,
    }
}

/// What a name means to the backend once checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Name<'a> {
    /// A single ordinary path component: safe to hand to `*at` system calls.
    Plain(&'a [u8]),
    /// "."
    Dot,
    /// ".."
    DotDot,
}

/// Classifies a name. The dispatcher already rejects "", ".", ".." and names with '/' or NUL (RFC 1813
/// §3.3.3); the backend checks again so that no caller can reach outside a directory through a name.
pub(crate) fn check_name(name: &[u8]) -> Result<Name<'_>, NfsErr3> {
    match name {
        b"." => Ok(Name::Dot),
        b".." => Ok(Name::DotDot),
        [] => Err(NfsErr3::Inval),
        _ if name.len() > NAME_MAX => Err(NfsErr3::NameTooLong),
        _ if name.iter().any(|&b| b == b'/' || b == 0) => Err(NfsErr3::Inval),
        _ => Ok(Name::Plain(name)),
    }
}

/// A name that must be an ordinary component (create, remove, rename, link): "." and ".." are refused with
/// `dot_err`.
pub(crate) fn plain_name(name: &[u8], dot_err: NfsErr3) -> Result<&[u8], NfsErr3> {
    match check_name(name)? {
        Name::Plain(n) => Ok(n),
        Name::Dot | Name::DotDot => Err(dot_err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_the_errno_values_the_protocol_names() {
        assert_eq!(nfs_err(Errno::NOENT), NfsErr3::NoEnt);
        assert_eq!(nfs_err(Errno::NOTEMPTY), NfsErr3::NotEmpty);
        assert_eq!(nfs_err(Errno::DQUOT), NfsErr3::Dquot);
        assert_eq!(nfs_err(Errno::ACCESS), NfsErr3::Acces);
        assert_eq!(nfs_err(Errno::STALE), NfsErr3::Stale);
        assert_eq!(nfs_err(Errno::LOOP), NfsErr3::Io);
    }

    #[test]
    fn refuses_names_that_are_not_single_components() {
        assert_eq!(check_name(b""), Err(NfsErr3::Inval));
        assert_eq!(check_name(b"a/b"), Err(NfsErr3::Inval));
        assert_eq!(check_name(b"../x"), Err(NfsErr3::Inval));
        assert_eq!(check_name(b"/etc"), Err(NfsErr3::Inval));
        assert_eq!(check_name(b"a\0b"), Err(NfsErr3::Inval));
        assert_eq!(check_name(&[b'x'; 256]), Err(NfsErr3::NameTooLong));
        assert_eq!(check_name(b".."), Ok(Name::DotDot));
        assert_eq!(check_name(b"."), Ok(Name::Dot));
        assert_eq!(check_name(b"...").ok(), Some(Name::Plain(b"...")));
        assert_eq!(plain_name(b"..", NfsErr3::Exist), Err(NfsErr3::Exist));
    }
}
