//! Asked against negotiated: a mount.nfs option string (`vers=4.1,proto=rdma,port=20049,nconnect=4`)
//! beside the `opts:` the kernel printed for the mount (fs/nfs/super.c `nfs_show_mount_options`),
//! one [`OptionCheck`] per asked option.
//!
//! The asked string is normalised the way mount.nfs and the kernel read it (fs/nfs/fs_context.c):
//! aliases (`nfsvers=` → `vers`, `v4.1` → `vers=4.1`, `tcp` → `proto=tcp`, `minorversion=1` with
//! `vers=4` → `vers=4.1`), the last occurrence of an option wins, negated flags (`lock` is the
//! absence of `nolock`). Numbers compare as numbers. Each rule in `rules.rs` names where it comes from.

mod asked;
mod rules;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::mount::Mount;

/// How an asked option compares with what the kernel printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The kernel shows the value asked (or, for an option it omits at its default, the default).
    Same,
    /// The kernel shows another value, or omits an option it always prints: the mount is not what
    /// was asked. [`OptionCheck::note`] says what the kernel did where that is known (`vers=4`
    /// settling on 4.2, rsize lowered to the server's maximum).
    Differs,
    /// The kernel never prints this option in mountstats (mount.nfs's own options, MOUNT options of
    /// an NFSv4 mount, `remoteports`, ...): it cannot be checked here.
    NotShown,
}

/// One asked option beside its negotiated value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OptionCheck {
    /// The option's canonical name (`vers` for `nfsvers=4.1` or `v4.1`).
    pub key: String,
    /// The option as written in the asked string.
    pub asked: String,
    /// What the kernel shows for it (`4.2`, `1048576`, `2 (1 transport)`), `None` when absent.
    pub negotiated: Option<String>,
    pub verdict: Verdict,
    /// Why, when the verdict needs explaining.
    pub note: Option<String>,
}

/// Checks every option of `asked` (a mount.nfs `-o` string) against `mount`'s negotiated options.
pub fn check_options(asked: &str, mount: &Mount) -> Vec<OptionCheck> {
    let negotiated = rules::Negotiated::of(mount);
    asked::asked_options(asked).iter().map(|a| rules::check(a, &negotiated)).collect()
}

/// Whether any check [`Verdict::Differs`].
pub fn differs(checks: &[OptionCheck]) -> bool {
    checks.iter().any(|c| c.verdict == Verdict::Differs)
}
