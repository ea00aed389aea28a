//! One kernel NFS mount: `mount.nfs` on a fresh directory, unmounted (and the directory removed) when the
//! run is done with it, or at the latest when it is dropped.

use crate::error::KernelMountError;
use nix::mount::{umount2, MntFlags};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// A mounted target.
#[derive(Debug)]
pub struct NfsMount {
    point: PathBuf,
    target: String,
    options: String,
    mounted: bool,
}

/// The target as mount.nfs takes it: `HOST:/EXPORT` or `[IPv6]:/EXPORT`.
pub fn mount_target(target: &str) -> Result<&str, KernelMountError> {
    let bad = || KernelMountError::BadTarget { target: target.to_string() };
    let (host, export) = match target.strip_prefix('[') {
        Some(rest) => rest.split_once("]:").ok_or_else(bad)?,
        None => target.split_once(':').ok_or_else(bad)?,
    };
    let printable = |s: &str| s.chars().all(|c| c.is_ascii_graphic());
    if host.is_empty() || !export.starts_with('/') || target.contains("://") || !printable(target) {
        return Err(bad());
    }
    Ok(target)
}

impl NfsMount {
    /// Mount `target` with `options` (a mount.nfs `-o` string, passed through as written) on a new
    /// directory under `parent`.
    pub fn mount(target: &str, options: &str, parent: &Path) -> Result<NfsMount, KernelMountError> {
        let target = mount_target(target)?;
        let mount_nfs = crate::namespace::mount_nfs_path().ok_or(KernelMountError::NoMountNfs)?;
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let point =
            parent.join(format!("nfsbench-mnt-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&point)
            .map_err(|source| KernelMountError::MountPoint { path: point.clone(), source })?;
        let mut command = Command::new(mount_nfs);
        command.arg(target).arg(&point);
        if !options.is_empty() {
            command.arg("-o").arg(options);
        }
        let out = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|source| KernelMountError::Spawn { source })?;
        if !out.status.success() {
            let _ = std::fs::remove_dir(&point);
            let text = String::from_utf8_lossy(&out.stderr);
            let message = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
            return Err(KernelMountError::Refused {
                target: target.to_string(),
                options: options.to_string(),
                status: out.status.to_string(),
                message: if message.is_empty() { "no message".into() } else { message },
            });
        }
        Ok(NfsMount { point, target: target.to_string(), options: options.to_string(), mounted: true })
    }

    /// Where the export is mounted.
    pub fn point(&self) -> &Path {
        &self.point
    }

    pub fn target(&self) -> &str {
        &self.target
    }

    /// The options as asked (passed to mount.nfs as written).
    pub fn asked(&self) -> &str {
        &self.options
    }

    /// Unmount and remove the mount point. A mount still busy after a second (a straggling process) is
    /// detached instead: the kernel finishes it when the last user lets go.
    pub fn unmount(mut self) -> Result<(), KernelMountError> {
        self.unmount_now()
    }

    fn unmount_now(&mut self) -> Result<(), KernelMountError> {
        if !self.mounted {
            return Ok(());
        }
        let mut result = umount2(&self.point, MntFlags::empty());
        for _ in 0..10 {
            match result {
                Err(nix::Error::EBUSY) => {
                    std::thread::sleep(Duration::from_millis(100));
                    result = umount2(&self.point, MntFlags::empty());
                }
                _ => break,
            }
        }
        if result.is_err() {
            result = umount2(&self.point, MntFlags::MNT_DETACH);
        }
        self.mounted = false;
        result.map_err(|source| KernelMountError::Unmount { path: self.point.clone(), source })?;
        let _ = std::fs::remove_dir(&self.point);
        Ok(())
    }
}

impl Drop for NfsMount {
    fn drop(&mut self) {
        if self.mounted {
            let _ = umount2(&self.point, MntFlags::MNT_DETACH);
            self.mounted = false;
            let _ = std::fs::remove_dir(&self.point);
        }
    }
}

#[cfg(test)]
mod tests;
