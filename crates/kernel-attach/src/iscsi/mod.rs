//! iSCSI and iSER with open-iscsi: a node record made for the target's portal (`iscsiadm -m node -o
//! new`), the asked settings written into it (`-o update`), `--login`; the session found in sysfs by
//! target name and portal, its SCSI host's driver checked against the kind, its first LUN's disk; and
//! `--logout` then `-o delete` of the record to undo it.
//!
//! Every node command names the iface (`default` for iscsi_tcp, `iser`), so a record of the other
//! kind for the same portal is never logged in alongside.

mod discover;
mod negotiated;

use std::net::IpAddr;

use crate::attachment::{Attached, Held, Patience};
use crate::error::AttachError;
use crate::options::AttachOptions;
use crate::runner::{load_module, refused, run_checked, Runner};
use crate::sysfs::Sysfs;
use crate::target::{host_port, Kind, Target};
use discover::{disk_of, driver_name, host_of, is_driver_of, sessions_for, Session, HOSTS, SESSIONS};
use negotiated::Negotiated;

pub(crate) const PROGRAM: &str = "iscsiadm";
/// open-iscsi include/iscsi_err.h ISCSI_ERR_NO_OBJS_FOUND: no record or session matched.
const NO_OBJS_FOUND: i32 = 21;

/// open-iscsi's built-in ifaces: `default` (iscsi_tcp) and `iser`.
pub(crate) fn iface(kind: Kind) -> &'static str {
    match kind {
        Kind::Iser => "iser",
        _ => "default",
    }
}

