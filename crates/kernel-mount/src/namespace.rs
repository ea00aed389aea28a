//! A private mount namespace for the whole run.
//!
//! `unshare(CLONE_NEWNS)` moves only the calling thread, so it must be called before the process starts
//! any other thread (a runtime, MPI): every process started afterwards inherits the namespace. The root
//! is then made recursively private, so that no mount made here propagates back to the host's
//! namespace (systemd mounts / shared). When the last process in the namespace exits, the kernel
//! detaches every mount in it.

use crate::error::KernelMountError;
use crate::fs_mount::FileSystem;
use nix::mount::{mount, MsFlags};
use nix::sched::{unshare, CloneFlags};
use nix::unistd::geteuid;

/// Enter a private mount namespace, or say why not (root first).
pub fn enter_private() -> Result<(), KernelMountError> {
    require_root()?;
    unshare(CloneFlags::CLONE_NEWNS)
        .map_err(|source| KernelMountError::Namespace { what: "unshare(CLONE_NEWNS)", source })?;
    mount(None::<&str>, "/", None::<&str>, MsFlags::MS_REC | MsFlags::MS_PRIVATE, None::<&str>)
        .map_err(|source| KernelMountError::Namespace { what: "making / private in the new mount namespace", source })
}

/// Whether this process can mount `fs` with the kernel's client: root, and its mount helper installed;
/// the error says which is missing.
pub fn can_mount(fs: FileSystem) -> Result<(), KernelMountError> {
    require_root()?;
    let (program, package) = fs.helper();
    fs.helper_path().map(|_| ()).ok_or(KernelMountError::NoHelper { program, package })
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
