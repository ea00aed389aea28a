//! `nfsbench run --engine kernel --target //HOST/SHARE -o vers=3.1.1,rdma,...`: the kernel's SMB client
//! (cifs) on a mount of its own in the run's private namespace. What it negotiated comes from
//! /proc/fs/cifs/DebugData (dialect, SMB Direct, channels) and the mount's line in /proc/self/mounts
//! (rsize, wsize, ...); its per-share counters over the run from /proc/fs/cifs/Stats.

use crate::error::CliError;
use cifs_stats::{CommandTimes, Connection, ShareStats, Stats};
use kernel_mount::{FsMount, KernelMountError};
use mountstats::{OptionCheck, Verdict};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

const DEBUG_DATA: &str = "/proc/fs/cifs/DebugData";
/// How long to wait for the extra channels of a multichannel mount.
const CHANNEL_WAIT: Duration = Duration::from_secs(5);
const STATS: &str = "/proc/fs/cifs/Stats";
/// MS-SMB2 2.2.1: the command codes of READ and WRITE, as the Stats command table numbers them.
const SMB2_READ: u16 = 8;
const SMB2_WRITE: u16 = 9;

/// A mounted share with what it negotiated.
#[derive(Debug)]
pub struct KernelSmb {
    mount: FsMount,
    unc: String,
    connection: Connection,
    mount_line: String,
    checks: Vec<OptionCheck>,
    before: Counters,
}

/// The share's counters and its connection's READ and WRITE times at one moment.
#[derive(Debug, Clone, Default)]
struct Counters {
    share: ShareStats,
    read: CommandTimes,
    write: CommandTimes,
    /// The kernel's HZ as Stats states it (the command table's times are in jiffies).
    hz: u64,
}

