//! Why a kernel mount could not be made or undone; every message names the command, path or target.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum KernelMountError {
    /// Mounting needs CAP_SYS_ADMIN: the engine says so by name rather than failing in mount.nfs.
    #[error("the kernel engine mounts in a private mount namespace, which needs root (running as uid {uid})")]
    NeedsRoot { uid: u32 },
    #[error("{program} is not installed (Debian: {package})")]
    NoHelper { program: &'static str, package: &'static str },
    #[error("{what}: {source}")]
    Namespace {
        what: &'static str,
        #[source]
        source: nix::Error,
    },
    #[error("'{target}' is not HOST:/EXPORT as mount.nfs takes it (the kernel engine does not read nfs:// URLs)")]
    BadTarget { target: String },
    #[error("'{target}' is not //HOST/SHARE as mount.cifs takes it")]
    BadShare { target: String },
    #[error("creating the mount point {}: {source}", .path.display())]
    MountPoint {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("starting mount.nfs: {source}")]
    Spawn {
        #[source]
        source: std::io::Error,
    },
    /// The helper's own last words, as a user running it by hand would see them.
    #[error("{program} {target} -o {options} failed ({status}): {message}")]
    Refused { program: &'static str, target: String, options: String, status: String, message: String },
    #[error("unmounting {}: {source}", .path.display())]
    Unmount {
        path: PathBuf,
        #[source]
        source: nix::Error,
    },
}
