//! A mount as /proc/self/mountstats shows it: device, mount point and file system type for every
//! mount, and for NFS ones everything `nfs_show_stats` (fs/nfs/super.c) and `rpc_clnt_show_stats`
//! (net/sunrpc/stats.c) print.

use serde::Serialize;

use crate::counters::Counters;
use crate::transport::Transport;

/// One `device X mounted on Y with fstype Z` section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mount {
    /// The device as printed (`10.99.0.1:/srv/nfs`, `tmpfs`, `no device`), octal escapes decoded.
    pub device: String,
    /// The mount point, octal escapes (`\040` for a blank) decoded.
    pub mountpoint: String,
    /// `nfs`, `nfs4`, `tmpfs`, `fuse.sshfs`, ...
    pub fstype: String,
    /// The statistics of an NFS mount (`nfs`/`nfs4`, or any section carrying `statvers=`).
    pub nfs: Option<NfsStats>,
}

/// The statistics of one NFS mount.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct NfsStats {
    /// `statvers=` of the header (`1.1`).
    pub statvers: Option<String>,
    /// `opts:` as the kernel printed them, in order: the NEGOTIATED values (rsize lowered to the
    /// server's maximum, the version the client settled on), not what mount.nfs was asked.
    pub opts: Vec<MountOption>,
    /// `age:` seconds since the mount.
    pub age: Option<u64>,
    /// `impl_id:` (NFSv4.1+: the server's implementation id), as printed.
    pub impl_id: Option<String>,
    /// `caps:` (caps=0x..,wtmult=..,dtsize=..,bsize=..,namlen=..).
    pub caps: Vec<MountOption>,
    /// `nfsv4:` (bm0..acl, sessions, pnfs, lease_time, lease_expired); empty for v2/v3.
    pub nfsv4: Vec<MountOption>,
    /// `sec:` (flavor, pseudoflavor).
    pub sec: Vec<MountOption>,
    /// `events:` named after `enum nfs_stat_eventcounters`.
    pub events: Counters,
    /// `bytes:` named after `enum nfs_stat_bytecounters`.
    pub bytes: Counters,
    /// `fsc:` (fscache counters, kernels that print them).
    pub fscache: Option<Counters>,
    /// `RPC iostats version:` line.
    pub rpc: Option<RpcInfo>,
    /// One per `xprt:` line, in the kernel's order.
    pub transports: Vec<Transport>,
    /// `per-op statistics`, in procedure order.
    pub ops: Vec<OpStats>,
    /// Line numbers (1-based, in the whole text) of lines in this section that could not be read.
    pub skipped_lines: Vec<usize>,
}

/// One `key` or `key=value` of a comma-separated list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MountOption {
    pub key: String,
    pub value: Option<String>,
}

/// `RPC iostats version: 1.1  p/v: 100003/3 (nfs)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RpcInfo {
    pub version: String,
    pub program: Option<u64>,
    pub program_version: Option<u64>,
    pub program_name: Option<String>,
}

/// One per-op line: `NAME: ops ntrans timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms
/// [errors]` (net/sunrpc/stats.c `_print_rpc_iostats`; errors since 5.3). The times are cumulative
/// milliseconds over every op.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpStats {
    /// The procedure name (`READ`, `OPEN_DOWNGRADE`) or its number when the kernel has no name.
    pub name: String,
    /// RPCs completed.
    pub ops: u64,
    /// Transmissions (ops plus retransmissions).
    pub ntrans: u64,
    /// Major timeouts.
    pub timeouts: u64,
    pub bytes_sent: u64,
    pub bytes_recv: u64,
    /// Time queued before transmission (backlog wait), summed.
    pub queue_ms: u64,
    /// Round-trip time, transmission to reply, summed.
    pub rtt_ms: u64,
    /// Time from the RPC's start to its end, summed.
    pub execute_ms: u64,
    /// Ops that completed with an error status (5.3+).
    pub errors: Option<u64>,
}

impl Mount {
    /// The last mount at `mountpoint` (the one on top, as the kernel lists mounts in mount order).
    /// Trailing slashes are ignored (`/mnt/t/` finds `/mnt/t`).
    pub fn find<'a>(mounts: &'a [Mount], mountpoint: &str) -> Option<&'a Mount> {
        let want = trim_slashes(mountpoint);
        mounts.iter().rev().find(|m| trim_slashes(&m.mountpoint) == want)
    }

    /// Whether this is an NFS mount with statistics.
    pub fn is_nfs(&self) -> bool {
        self.nfs.is_some()
    }

    /// The negotiated value of option `key` in `opts:`: `Some("")` for a flag such as `hard`,
    /// `None` when the kernel did not print it (or this is not an NFS mount).
    pub fn option(&self, key: &str) -> Option<&str> {
        let nfs = self.nfs.as_ref()?;
        nfs.opts.iter().rev().find(|o| o.key == key).map(|o| o.value.as_deref().unwrap_or(""))
    }

    /// The mount's transports (empty for a mount without NFS statistics).
    pub fn transports(&self) -> &[Transport] {
        self.nfs.as_ref().map(|n| n.transports.as_slice()).unwrap_or(&[])
    }

    /// The per-op statistics of procedure `name`.
    pub fn op(&self, name: &str) -> Option<&OpStats> {
        self.nfs.as_ref()?.ops.iter().find(|o| o.name == name)
    }
}

fn trim_slashes(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() && path.starts_with('/') {
        "/"
    } else {
        trimmed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mount(mountpoint: &str, fstype: &str) -> Mount {
        Mount { device: "d".into(), mountpoint: mountpoint.into(), fstype: fstype.into(), nfs: None }
    }

    #[test]
    fn find_takes_the_mount_on_top_and_ignores_trailing_slashes() {
        let mounts = [mount("/", "ext4"), mount("/mnt", "tmpfs"), mount("/mnt", "nfs")];
        assert_eq!(Mount::find(&mounts, "/mnt/").unwrap().fstype, "nfs");
        assert_eq!(Mount::find(&mounts, "/").unwrap().fstype, "ext4");
        assert!(Mount::find(&mounts, "/srv").is_none());
    }

    #[test]
    fn option_reads_flags_as_empty_and_values_as_printed() {
        let mut m = mount("/mnt", "nfs");
        m.nfs = Some(NfsStats {
            opts: vec![
                MountOption { key: "hard".into(), value: None },
                MountOption { key: "rsize".into(), value: Some("1048576".into()) },
            ],
            ..NfsStats::default()
        });
        assert_eq!(m.option("hard"), Some(""));
        assert_eq!(m.option("rsize"), Some("1048576"));
        assert_eq!(m.option("soft"), None);
        assert_eq!(mount("/x", "tmpfs").option("rsize"), None);
    }
}
