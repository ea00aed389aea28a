//! A private mount namespace for the whole run.
//!
//! `unshare(CLONE_NEWNS)` moves only the calling thread, so it must be called before the process starts
//! any other thread (a runtime, MPI): every process started afterwards inherits the namespace. The root
//! is then made recursively private, so that no mount made here propagates back to the host's
//! namespace (systemd mounts / shared). When the last process in the namespace exits, the kernel
//! detaches every mount in it.

use crate::error::KernelMountError;
use nix::mount::{mount, MsFlags};
use nix::sched::{unshare, CloneFlags};
use nix::unistd::geteuid;

/// Enter a private mount namespace, or say why not ([`can_mount`]'s reasons first).
pub fn enter_private() -> Result<(), KernelMountError> {
    can_mount()?;
    unshare(CloneFlags::CLONE_NEWNS)
        .map_err(|source| KernelMountError::Namespace { what: "unshare(CLONE_NEWNS)", source })?;
    mount(None::<&str>, "/", None::<&str>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&str>)
        .map_err(|source| KernelMountError::Namespace { what: "making / private in the new mount namespace", source })
}

/// Whether this process can mount with the kernel's client: root, and mount.nfs installed; the error says
/// which is missing.
pub fn can_mount() -> Result<(), KernelMountError> {
    require_root()?;
    mount_nfs_path().map(|_| ()).ok_or(KernelMountError::NoMountNfs)
}

/// Root, or the error that says the kernel engine needs it.
fn require_root() -> Result<(), KernelMountError> {
    let uid = geteuid();
    if uid.is_root() {
        Ok(())
    } else {
        Err(KernelMountError::NeedsRoot { uid: uid.as_raw() })
    }
}

/// Where mount.nfs is installed, where mount(8) looks for it (a root shell's PATH need not name sbin).
pub fn mount_nfs_path() -> Option<&'static std::path::Path> {
    ["/sbin/mount.nfs", "/usr/sbin/mount.nfs"].iter().map(std::path::Path::new).find(|p| p.exists())
}
