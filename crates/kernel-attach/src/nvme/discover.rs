//! Finding a fabrics controller and its namespace's disk under /sys/class/nvme.
//!
//! A controller `nvmeX` shows `transport`, `address` (`traddr=A,trsvcid=P`, then `host_traddr=`,
//! `host_iface=` when given and, over TCP, `src_addr=`: drivers/nvme/host/fabrics.c
//! nvmf_get_address, tcp.c nvme_tcp_get_address), `subsysnqn` and `state`. Its namespaces' disk is
//! in one of two layouts:
//! - without native multipath, `nvmeXnZ` is a child of the controller: /sys/class/nvme/nvmeX/nvmeXnZ;
//! - with native multipath (nvme_core.multipath=Y, Debian's default), the controller holds hidden
//!   path nodes `nvmeScXnZ` and the disk `nvmeSnZ` is a child of the subsystem:
//!   /sys/class/nvme-subsystem/nvme-subsysS/nvmeSnZ, that directory holding a link `nvmeX` to each
//!   of its controllers (drivers/nvme/host/multipath.c, core.c nvme_init_subsystem).

use std::net::IpAddr;

use crate::error::AttachError;
use crate::sysfs::{numbered, Sysfs};
use crate::target::{same_address, Kind, Target};

pub(crate) const CLASS: &str = "class/nvme";
const SUBSYSTEMS: &str = "class/nvme-subsystem";

/// The transport name the kernel shows for an NVMe kind.
pub(crate) fn transport_name(kind: Kind) -> &'static str {
    match kind {
        Kind::NvmeRdma => "rdma",
        _ => "tcp",
    }
}

/// The controllers the kernel holds (`nvme0`, `nvme1`, ...), fabrics and PCIe alike.
pub(crate) fn controllers(sysfs: &Sysfs) -> Result<Vec<String>, AttachError> {
    Ok(sysfs.list(CLASS)?.into_iter().filter(|n| numbered(n, "nvme").is_some()).collect())
}

/// What identifies a controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Identity {
    pub subsysnqn: String,
    pub transport: String,
    pub address: String,
    pub state: String,
}

impl Identity {
    /// `None` when the controller is gone (or going: its directory lacks one of the files).
    pub(crate) fn read(sysfs: &Sysfs, controller: &str) -> Result<Option<Identity>, AttachError> {
        let file = |name: &str| sysfs.read_opt(&format!("{CLASS}/{controller}/{name}"));
        let (Some(subsysnqn), Some(transport), Some(address), Some(state)) =
            (file("subsysnqn")?, file("transport")?, file("address")?, file("state")?)
        else {
            return Ok(None);
        };
        Ok(Some(Identity { subsysnqn, transport, address, state }))
    }

    /// A field of the address (`traddr`, `trsvcid`, `host_traddr`, `src_addr`).
    pub(crate) fn address_field(&self, key: &str) -> Option<&str> {
        self.address
            .split(',')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| k.trim() == key)
            .map(|(_, v)| v.trim())
    }

    /// Whether this is a controller of `target` reached at `ip`.
    pub(crate) fn is_for(&self, target: &Target, ip: IpAddr) -> bool {
        self.subsysnqn == target.name
            && self.transport == transport_name(target.kind)
            && self.address_field("traddr").is_some_and(|a| same_address(a, ip))
            && self.address_field("trsvcid").and_then(|p| p.parse::<u16>().ok()) == Some(target.port)
    }

    pub(crate) fn is_live(&self) -> bool {
        self.state == "live"
    }
}

/// The controllers of `target` at `ip`, whatever their state.
pub(crate) fn matching(sysfs: &Sysfs, target: &Target, ip: IpAddr) -> Result<Vec<(String, Identity)>, AttachError> {
    let mut found = Vec::new();
    for name in controllers(sysfs)? {
        if let Some(identity) = Identity::read(sysfs, &name)? {
            if identity.is_for(target, ip) {
                found.push((name, identity));
            }
        }
    }
    Ok(found)
}

/// The controller nvme-cli named on stdout (`device: nvme3`, or `"device" : "nvme3"` in JSON).
pub(crate) fn named_in(stdout: &str) -> Option<String> {
    stdout.split(|c: char| !c.is_ascii_alphanumeric()).find(|word| numbered(word, "nvme").is_some()).map(str::to_string)
}

/// A namespace's disk and the stat file that counts this controller's I/O to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Disk {
    /// The block device's name (`nvme0n1`).
    pub name: String,
    /// The sysfs file (relative) whose counters move with this controller's I/O: under native
    /// multipath the hidden path node's (`class/nvme/nvme0/nvme0c0n1/stat`), because Linux 6.1 turns
    /// iostats off on the multipath disk and its stat never moves (observed in the lab).
    pub stat: String,
}

/// The disk of the controller's first namespace (`nvme0n1`), in either layout; `None` while the
/// kernel has not scanned the namespaces yet (the scan runs after the connect returns).
pub(crate) fn namespace_disk(sysfs: &Sysfs, controller: &str) -> Result<Option<Disk>, AttachError> {
    let entries = sysfs.list(&format!("{CLASS}/{controller}"))?;
    let mut direct: Vec<(u32, &String)> =
        entries.iter().filter_map(|e| disk_numbers(e).map(|(_, ns)| (ns, e))).collect();
    direct.sort();
    if let Some((_, disk)) = direct.first() {
        return Ok(Some(Disk { name: (*disk).clone(), stat: format!("block/{disk}/stat") }));
    }
    let mut paths: Vec<(u32, u32, &String)> =
        entries.iter().filter_map(|e| path_numbers(e).map(|(subsys, _, ns)| (ns, subsys, e))).collect();
    if paths.is_empty() {
        return Ok(None);
    }
    paths.sort();
    let Some(subsystem) = subsystem_of(sysfs, controller)? else { return Ok(None) };
    for (ns, subsys, path) in paths {
        let disk = format!("nvme{subsys}n{ns}");
        if sysfs.exists(&format!("{SUBSYSTEMS}/{subsystem}/{disk}")) {
            return Ok(Some(Disk { name: disk, stat: format!("{CLASS}/{controller}/{path}/stat") }));
        }
    }
    Ok(None)
}

/// Where [`namespace_disk`] looked, for a message.
pub(crate) fn disk_places(sysfs: &Sysfs, controller: &str) -> String {
    format!(
        "no {controller}nZ in {}, nor a multipath disk beside {controller} in {}",
        sysfs.path(&format!("{CLASS}/{controller}")).display(),
        sysfs.path(SUBSYSTEMS).display()
    )
}

/// The subsystem directory holding a link to `controller`.
fn subsystem_of(sysfs: &Sysfs, controller: &str) -> Result<Option<String>, AttachError> {
    Ok(sysfs
        .list(SUBSYSTEMS)?
        .into_iter()
        .filter(|s| numbered(s, "nvme-subsys").is_some())
        .find(|s| sysfs.exists(&format!("{SUBSYSTEMS}/{s}/{controller}"))))
}

/// `nvme{A}n{B}` → (A, B).
fn disk_numbers(name: &str) -> Option<(u32, u32)> {
    let (a, b) = name.strip_prefix("nvme")?.split_once('n')?;
    Some((digits(a)?, digits(b)?))
}

/// `nvme{A}c{B}n{C}` → (A, B, C).
fn path_numbers(name: &str) -> Option<(u32, u32, u32)> {
    let (a, rest) = name.strip_prefix("nvme")?.split_once('c')?;
    let (b, c) = rest.split_once('n')?;
    Some((digits(a)?, digits(b)?, digits(c)?))
}

fn digits(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}
