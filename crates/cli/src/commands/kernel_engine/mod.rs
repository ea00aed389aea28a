//! `nfsbench run --engine kernel`: the operating system's NFS client measured on a mount of its own.
//!
//! [`enter_namespace`] (first, before any thread starts) gives the run a private mount namespace;
//! [`KernelMount::mount`] mounts the target with mount.nfs and the `-o` string as written, reads what the
//! kernel negotiated from /proc/self/mountstats and says what differs from what was asked; the jobs then
//! run through the file engine on the mount point; [`KernelMount::finish`] takes the client's counters
//! over the run (a [`mountstats::MountWindow`]), unmounts, and gives the `nfsbench.kernel` section of
//! the JSON that `compare` reads. Nothing outlives the run: the namespace goes with the process.
//!
//! A block target (`nvme-rdma://HOST/NQN`, nvme-tcp, iscsi, iser) is attached instead of mounted
//! ([`block::KernelBlock`]); [`KernelTarget`] is either, and the run treats both alike.

use crate::error::CliError;
use kernel_mount::{FileSystem, FsMount, KernelMountError};
use mountstats::{check_options, differs, Mount, MountWindow, OptionCheck, Verdict};
use serde_json::{json, Value};
use std::path::Path;

/// Data RPCs: the operations whose times the report averages.
const DATA_OPS: [&str; 3] = ["READ", "WRITE", "COMMIT"];

/// A private mount namespace for this process, or the usage error that says why not (root, the mount
/// helper of `target`'s file system).
pub fn enter_namespace(target: &str) -> Result<(), CliError> {
    kernel_mount::namespace::can_mount(FileSystem::of_target(target))
        .map_err(|e| CliError::Usage(format!("--engine kernel: {e}")))?;
    kernel_mount::namespace::enter_private().map_err(|e| CliError::Failed(format!("--engine kernel: {e}")))
}

mod block;
mod smb;

pub use block::KernelBlock;
pub use smb::KernelSmb;

/// What the kernel engine measures: an NFS or SMB mount, or an attached block device.
#[derive(Debug)]
pub enum KernelTarget {
    Nfs(KernelMount),
    Smb(KernelSmb),
    Block(KernelBlock),
}

impl KernelTarget {
    pub fn differences(&self) -> Vec<String> {
        match self {
            KernelTarget::Nfs(m) => m.differences(),
            KernelTarget::Smb(m) => m.differences(),
            KernelTarget::Block(b) => b.differences(),
        }
    }

    pub fn negotiated(&self) -> String {
        match self {
            KernelTarget::Nfs(m) => m.negotiated(),
            KernelTarget::Smb(m) => m.negotiated(),
            KernelTarget::Block(b) => b.negotiated(),
        }
    }

    pub fn transport(&self) -> String {
        match self {
            KernelTarget::Nfs(m) => m.transport(),
            KernelTarget::Smb(m) => m.transport(),
            KernelTarget::Block(b) => b.transport(),
        }
    }

    /// The counters over the run, the target unmounted or detached, and the `nfsbench.kernel` section.
    pub fn finish(self) -> Result<Value, CliError> {
        match self {
            KernelTarget::Nfs(m) => m.finish(),
            KernelTarget::Smb(m) => m.finish(),
            KernelTarget::Block(b) => b.finish(),
        }
    }
}

/// The host of a kernel-engine target: `HOST:/EXPORT`, `[IPv6]:/EXPORT`, `//HOST/SHARE`, or a block
/// target's URL.
pub fn target_host(target: &str) -> String {
    if let Ok(block) = kernel_attach::Target::parse(target) {
        return block.host;
    }
    match target.strip_prefix("//") {
        Some(share) => share.split('/').next().unwrap_or("").to_string(),
        None => compare::plan::target_host(target).to_string(),
    }
}

/// One line per check the kernel did not grant as asked ("rsize: asked 4194304, negotiated 1048576").
fn differences(checks: &[OptionCheck]) -> Vec<String> {
    checks
        .iter()
        .filter(|c| c.verdict == Verdict::Differs)
        .map(|c| {
            let got = c.negotiated.as_deref().unwrap_or("not shown");
            let note = c.note.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
            format!("{}: asked {}, negotiated {got}{note}", c.key, c.asked)
        })
        .collect()
}

/// A mounted target with what it negotiated.
#[derive(Debug)]
pub struct KernelMount {
    mount: FsMount,
    /// The mount's statistics when the jobs started.
    before: Mount,
    checks: Vec<OptionCheck>,
}

impl KernelMount {
    /// Mount `target` with `options` under `parent`; a refused mount is a failure carrying mount.nfs's
    /// words, a bad target bad usage.
    pub fn mount(target: &str, options: &str, parent: &Path) -> Result<KernelMount, CliError> {
        let mount = FsMount::mount(target, options, parent).map_err(|e| match e {
            e @ (KernelMountError::BadTarget { .. } | KernelMountError::BadShare { .. }) => {
                CliError::Usage(e.to_string())
            }
            e => CliError::Failed(e.to_string()),
        })?;
        let before = read_mount(mount.point())?;
        let checks = check_options(options, &before);
        Ok(KernelMount { mount, before, checks })
    }

