//! `nfsbench run --engine kernel --target nvme-rdma://HOST/NQN` (and nvme-tcp, iscsi, iser): the kernel's
//! own initiator attaches the target ([`kernel_attach::Attachment`]), the jobs run on its block device,
//! and the `nfsbench.kernel` JSON section holds what was asked and negotiated, the kernel state that
//! proves the transport, and the block device's counters over the run.

use crate::error::CliError;
use kernel_attach::{AttachError, AttachOptions, Attachment, DiskStats, Sysfs, SystemRunner, Target};
use mountstats::Verdict;
use serde_json::{json, Value};
use std::path::Path;

/// An attached block target with what it negotiated.
#[derive(Debug)]
pub struct KernelBlock {
    target: Target,
    asked: String,
    attachment: Attachment,
    /// The device's counters when the jobs started.
    before: DiskStats,
}

impl KernelBlock {
    /// Whether `target` is a block target (`nvme-rdma://...`), which this engine attaches instead of mounting.
    pub fn is_block(target: &str) -> bool {
        Target::is_target_url(target)
    }

    /// Root and the initiator's tools present (and iscsid running for iSCSI), or the usage error that
    /// says which is missing.
    pub fn check(target: &str) -> Result<(), CliError> {
        let target = Target::parse(target).map_err(|e| CliError::Usage(e.to_string()))?;
        kernel_attach::can_attach(target.kind).map_err(|e| CliError::Usage(format!("--engine kernel: {e}")))
    }

    /// Attach `target` with `options`; bad usage for a bad target or option, a failure (with the tool's
    /// own words) for a refused connect or login.
    pub fn attach(target: &str, options: &str) -> Result<KernelBlock, CliError> {
        let usage = |e: AttachError| CliError::Usage(e.to_string());
        let target = Target::parse(target).map_err(usage)?;
        let parsed = AttachOptions::parse(target.kind, options).map_err(usage)?;
        let attachment = Attachment::attach(&target, &parsed, Box::new(SystemRunner), Sysfs::new("/sys"))
            .map_err(|e| CliError::Failed(e.to_string()))?;
        let before = attachment.stats().map_err(|e| CliError::Failed(e.to_string()))?;
        Ok(KernelBlock { target, asked: parsed.asked(), attachment, before })
    }

    /// The block device the jobs run on.
    pub fn device(&self) -> &Path {
        self.attachment.device()
    }

    /// One line per asked option the kernel did not grant as asked; empty when it granted them all.
    pub fn differences(&self) -> Vec<String> {
        super::differences(self.attachment.checks())
    }

    pub fn negotiated(&self) -> String {
        self.attachment.negotiated()
    }

    pub fn transport(&self) -> String {
        self.attachment.transport()
    }

    /// The device's counters over the run, the target detached, and the `nfsbench.kernel` JSON section.
    pub fn finish(self) -> Result<Value, CliError> {
        let after = self.attachment.stats().map_err(|e| CliError::Failed(e.to_string()))?;
        let window = after.delta(&self.before);
        let checks = self.attachment.checks();
        let section = json!({
            "kind": self.target.kind.to_string(),
            "target": self.target.url(),
            "asked": self.asked,
            "negotiated": self.attachment.negotiated(),
            "transports": 1,
            "transport": self.attachment.transport(),
            "proof": self.attachment.proof(),
            "device": self.attachment.device().display().to_string(),
            "differs": self.differences(),
            "negotiation_differs": checks.iter().any(|c| c.verdict == Verdict::Differs),
            "checks": checks,
            "window": {
                "io": {
                    "source": "block device",
                    "read_ios": window.read_ios,
                    "write_ios": window.write_ios,
                    "bytes_read": window.read_bytes(),
                    "bytes_written": window.write_bytes(),
                    "read_ticks_ms": window.read_ticks_ms,
                    "write_ticks_ms": window.write_ticks_ms,
                },
            },
        });
        self.attachment.detach().map_err(|e| CliError::Failed(e.to_string()))?;
        Ok(section)
    }
}
