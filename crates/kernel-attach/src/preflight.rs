//! Whether this machine can attach a kind at all: root, the tool, and for iSCSI a running iscsid; said
//! by name before any command runs.

use std::path::{Path, PathBuf};

use crate::error::AttachError;
use crate::runner::is_executable;
use crate::target::Kind;

/// iscsiadm talks to iscsid over this abstract unix socket (open-iscsi usr/mgmt_ipc.h); under systemd
/// socket activation (Debian 12's iscsid.socket) it listens before iscsid runs.
const ISCSID_SOCKET: &str = "@ISCSIADM_ABSTRACT_NAMESPACE";

/// Where the checks look: the running system, or a fixture in tests.
#[derive(Debug, Clone)]
pub(crate) struct Host {
    pub proc_root: PathBuf,
    pub pid_file: PathBuf,
    pub tool_dirs: Vec<PathBuf>,
}

impl Host {
    fn system() -> Host {
        let mut tool_dirs: Vec<PathBuf> =
            std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
        tool_dirs.extend(["/usr/sbin", "/sbin"].map(PathBuf::from));
        Host { proc_root: PathBuf::from("/proc"), pid_file: PathBuf::from("/run/iscsid.pid"), tool_dirs }
    }

    pub(crate) fn check(&self, kind: Kind) -> Result<(), AttachError> {
        let uid = self.effective_uid()?;
        if uid != 0 {
            return Err(AttachError::NeedsRoot { kind, uid });
        }
        let (tool, package) = if kind.is_nvme() { ("nvme", "nvme-cli") } else { ("iscsiadm", "open-iscsi") };
        if !self.tool_dirs.iter().any(|d| is_executable(&d.join(tool))) {
            let looked = self.tool_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(":");
            return Err(AttachError::MissingTool { kind, tool, package, looked });
        }
        if !kind.is_nvme() && !self.iscsid_running() {
            let looked = format!(
                "no live pid in {}, no {ISCSID_SOCKET} socket in {}",
                self.pid_file.display(),
                self.proc_root.join("net/unix").display()
            );
            return Err(AttachError::IscsidNotRunning { kind, looked });
        }
        Ok(())
    }

    /// The effective uid: the second field of `Uid:` in /proc/self/status.
    fn effective_uid(&self) -> Result<u32, AttachError> {
        let path = self.proc_root.join("self/status");
        let text = crate::sysfs::read_file(&path)?;
        text.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|ids| ids.split_whitespace().nth(1))
            .and_then(|euid| euid.parse().ok())
            .ok_or_else(|| AttachError::Garbled { path, expected: "a Uid: line".to_string(), found: text.clone() })
    }

    fn iscsid_running(&self) -> bool {
        let pid_alive = std::fs::read_to_string(&self.pid_file)
            .ok()
            .and_then(|t| t.trim().parse::<u32>().ok())
            .is_some_and(|pid| self.proc_root.join(pid.to_string()).is_dir());
        pid_alive || listens(&self.proc_root.join("net/unix"))
    }
}

/// Whether /proc/net/unix lists iscsid's abstract socket (the path column ends each line).
fn listens(unix: &Path) -> bool {
    std::fs::read_to_string(unix).is_ok_and(|t| t.lines().any(|l| l.split_whitespace().last() == Some(ISCSID_SOCKET)))
}

/// Root and the tool present (nvme-cli's `nvme`; open-iscsi's `iscsiadm` and, for iSCSI and iSER, a
/// running iscsid): the error says which is missing and the Debian package.
pub fn can_attach(kind: Kind) -> Result<(), AttachError> {
    Host::system().check(kind)
}