    /// Where the jobs run.
    pub fn point(&self) -> &Path {
        self.mount.point()
    }

    /// One line per asked option the kernel did not grant as asked ("rsize: asked 4194304, negotiated
    /// 1048576"); empty when it granted them all.
    pub fn differences(&self) -> Vec<String> {
        differences(&self.checks)
    }

    /// The options as the kernel holds them (the `opts:` line when the jobs started).
    pub fn negotiated(&self) -> String {
        negotiated_line(&self.before)
    }

    /// What carried the I/O, for the report: "kernel NFS client, vers=3, proto=rdma, 4 transports".
    pub fn transport(&self) -> String {
        let opt = |k: &str| self.before.option(k).map(|v| format!(", {k}={v}")).unwrap_or_default();
        let n = self.before.transports().len();
        let plural = if n == 1 { "" } else { "s" };
        format!("kernel NFS client{}{}, {n} transport{plural}", opt("vers"), opt("proto"))
    }

    /// The counters over the run, the mount undone, and the `nfsbench.kernel` JSON section.
    pub fn finish(self) -> Result<Value, CliError> {
        let after = read_mount(self.mount.point())?;
        let window = after.delta(&self.before);
        let section = json!({
            "target": self.mount.target(),
            "asked": self.mount.asked(),
            "negotiated": negotiated_line(&after),
            "transports": after.transports().len(),
            "differs": self.differences(),
            "negotiation_differs": differs(&self.checks),
            "checks": self.checks,
            "window": window_json(&window),
        });
        self.mount.unmount().map_err(|e| CliError::Failed(e.to_string()))?;
        Ok(section)
    }
}

/// The mount at `point` as /proc/self/mountstats shows it now.
fn read_mount(point: &Path) -> Result<Mount, CliError> {
    let mounts = mountstats::read_self().map_err(|e| CliError::Failed(e.to_string()))?;
    let path = point.display().to_string();
    Mount::find(&mounts, &path)
        .filter(|m| m.is_nfs())
        .cloned()
        .ok_or_else(|| CliError::Failed(format!("{path}: mounted, but /proc/self/mountstats shows no NFS mount there")))
}

/// The `opts:` line as the kernel printed it.
fn negotiated_line(mount: &Mount) -> String {
    let opts = mount.nfs.as_ref().map(|n| n.opts.as_slice()).unwrap_or(&[]);
    opts.iter()
        .map(|o| match &o.value {
            Some(v) => format!("{}={v}", o.key),
            None => o.key.clone(),
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The window's sums as compare reads them, with the full window beside them.
fn window_json(w: &MountWindow) -> Value {
    let data: Vec<_> = w.ops.iter().filter(|o| DATA_OPS.contains(&o.name.as_str())).collect();
    let rdma: Vec<_> = w.transports.iter().filter_map(|t| t.rdma.as_ref()).collect();
    let sum = |f: &dyn Fn(&mountstats::RdmaCounters) -> u64| rdma.iter().map(|r| f(r)).sum::<u64>();
    let rdma_section = (!rdma.is_empty()).then(|| {
        json!({
            "read_chunks": sum(&|r| r.read_chunk_count),
            "write_chunks": sum(&|r| r.write_chunk_count),
            "reply_chunks": sum(&|r| r.reply_chunk_count),
            "hardway_registrations": sum(&|r| r.hardway_register_count),
            "failed_marshals": sum(&|r| r.failed_marshal_count),
            "bad_replies": sum(&|r| r.bad_reply_count),
        })
    });
    json!({
        "rpcs": w.ops.iter().map(|o| o.ops).sum::<u64>(),
        "retransmissions": w.ops.iter().map(|o| o.retransmissions).sum::<u64>(),
        "timeouts": w.ops.iter().map(|o| o.timeouts).sum::<u64>(),
        "bytes_sent": w.ops.iter().map(|o| o.bytes_sent).sum::<u64>(),
        "bytes_received": w.ops.iter().map(|o| o.bytes_recv).sum::<u64>(),
        "data_rpcs": data.iter().map(|o| o.ops).sum::<u64>(),
        "rtt_ms_total": data.iter().map(|o| o.rtt_ms).sum::<u64>(),
        "exec_ms_total": data.iter().map(|o| o.execute_ms).sum::<u64>(),
        "backlog_ms_total": data.iter().map(|o| o.queue_ms).sum::<u64>(),
        "rdma": rdma_section,
        "ops": w.ops,
        "transports": w.transports,
        "bytes": w.bytes,
    })
}

#[cfg(test)]
mod tests;