fn portal(target: &Target, ip: IpAddr) -> String {
    host_port(&ip.to_string(), target.port)
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// `-m node -T IQN -p PORTAL -I IFACE`.
fn node(target: &Target, ip: IpAddr) -> Vec<String> {
    strings(&["-m", "node", "-T", &target.name, "-p", &portal(target, ip), "-I", iface(target.kind)])
}

pub(crate) fn new_args(target: &Target, ip: IpAddr) -> Vec<String> {
    strings(&["-m", "node", "-o", "new", "-T", &target.name, "-p", &portal(target, ip), "-I", iface(target.kind)])
}

pub(crate) fn update_args(target: &Target, ip: IpAddr, setting: &str, value: &str) -> Vec<String> {
    let mut args = node(target, ip);
    args.extend(strings(&["-o", "update", "-n", setting, "-v", value]));
    args
}

pub(crate) fn login_args(target: &Target, ip: IpAddr) -> Vec<String> {
    let mut args = node(target, ip);
    args.push("--login".to_string());
    args
}

pub(crate) fn logout_args(target: &Target, ip: IpAddr) -> Vec<String> {
    let mut args = node(target, ip);
    args.push("--logout".to_string());
    args
}

pub(crate) fn delete_args(target: &Target, ip: IpAddr) -> Vec<String> {
    strings(&["-m", "node", "-o", "delete", "-T", &target.name, "-p", &portal(target, ip), "-I", iface(target.kind)])
}

pub(crate) fn session_logout_args(sid: u32) -> Vec<String> {
    strings(&["-m", "session", "-r", &sid.to_string(), "--logout"])
}

pub(crate) fn attach(
    target: &Target,
    options: &AttachOptions,
    runner: &dyn Runner,
    sysfs: &Sysfs,
    patience: Patience,
) -> Result<Attached, AttachError> {
    let ip = target.resolve()?;
    // A second login would fail in iscsiadm after `-o new` had rewritten the record in use.
    if let Some(held) = sessions_for(sysfs, target, ip)?.first() {
        return Err(AttachError::AlreadyAttached { target: target.url(), held: format!("iSCSI session {}", held.sid) });
    }
    // The SCSI disk driver gives the LUN its block device; udev loads it on demand, a system without
    // udev does not (the lab's guest: the LUN showed in lsscsi with no disk).
    load_module(runner, sysfs, "sd_mod")?;
    run_checked(runner, PROGRAM, &new_args(target, ip))?;
    let result = login_and_settle(target, options, runner, sysfs, ip, patience);
    if result.is_err() {
        // Leave nothing behind: no session, no record.
        let _ = detach(target, ip, runner);
    }
    result
}

fn login_and_settle(
    target: &Target,
    options: &AttachOptions,
    runner: &dyn Runner,
    sysfs: &Sysfs,
    ip: IpAddr,
    patience: Patience,
) -> Result<Attached, AttachError> {
    for asked in options.entries() {
        run_checked(runner, PROGRAM, &update_args(target, ip, asked.arg, &asked.value.text()))?;
    }
    run_checked(runner, PROGRAM, &login_args(target, ip))?;
    let not_found = |what: String| AttachError::NotFound { target: target.url(), what };
    let session = patience.wait_for(|| Ok(sessions_for(sysfs, target, ip)?.into_iter().next()))?.ok_or_else(|| {
        not_found(format!(
            "iscsiadm logged in but no session to {} at {} appeared in {} within {} s",
            target.name,
            portal(target, ip),
            sysfs.path(SESSIONS).display(),
            patience.secs()
        ))
    })?;
    let host = host_of(sysfs, &session)?.ok_or_else(|| {
        not_found(format!("{} leads to no SCSI host", sysfs.path(&format!("{}/device", session.dir())).display()))
    })?;
    let proc_name_rel = format!("{HOSTS}/{host}/proc_name");
    let proc_name = sysfs.read(&proc_name_rel)?;
    if !is_driver_of(&proc_name, target.kind) {
        return Err(AttachError::WrongTransport {
            target: target.url(),
            path: sysfs.path(&proc_name_rel),
            expected: driver_name(target.kind).to_string(),
            found: proc_name,
        });
    }
    // The SCSI scan may lag the login.
    let disk = patience.wait_for(|| disk_of(sysfs, &session))?.ok_or_else(|| AttachError::NoBlockDevice {
        target: target.url(),
        holder: format!("session {}", session.sid),
        looked: format!(
            "no targetH:C:T/H:C:T:L/block under {}",
            sysfs.path(&format!("{}/device", session.dir())).display()
        ),
        waited: patience.timeout,
    })?;
    let (transport, over) = if target.kind == Kind::Iser { ("iser", "iSER") } else { ("tcp", "TCP") };
    let neg = Negotiated::read(sysfs, transport, &session, &host, &disk)?;
    Ok(Attached {
        held: Held::Iscsi { session: session.sid, ip },
        negotiated: neg.line(),
        checks: negotiated::checks(options, &neg),
        transport: format!("kernel iSCSI initiator over {over}, session {}, {disk}", session.sid),
        proof: proof(sysfs, &proc_name_rel, &proc_name, &session, neg.state.as_deref()),
        stat: format!("block/{disk}/stat"),
        disk,
    })
}

fn proof(sysfs: &Sysfs, proc_name_rel: &str, proc_name: &str, session: &Session, state: Option<&str>) -> String {
    let mut proof = format!("{} = {proc_name}", sysfs.path(proc_name_rel).display());
    if let Some(state) = state {
        proof.push_str(&format!(", {} = {state}", sysfs.path(&format!("{}/state", session.dir())).display()));
    }
    proof
}

/// `--logout` then `-o delete` of the node record; either finding nothing is fine.
pub(crate) fn detach(target: &Target, ip: IpAddr, runner: &dyn Runner) -> Result<(), AttachError> {
    let logout = run_tolerant(runner, &logout_args(target, ip));
    let delete = run_tolerant(runner, &delete_args(target, ip));
    logout.and(delete).map(|_| ())
}

/// Logs out every session to `target`'s portal and deletes its node record: (undone, failed).
pub(crate) fn sweep(
    target: &Target,
    ip: IpAddr,
    runner: &dyn Runner,
    sysfs: &Sysfs,
) -> Result<(Vec<String>, Vec<String>), AttachError> {
    let (mut undone, mut failed) = (Vec::new(), Vec::new());
    let mut note = |result: Result<bool, AttachError>, line: String| match result {
        Ok(true) => undone.push(line),
        Ok(false) => {}
        Err(e) => failed.push(e.to_string()),
    };
    for session in sessions_for(sysfs, target, ip)? {
        let line = format!("logged out iSCSI session {} ({} at {})", session.sid, target.name, portal(target, ip));
        note(run_tolerant(runner, &session_logout_args(session.sid)), line);
    }
    let line = format!("deleted the node record {} {} (iface {})", target.name, portal(target, ip), iface(target.kind));
    note(run_tolerant(runner, &delete_args(target, ip)), line);
    Ok((undone, failed))
}

/// Runs iscsiadm: `true` when it did something, `false` when it found nothing to do.
fn run_tolerant(runner: &dyn Runner, args: &[String]) -> Result<bool, AttachError> {
    let out = runner.run(PROGRAM, args)?;
    match out.status {
        Some(0) => Ok(true),
        Some(NO_OBJS_FOUND) => Ok(false),
        _ => Err(refused(PROGRAM, args, &out)),
    }
}