impl KernelSmb {
    /// Mount `target` (`//HOST/SHARE`) with `options` under `parent`; a refused mount is a failure
    /// carrying mount.cifs's words, a bad target bad usage.
    pub fn mount(target: &str, options: &str, parent: &Path) -> Result<KernelSmb, CliError> {
        let failed = |what: String| CliError::Failed(what);
        let mount = FsMount::mount(target, options, parent).map_err(|e| match e {
            e @ KernelMountError::BadShare { .. } => CliError::Usage(e.to_string()),
            e => CliError::Failed(e.to_string()),
        })?;
        let unc =
            cifs_stats::unc_of_target(target).ok_or_else(|| failed(format!("{target}: no \\\\HOST\\SHARE in it")))?;
        // cifs opens extra channels in the background after the mount returns (observed in the lab): wait
        // a little for the channels asked before reading what was granted.
        let wanted = channels_asked(options);
        let deadline = Instant::now() + CHANNEL_WAIT;
        let connection = loop {
            let debug = read(DEBUG_DATA)?;
            let parsed = cifs_stats::parse_debug_data(&debug).map_err(|e| failed(format!("{DEBUG_DATA}: {e}")))?;
            let connection = parsed.for_share(target).cloned().ok_or_else(|| {
                failed(format!("{target}: mounted, but {DEBUG_DATA} shows no connection holding {unc}"))
            })?;
            if connection.channels >= wanted || Instant::now() >= deadline {
                break connection;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let mount_line = mount_options(mount.point())?;
        let checks = cifs_stats::check_options(options, &connection, &mount_line);
        let before = counters(&unc)?;
        Ok(KernelSmb { mount, unc, connection, mount_line, checks, before })
    }

    pub fn point(&self) -> &Path {
        self.mount.point()
    }

    pub fn differences(&self) -> Vec<String> {
        super::differences(&self.checks)
    }

    /// `dialect=3.1.1,transport=rdma,channels=1,` then the mount's options as the kernel prints them.
    pub fn negotiated(&self) -> String {
        let c = &self.connection;
        let dialect = c.dialect.as_deref().unwrap_or("unknown");
        let transport = if c.rdma { "rdma" } else { "tcp" };
        format!(
            "dialect={dialect},transport={transport},channels={},{}",
            c.channels,
            compare::plan::masked(&self.mount_line)
        )
    }

    /// "kernel SMB client, SMB 3.1.1 over SMB Direct (RDMA), 1 channel".
    pub fn transport(&self) -> String {
        let c = &self.connection;
        let over = if c.rdma { "SMB Direct (RDMA)" } else { "TCP" };
        let plural = if c.channels == 1 { "" } else { "s" };
        format!(
            "kernel SMB client, SMB {} over {over}, {} channel{plural}",
            c.dialect.as_deref().unwrap_or("?"),
            c.channels
        )
    }

    /// The kernel state that proves the transport: the connection in DebugData holding the share.
    pub fn proof(&self) -> String {
        let c = &self.connection;
        let transport = match &c.smbd {
            Some(d) => format!("an SMBDirect section (protocol version {:x})", d.protocol_version),
            None if c.rdma => "an SMBDirect section".to_string(),
            None => "no SMBDirect section (TCP)".to_string(),
        };
        format!(
            "{DEBUG_DATA}: {} on the connection to {} with {transport}, dialect {}",
            self.unc,
            c.hostname,
            c.dialect.as_deref().unwrap_or("unknown")
        )
    }

    /// The share's counters over the run, the share unmounted, and the `nfsbench.kernel` JSON section.
    pub fn finish(self) -> Result<Value, CliError> {
        let after = counters(&self.unc)?;
        let share = after.share.delta(&self.before.share);
        let read = after.read.delta(&self.before.read);
        let write = after.write.delta(&self.before.write);
        let hz = after.hz;
        let section = json!({
            "kind": "smb",
            "target": self.mount.target(),
            "asked": compare::plan::masked(self.mount.asked()),
            "negotiated": self.negotiated(),
            "transports": self.connection.channels,
            "transport": self.transport(),
            "proof": self.proof(),
            "differs": self.differences(),
            "negotiation_differs": self.checks.iter().any(|c| c.verdict == Verdict::Differs),
            "checks": self.checks,
            "window": {
                "io": {
                    "source": "SMB client",
                    "read_ios": share.reads,
                    "write_ios": share.writes,
                    "bytes_read": share.bytes_read,
                    "bytes_written": share.bytes_written,
                    "read_ticks_ms": read.total_jiffies as f64 * 1000.0 / hz as f64,
                    "write_ticks_ms": write.total_jiffies as f64 * 1000.0 / hz as f64,
                },
                "smb": {
                    "smbs": share.smbs,
                    "reads_failed": share.reads_failed,
                    "writes_failed": share.writes_failed,
                    "others": share.others,
                },
            },
        });
        self.mount.unmount().map_err(|e| CliError::Failed(e.to_string()))?;
        Ok(section)
    }
}

/// The channels a mount asks for: `max_channels=N` with `multichannel` (2 when not given, as
/// fs/smb/client/fs_context.c defaults it), else 1.
fn channels_asked(options: &str) -> u32 {
    let entries: Vec<_> = mount_options::entries(options).collect();
    if !entries.iter().any(|e| e.key == "multichannel") {
        return 1;
    }
    entries.iter().rev().find(|e| e.key == "max_channels").and_then(|e| e.value?.parse().ok()).unwrap_or(2)
}

fn read(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::Failed(format!("reading {path}: {e}")))
}

/// The share's counters now.
fn counters(unc: &str) -> Result<Counters, CliError> {
    let stats: Stats = cifs_stats::parse_stats(&read(STATS)?).map_err(|e| CliError::Failed(format!("{STATS}: {e}")))?;
    let share =
        stats.share(unc).cloned().ok_or_else(|| CliError::Failed(format!("{STATS} has no counters for {unc}")))?;
    let times = |code: u16| stats.commands.get(&code).cloned().unwrap_or_default();
    let hz = stats.hz.filter(|&hz| hz > 0).unwrap_or(cifs_stats::DEBIAN_HZ);
    Ok(Counters { share, read: times(SMB2_READ), write: times(SMB2_WRITE), hz })
}

/// The options field of the mount at `point` in /proc/self/mounts (cifs_show_options).
fn mount_options(point: &Path) -> Result<String, CliError> {
    let mounts = read("/proc/self/mounts")?;
    let point = point.display().to_string();
    mounts
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() >= 4 && f[1] == point && f[2] == "cifs")
        .map(|f| f[3].to_string())
        .ok_or_else(|| CliError::Failed(format!("{point}: mounted, but /proc/self/mounts shows no cifs mount there")))
}
