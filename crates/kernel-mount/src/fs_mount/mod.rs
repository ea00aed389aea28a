//! One kernel mount, NFS or SMB: `mount.nfs` or `mount.cifs` on a fresh directory, unmounted (and the
//! directory removed) when the run is done with it, or at the latest when it is dropped.

use crate::error::KernelMountError;
use nix::mount::{umount2, MntFlags};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The file systems the kernel engine mounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileSystem {
    /// NFS with mount.nfs (nfs-common): `HOST:/EXPORT`.
    Nfs,
    /// SMB with mount.cifs (cifs-utils): `//HOST/SHARE`.
    Cifs,
}

impl FileSystem {
    /// The file system a target names: `//HOST/SHARE` is SMB, anything else NFS.
    pub fn of_target(target: &str) -> FileSystem {
        if target.starts_with("//") {
            FileSystem::Cifs
        } else {
            FileSystem::Nfs
        }
    }

    /// The mount helper and the Debian package that has it.
    pub fn helper(self) -> (&'static str, &'static str) {
        match self {
            FileSystem::Nfs => ("mount.nfs", "nfs-common"),
            FileSystem::Cifs => ("mount.cifs", "cifs-utils"),
        }
    }

    /// Where the helper is installed, where mount(8) looks for it (a root shell's PATH need not name sbin).
    pub fn helper_path(self) -> Option<PathBuf> {
        let (program, _) = self.helper();
        ["/sbin", "/usr/sbin"].iter().map(|d| Path::new(d).join(program)).find(|p| p.exists())
    }

    /// What the kernel's messages about this file system contain (fs/smb/client logs "CIFS:" and
    /// "cifs:", fs/nfs "NFS:" and "nfs:").
    fn log_words(self) -> &'static [&'static str] {
        match self {
            FileSystem::Nfs => &["nfs"],
            FileSystem::Cifs => &["cifs"],
        }
    }

    /// `target` if the helper takes it, else the error that says what form it needs.
    pub fn check_target(self, target: &str) -> Result<&str, KernelMountError> {
        match self {
            FileSystem::Nfs => mount_target(target),
            FileSystem::Cifs => share_target(target),
        }
    }
}

/// The target as mount.cifs takes it: `//HOST/SHARE[/PATH]`.
pub fn share_target(target: &str) -> Result<&str, KernelMountError> {
    let bad = || KernelMountError::BadShare { target: target.to_string() };
    let rest = target.strip_prefix("//").ok_or_else(bad)?;
    let (host, share) = rest.split_once('/').ok_or_else(bad)?;
    let share = share.split('/').next().unwrap_or("");
    if host.is_empty() || share.is_empty() || !target.chars().all(|c| c.is_ascii_graphic()) {
        return Err(bad());
    }
    Ok(target)
}

/// A mounted target.
#[derive(Debug)]
pub struct FsMount {
    fs: FileSystem,
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

impl FsMount {
    /// Mount `target` with `options` (the helper's `-o` string, passed through as written) on a new
    /// directory under `parent`; the file system is the target's ([`FileSystem::of_target`]).
    pub fn mount(target: &str, options: &str, parent: &Path) -> Result<FsMount, KernelMountError> {
        let fs = FileSystem::of_target(target);
        let target = fs.check_target(target)?;
        let (program, package) = fs.helper();
        let helper = fs.helper_path().ok_or(KernelMountError::NoHelper { program, package })?;
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let point =
            parent.join(format!("nfsbench-mnt-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        std::fs::create_dir_all(&point)
            .map_err(|source| KernelMountError::MountPoint { path: point.clone(), source })?;
        let watch = crate::kmsg::Watch::start();
        let mut command = Command::new(helper);
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
            let mut lines: Vec<String> =
                text.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
            // The kernel often says what the helper does not (which option, which server reply).
            lines.extend(watch.lines_about(fs.log_words()).into_iter().map(|l| format!("kernel: {l}")));
            let message = lines.join("; ");
            return Err(KernelMountError::Refused {
                program,
                target: target.to_string(),
                options: options.to_string(),
                status: out.status.to_string(),
                message: if message.is_empty() { "no message".into() } else { message },
            });
        }
        Ok(FsMount { fs, point, target: target.to_string(), options: options.to_string(), mounted: true })
    }

    pub fn file_system(&self) -> FileSystem {
        self.fs
    }

    /// Where the export is mounted.
    pub fn point(&self) -> &Path {
        &self.point
    }

    pub fn target(&self) -> &str {
        &self.target
    }

    /// The options as asked (passed to the helper as written).
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

impl Drop for FsMount {
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
