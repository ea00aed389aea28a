//! Finding an iSCSI session, its SCSI host and its disk in sysfs (drivers/scsi/scsi_transport_iscsi.c).
//!
//! - /sys/class/iscsi_session/sessionN: `targetname`, `state`, the session's parameters; its `device`
//!   links to .../hostM/sessionN, where the SCSI scan puts targetM:0:0/M:0:0:LUN/block/sdX.
//! - /sys/class/iscsi_connection/connectionN:C: `persistent_address`, `persistent_port` (the portal
//!   logged in to) and the connection's parameters.
//! - /sys/class/scsi_host/hostM/proc_name: the driver, `iscsi_tcp` or, for iSER, `iscsi_iser`
//!   (drivers/infiniband/ulp/iser/iscsi_iser.c); `iser` is accepted too.

use std::net::IpAddr;

use crate::error::AttachError;
use crate::sysfs::{numbered, Sysfs};
use crate::target::{same_address, Kind, Target};

pub(crate) const SESSIONS: &str = "class/iscsi_session";
pub(crate) const CONNECTIONS: &str = "class/iscsi_connection";
pub(crate) const HOSTS: &str = "class/scsi_host";

/// A session to a target's portal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Session {
    pub sid: u32,
    /// `connectionN:C`, its first connection.
    pub connection: String,
}

impl Session {
    pub(crate) fn dir(&self) -> String {
        format!("{SESSIONS}/session{}", self.sid)
    }

    pub(crate) fn connection_dir(&self) -> String {
        format!("{CONNECTIONS}/{}", self.connection)
    }
}

/// The sessions whose targetname is the target's and whose connection's persistent address and port
/// are its portal.
pub(crate) fn sessions_for(sysfs: &Sysfs, target: &Target, ip: IpAddr) -> Result<Vec<Session>, AttachError> {
    let connections = sysfs.list(CONNECTIONS)?;
    let mut found = Vec::new();
    for name in sysfs.list(SESSIONS)? {
        let Some(sid) = numbered(&name, "session") else { continue };
        // A session being torn down loses its files: not one to find.
        let Some(targetname) = sysfs.read_opt(&format!("{SESSIONS}/{name}/targetname"))? else { continue };
        if targetname != target.name {
            continue;
        }
        let prefix = format!("connection{sid}:");
        let Some(connection) = connections.iter().find(|c| c.starts_with(&prefix)) else { continue };
        let dir = format!("{CONNECTIONS}/{connection}");
        let (Some(address), Some(port)) = (
            sysfs.read_opt(&format!("{dir}/persistent_address"))?,
            sysfs.read_num_opt::<u16>(&format!("{dir}/persistent_port"))?,
        ) else {
            continue;
        };
        if same_address(&address, ip) && port == target.port {
            found.push(Session { sid, connection: connection.clone() });
        }
    }
    Ok(found)
}

/// The SCSI host of a session (`host2`): the `hostM` its `device` link leads under, else the host
/// number in its `targetM:C:T` directory.
pub(crate) fn host_of(sysfs: &Sysfs, session: &Session) -> Result<Option<String>, AttachError> {
    let device = format!("{}/device", session.dir());
    if let Some(resolved) = sysfs.resolve(&device)? {
        let host = resolved
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .rfind(|c| numbered(c, "host").is_some())
            .map(str::to_string);
        if host.is_some() {
            return Ok(host);
        }
    }
    Ok(sysfs
        .list(&device)?
        .iter()
        .filter_map(|t| t.strip_prefix("target")?.split(':').next()?.parse::<u32>().ok())
        .map(|h| format!("host{h}"))
        .next())
}

/// Whether a host's `proc_name` is the driver of `kind`.
pub(crate) fn is_driver_of(proc_name: &str, kind: Kind) -> bool {
    match kind {
        Kind::Iser => proc_name == "iscsi_iser" || proc_name == "iser",
        _ => proc_name == "iscsi_tcp",
    }
}

/// The driver name `kind` expects, for a message.
pub(crate) fn driver_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Iser => "iscsi_iser",
        _ => "iscsi_tcp",
    }
}

/// The disk of the session's first LUN that has one (`sdb`); `None` while the SCSI scan has not
/// created it.
pub(crate) fn disk_of(sysfs: &Sysfs, session: &Session) -> Result<Option<String>, AttachError> {
    let device = format!("{}/device", session.dir());
    let mut luns: Vec<((u32, u32, u64), String)> = Vec::new();
    for target_dir in sysfs.list(&device)?.into_iter().filter(|t| t.starts_with("target")) {
        for lun in sysfs.list(&format!("{device}/{target_dir}"))? {
            if let Some(hctl) = parse_hctl(&lun) {
                luns.push((hctl, format!("{device}/{target_dir}/{lun}")));
            }
        }
    }
    luns.sort();
    for (_, dir) in luns {
        if let Some(disk) = sysfs.list(&format!("{dir}/block"))?.into_iter().next() {
            return Ok(Some(disk));
        }
    }
    Ok(None)
}

/// `H:C:T:L` → numbers, ordered by channel, target, LUN.
fn parse_hctl(name: &str) -> Option<(u32, u32, u64)> {
    let mut parts = name.split(':');
    let (h, c, t, l) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    h.parse::<u32>().ok()?;
    Some((c.parse().ok()?, t.parse().ok()?, l.parse().ok()?))
}
