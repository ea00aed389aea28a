//! Share names: the mount target (`//HOST/SHARE/path`, as mount.cifs takes it) and the tree name the
//! kernel prints (`\\HOST\SHARE`, fs/smb/client/fs_context.c `smb3_parse_devname` builds it with
//! backslashes), compared case-insensitively on host and share as SMB does.

/// Longest host or share name kept: the kernel's own limits are CIFS_NI_MAXHOST (1024) for the host
/// and CIFS_MAX_SHARE_LEN (80) for the share (fs/smb/client/cifsglob.h); anything longer is not a
/// share the kernel printed.
pub(crate) const MAX_NAME_BYTES: usize = 1024;

/// `//HOST/SHARE[/path]` (or the backslash form) as the `\\HOST\SHARE` that Stats and DebugData
/// print; `None` without two leading separators, a host and a share.
pub fn unc_of_target(target: &str) -> Option<String> {
    let (host, share) = split(target)?;
    Some(format!("\\\\{host}\\{share}"))
}

/// Host and share of a target or tree name, lowercased for comparison.
pub(crate) fn unc_key(unc: &str) -> Option<(String, String)> {
    let (host, share) = split(unc)?;
    Some((host.to_lowercase(), share.to_lowercase()))
}

fn split(target: &str) -> Option<(&str, &str)> {
    let is_sep = |c: char| c == '/' || c == '\\';
    let rest = target.trim().strip_prefix(is_sep)?.strip_prefix(is_sep)?;
    let mut parts = rest.split(is_sep);
    let host = parts.next()?;
    let share = parts.next()?;
    let fits = |s: &str| !s.is_empty() && s.len() <= MAX_NAME_BYTES && !s.contains(char::is_whitespace);
    (fits(host) && !share.is_empty() && share.len() <= MAX_NAME_BYTES).then_some((host, share))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_become_tree_names() {
        assert_eq!(unc_of_target("//10.99.0.1/bench").as_deref(), Some(r"\\10.99.0.1\bench"));
        assert_eq!(unc_of_target("//srv/share/sub/dir").as_deref(), Some(r"\\srv\share"));
        assert_eq!(unc_of_target(r"\\srv\share\sub").as_deref(), Some(r"\\srv\share"));
        assert_eq!(unc_of_target("//srv/my share").as_deref(), Some(r"\\srv\my share"));
        assert_eq!(unc_of_target("//srv"), None);
        assert_eq!(unc_of_target("//srv/"), None);
        assert_eq!(unc_of_target("srv/share"), None);
        assert_eq!(unc_of_target("///share"), None);
        assert_eq!(unc_of_target(""), None);
    }

    #[test]
    fn keys_ignore_case_and_separators() {
        assert_eq!(unc_key("//SRV/Bench/x"), unc_key(r"\\srv\BENCH"));
    }
}
