//! NVMe over Fabrics (TCP, RDMA) with nvme-cli: `nvme connect`, the new controller found in sysfs by
//! its subsystem, transport and address (scanned before and after, so a controller someone else holds
//! is never taken), its namespace's disk, and `nvme disconnect -d nvmeX` to undo it.

mod discover;
mod negotiated;

use std::collections::HashSet;
use std::net::IpAddr;

use crate::attachment::{Attached, Held, Patience};
use crate::error::AttachError;
use crate::options::{AttachOptions, Value};
use crate::runner::{load_module, run_checked, Runner};
use crate::sysfs::{online_cpus, Sysfs};
use crate::target::Target;
use discover::{controllers, matching, namespace_disk, transport_name, Identity, CLASS};
use negotiated::Negotiated;

pub(crate) const PROGRAM: &str = "nvme";

/// `connect -t rdma -a ADDR -s PORT -n NQN` and the asked options as nvme-cli's short flags.
pub(crate) fn connect_args(target: &Target, ip: IpAddr, options: &AttachOptions) -> Vec<String> {
    let mut args: Vec<String> = ["connect", "-t", transport_name(target.kind), "-a"].map(String::from).to_vec();
    args.push(ip.to_string());
    args.extend(["-s".to_string(), target.port.to_string(), "-n".to_string(), target.name.clone()]);
    for asked in options.entries() {
        args.push(asked.arg.to_string());
        if asked.value != Value::Flag {
            args.push(asked.value.text());
        }
    }
    args
}

/// The host driver of a kind: nvme-cli writes to /dev/nvme-fabrics, which exists only once a fabrics
/// driver is loaded, and loads none itself ("Failed to scan topology" without it, seen in the lab).
fn module_name(kind: crate::target::Kind) -> &'static str {
    match kind {
        crate::target::Kind::NvmeRdma => "nvme_rdma",
        _ => "nvme_tcp",
    }
}

pub(crate) fn disconnect_args(controller: &str) -> Vec<String> {
    ["disconnect", "-d", controller].map(String::from).to_vec()
}

pub(crate) fn attach(
    target: &Target,
    options: &AttachOptions,
    runner: &dyn Runner,
    sysfs: &Sysfs,
    patience: Patience,
) -> Result<Attached, AttachError> {
    let ip = target.resolve()?;
    load_module(runner, sysfs, module_name(target.kind))?;
    let before: HashSet<String> = controllers(sysfs)?.into_iter().collect();
    let out = run_checked(runner, PROGRAM, &connect_args(target, ip, options))?;
    let hint = discover::named_in(&out.stdout);
    let controller = find_new(target, ip, runner, sysfs, &before, hint.as_deref(), patience)?;
    let result = settle(target, options, sysfs, &controller, ip, patience);
    if result.is_err() {
        // Ours and unusable: leave nothing behind.
        let _ = detach(target, ip, &controller, runner, sysfs);
    }
    result
}

/// The one live controller of `target` that was not there before the connect.
fn find_new(
    target: &Target,
    ip: IpAddr,
    runner: &dyn Runner,
    sysfs: &Sysfs,
    before: &HashSet<String>,
    hint: Option<&str>,
    patience: Patience,
) -> Result<String, AttachError> {
    let mut fresh: Vec<(String, Identity)> = Vec::new();
    let found = patience.wait_for(|| {
        fresh = matching(sysfs, target, ip)?.into_iter().filter(|(name, _)| !before.contains(name)).collect();
        let live: Vec<&String> = fresh.iter().filter(|(_, id)| id.is_live()).map(|(name, _)| name).collect();
        Ok(match live.as_slice() {
            [] => None,
            [one] => Some(Ok((*one).clone())),
            many => match hint.and_then(|h| many.iter().find(|n| n.as_str() == h)) {
                Some(named) => Some(Ok((*named).clone())),
                None => Some(Err(many.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", "))),
            },
        })
    })?;
    match found {
        Some(Ok(name)) => Ok(name),
        Some(Err(candidates)) => Err(AttachError::Ambiguous { target: target.url(), candidates }),
        None => {
            let what = match fresh.first() {
                Some((name, id)) => {
                    let _ = run_checked(runner, PROGRAM, &disconnect_args(name));
                    format!("{name} stayed in state '{}' for {} s (disconnected it)", id.state, patience.secs())
                }
                None => format!(
                    "nvme connect succeeded but no new {} controller for {} at {} appeared in {} within {} s",
                    transport_name(target.kind),
                    target.name,
                    crate::target::host_port(&ip.to_string(), target.port),
                    sysfs.path(CLASS).display(),
                    patience.secs()
                ),
            };
            Err(AttachError::NotFound { target: target.url(), what })
        }
    }
}

