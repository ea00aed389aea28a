//! One attached block device: made by [`Attachment::attach`], undone by [`Attachment::detach`] or, at
//! the latest, when dropped; and [`sweep`] for what a killed run left behind.

use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mountstats::OptionCheck;

use crate::diskstats::DiskStats;
use crate::error::AttachError;
use crate::options::AttachOptions;
use crate::runner::Runner;
use crate::sysfs::Sysfs;
use crate::target::Target;
use crate::{iscsi, nvme};

/// How long to wait for the kernel to show what a tool did, and how often to look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Patience {
    pub timeout: Duration,
    pub step: Duration,
}

impl Patience {
    /// The namespace scan and the SCSI scan run after nvme-cli and iscsiadm return: ~10 s is ample.
    pub(crate) const DEFAULT: Patience =
        Patience { timeout: Duration::from_secs(10), step: Duration::from_millis(100) };

    /// Calls `probe` until it finds something or the time is up.
    pub(crate) fn wait_for<T>(
        &self,
        mut probe: impl FnMut() -> Result<Option<T>, AttachError>,
    ) -> Result<Option<T>, AttachError> {
        let start = Instant::now();
        loop {
            if let Some(found) = probe()? {
                return Ok(Some(found));
            }
            if start.elapsed() >= self.timeout {
                return Ok(None);
            }
            std::thread::sleep(self.step);
        }
    }

    pub(crate) fn secs(&self) -> u64 {
        self.timeout.as_secs()
    }
}

/// What the kernel holds for an attachment, to undo it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Held {
    Nvme { controller: String, ip: IpAddr },
    Iscsi { session: u32, ip: IpAddr },
}

/// What a kind's attach found.
#[derive(Debug, Clone)]
pub(crate) struct Attached {
    pub held: Held,
    /// The disk's name (`nvme0n1`, `sdb`).
    pub disk: String,
    /// The sysfs stat file (relative) that counts this attachment's I/O.
    pub stat: String,
    pub negotiated: String,
    pub checks: Vec<OptionCheck>,
    pub transport: String,
    pub proof: String,
}

/// A remote block device attached with the kernel's own initiator.
pub struct Attachment {
    target: Target,
    options: AttachOptions,
    runner: Box<dyn Runner + Send>,
    sysfs: Sysfs,
    found: Attached,
    device: PathBuf,
    attached: bool,
}

impl fmt::Debug for Attachment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attachment")
            .field("target", &self.target)
            .field("options", &self.options.asked())
            .field("device", &self.device)
            .field("held", &self.found.held)
            .field("attached", &self.attached)
            .finish_non_exhaustive()
    }
}

impl Attachment {
    /// Connect/login, find the block device, read what was negotiated. A refused connect/login is
    /// [`AttachError::Refused`] carrying the tool's own last words (stderr, else stdout), the argv and
    /// exit status. Whatever fails after the kernel took the target is undone before returning.
    pub fn attach(
        target: &Target,
        options: &AttachOptions,
        runner: Box<dyn Runner + Send>,
        sysfs: Sysfs,
    ) -> Result<Attachment, AttachError> {
        Attachment::attach_with(target, options, runner, sysfs, Patience::DEFAULT)
    }

    pub(crate) fn attach_with(
        target: &Target,
        options: &AttachOptions,
        runner: Box<dyn Runner + Send>,
        sysfs: Sysfs,
        patience: Patience,
    ) -> Result<Attachment, AttachError> {
        if options.kind() != target.kind {
            return Err(AttachError::BadOption {
                kind: target.kind,
                option: options.asked(),
                why: format!("these were read as {} options, not {}", options.kind(), target.kind),
            });
        }
        let found = if target.kind.is_nvme() {
            nvme::attach(target, options, runner.as_ref(), &sysfs, patience)?
        } else {
            iscsi::attach(target, options, runner.as_ref(), &sysfs, patience)?
        };
        let device = Path::new("/dev").join(&found.disk);
        Ok(Attachment {
            target: target.clone(),
            options: options.clone(),
            runner,
            sysfs,
            found,
            device,
            attached: true,
        })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    pub fn options(&self) -> &AttachOptions {
        &self.options
    }

    /// The block device: `/dev/nvme0n1`, `/dev/sdb`.
    pub fn device(&self) -> &Path {
        &self.device
    }

    /// One line `key=value,...` of what the kernel holds.
    pub fn negotiated(&self) -> String {
        self.found.negotiated.clone()
    }

    /// One check per asked option.
    pub fn checks(&self) -> &[OptionCheck] {
        &self.found.checks
    }

    /// A human line for reports: `kernel NVMe/RDMA initiator, nvme0, 2 I/O queues × 128`.
    pub fn transport(&self) -> String {
        self.found.transport.clone()
    }

    /// The kernel state that proves the transport: `/sys/class/nvme/nvme0/transport = rdma, state = live`.
    pub fn proof(&self) -> String {
        self.found.proof.clone()
    }

    /// The device's counters now: `/sys/block/DEV/stat`, or for an NVMe multipath disk its path
    /// node's (the controller's share of it).
    pub fn stats(&self) -> Result<DiskStats, AttachError> {
        let rel = &self.found.stat;
        DiskStats::parse(&self.sysfs.read(rel)?, &self.sysfs.path(rel))
    }

    /// `nvme disconnect -d nvmeX`, or iscsiadm `--logout` then `-o delete` of the node record.
    pub fn detach(mut self) -> Result<(), AttachError> {
        self.attached = false;
        undo(&self.target, &self.found.held, self.runner.as_ref(), &self.sysfs)
    }
}

impl Drop for Attachment {
    fn drop(&mut self) {
        if self.attached {
            self.attached = false;
            let _ = undo(&self.target, &self.found.held, self.runner.as_ref(), &self.sysfs);
        }
    }
}

fn undo(target: &Target, held: &Held, runner: &dyn Runner, sysfs: &Sysfs) -> Result<(), AttachError> {
    match held {
        Held::Nvme { controller, ip } => nvme::detach(target, *ip, controller, runner, sysfs),
        Held::Iscsi { ip, .. } => iscsi::detach(target, *ip, runner),
    }
}

/// Detach whatever the kernel still holds for `target` (a run killed before it could detach):
/// controllers whose subsysnqn, transport and address match; iSCSI sessions whose targetname and
/// portal match (logout) and the node record. Returns what it undid, one line each.
pub fn sweep(target: &Target, runner: &dyn Runner, sysfs: &Sysfs) -> Result<Vec<String>, AttachError> {
    let ip = target.resolve()?;
    let (undone, failed) = if target.kind.is_nvme() {
        nvme::sweep(target, ip, runner, sysfs)?
    } else {
        iscsi::sweep(target, ip, runner, sysfs)?
    };
    if failed.is_empty() {
        Ok(undone)
    } else {
        Err(AttachError::Sweep { target: target.url(), undone, failed })
    }
}
