//! The kernel engine's mounts: measuring the operating system's own NFS client means mounting the
//! target with `mount.nfs` and a test case's option string, running the jobs on the mount point, and
//! leaving nothing behind.
//!
//! - [`namespace::enter_private`] moves the calling process into its own mount namespace (root only),
//!   with every mount private, so that a test mount is never seen by the host and disappears with the
//!   last process of the run — even one killed in the middle of a cell.
//! - [`FsMount::mount`] runs `mount.nfs TARGET POINT -o OPTIONS` (NFS: `HOST:/EXPORT`) or `mount.cifs`
//!   (SMB: `//HOST/SHARE`, [`FileSystem`]) on a fresh directory, keeping the helper's own words when it
//!   refuses; [`FsMount::unmount`] (or dropping it) unmounts and removes the directory.
//!
//! What the mount really negotiated is read from `/proc/self/mountstats` by the `mountstats` crate (NFS)
//! and from /proc/fs/cifs by `cifs-stats` (SMB).

pub mod error;
mod fs_mount;
pub mod kmsg;
pub mod namespace;

pub use error::KernelMountError;
pub use fs_mount::{mount_target, share_target, FileSystem, FsMount};