/// The controller's disk, negotiated state and checks.
fn settle(
    target: &Target,
    options: &AttachOptions,
    sysfs: &Sysfs,
    controller: &str,
    ip: IpAddr,
    patience: Patience,
) -> Result<Attached, AttachError> {
    let disk = patience.wait_for(|| namespace_disk(sysfs, controller))?.ok_or_else(|| AttachError::NoBlockDevice {
        target: target.url(),
        holder: format!("controller {controller}"),
        looked: discover::disk_places(sysfs, controller),
        waited: patience.timeout,
    })?;
    let identity = Identity::read(sysfs, controller)?.ok_or_else(|| AttachError::NotFound {
        target: target.url(),
        what: format!("{controller} went away from {} while being read", sysfs.path(CLASS).display()),
    })?;
    let neg = Negotiated::read(sysfs, controller, identity)?;
    // The CPU count only sharpens a note: a missing or odd file leaves the note general.
    let cpus = online_cpus(sysfs).ok().flatten();
    let transport_file = sysfs.path(&format!("{CLASS}/{controller}/transport"));
    Ok(Attached {
        held: Held::Nvme { controller: controller.to_string(), ip },
        disk: disk.name,
        stat: disk.stat,
        negotiated: neg.line(),
        checks: negotiated::checks(target.kind, options, &neg, cpus),
        transport: format!(
            "kernel {} initiator, {controller}, {} I/O queues × {}",
            target.kind.label(),
            neg.io_queues(),
            neg.queue_size()
        ),
        proof: format!("{} = {}, state = {}", transport_file.display(), neg.identity.transport, neg.identity.state),
    })
}

/// `nvme disconnect -d CONTROLLER`, when the controller is still the target's: a controller the kernel
/// dropped (ctrl_loss_tmo) may have had its name reused by someone else's.
pub(crate) fn detach(
    target: &Target,
    ip: IpAddr,
    controller: &str,
    runner: &dyn Runner,
    sysfs: &Sysfs,
) -> Result<(), AttachError> {
    match Identity::read(sysfs, controller)? {
        Some(id) if id.is_for(target, ip) => run_checked(runner, PROGRAM, &disconnect_args(controller)).map(|_| ()),
        _ => Ok(()),
    }
}

/// Disconnects every controller of `target`, whatever its state: (undone, failed), one line each.
pub(crate) fn sweep(
    target: &Target,
    ip: IpAddr,
    runner: &dyn Runner,
    sysfs: &Sysfs,
) -> Result<(Vec<String>, Vec<String>), AttachError> {
    let (mut undone, mut failed) = (Vec::new(), Vec::new());
    for (name, id) in matching(sysfs, target, ip)? {
        match run_checked(runner, PROGRAM, &disconnect_args(&name)) {
            Ok(_) => undone.push(format!(
                "disconnected {name} ({} {} at {}, state {})",
                target.kind,
                target.name,
                crate::target::host_port(&ip.to_string(), target.port),
                id.state
            )),
            Err(e) => failed.push(e.to_string()),
        }
    }
    Ok((undone, failed))
}
