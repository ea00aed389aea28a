//! One-shot checks of rules the server must keep whatever its clients do.

use nfs3_proto::Sattr3;

use crate::rpc::{RawClient, RpcFailure, Target};

/// An unprivileged owner of this uid/gid writes to its own privileged file.
pub const OWNER: (u32, u32) = (4242, 4242);

/// The modes around one unprivileged write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModeChange {
    pub before: u32,
    pub after: u32,
}

impl ModeChange {
    /// What a local file system (and knfsd) leaves after a write by a process without CAP_FSETID:
    /// set-user-ID gone, set-group-ID gone when group-execute is set (without it, the bit marks
    /// mandatory locking and stays) — the kernel's should_remove_suid().
    pub fn expected_after(before: u32) -> u32 {
        let mut mode = before & !0o4000;
        if mode & 0o010 != 0 {
            mode &= !0o2000;
        }
        mode
    }
}

/// As root: creates `name` owned by [`OWNER`] with `mode` (e.g. 0o6755 or 0o6745); as the owner:
/// writes 4 KiB; returns the file's mode before and after the write.
pub fn write_by_owner_of_setid_file(target: &Target, name: &str, mode: u32) -> Result<ModeChange, RpcFailure> {
    let mut root = RawClient::connect(target.addr)?;
    let dir = root.mount(&target.export)?;
    let fh = root.create(&dir, name, 0o644)?;
    // Owner first, mode second: changing the owner may itself clear the set-ID bits.
    root.setattr(&fh, Sattr3 { uid: Some(OWNER.0), gid: Some(OWNER.1), ..Sattr3::default() })?;
    root.setattr(&fh, Sattr3 { mode: Some(mode), ..Sattr3::default() })?;
    let before = root.getattr(&fh)?.mode & 0o7777;
    let mut owner = RawClient::connect(target.addr)?;
    owner.identity(OWNER.0, OWNER.1);
    owner.write(&fh, 0, &[0x5a; 4096])?;
    let after = root.getattr(&fh)?.mode & 0o7777;
    Ok(ModeChange { before, after })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_mode_follows_the_kernels_rule() {
        assert_eq!(ModeChange::expected_after(0o6755), 0o0755);
        assert_eq!(ModeChange::expected_after(0o6745), 0o2745, "set-group-ID without group execute stays");
        assert_eq!(ModeChange::expected_after(0o0644), 0o0644);
    }
}
