//! The MOUNT program, version 3 (RFC 1813 Appendix I): how clients get an export's root handle.
//!
//! - MNT: the export whose path equals the requested one (a trailing '/' ignored), or a directory below
//!   an export, found by looking its components up (as knfsd lets clients mount subdirectories). The
//!   client must pass the export's network and secure-port rules (else MNT3ERR_ACCES, as rpc.mountd);
//!   an unknown path is MNT3ERR_NOENT. The reply lists AUTH_SYS as the only flavor, as rpc.mountd does for
//!   a `sec=sys` export (AUTH_NONE calls are still served, as anonymous).
//! - DUMP lists the (client address, path) pairs recorded by MNT (bounded), UMNT and UMNTALL remove them.
//! - EXPORT lists every export with its allowed networks (none: everyone).

use std::collections::BTreeSet;
use std::sync::Mutex;

use nfs3_proto::mount::{
    DirPath, ExportNode, Exports, MntName, MountBody, MountErr3, MountList, MountRes3, MountRes3Ok,
};
use nfs3_proto::{DecodeError, Ftype3, MountCall, MountReply};
use onc_rpc::{AcceptStat, AuthFlavor};
use tracing::{info, warn};
use xdr::XdrEncode;

use crate::backend::FileId;
use crate::exports::{canonical_ip, Export};
use crate::rpc::{success_writer, Outcome};
use crate::{ConnectionInfo, Reply, Server};

/// Most (client, path) pairs remembered for DUMP; MNTs beyond it still succeed, unrecorded.
const MAX_RECORDED_MOUNTS: usize = 4096;

/// The mounts clients told us about (RFC 1813 §5.2.2: informational only).
#[derive(Debug, Default)]
pub(crate) struct MountTable {
    entries: Mutex<BTreeSet<(String, String)>>,
}

impl MountTable {
    fn with<T>(&self, f: impl FnOnce(&mut BTreeSet<(String, String)>) -> T) -> T {
        let mut guard = self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        f(&mut guard)
    }
}

/// Executes MOUNT v3 procedure `proc`.
pub(crate) fn call(server: &Server, conn: &ConnectionInfo, xid: u32, proc: u32, args: &[u8]) -> Outcome {
    let call = match MountCall::decode(proc, args) {
        Ok(call) => call,
        Err(DecodeError::UnknownProcedure(_)) => return Outcome::Refused(AcceptStat::ProcUnavail),
        Err(DecodeError::Xdr(err)) => {
            warn!(xid, proc, peer = %conn.peer, %err, "MOUNT arguments do not decode");
            return Outcome::Refused(AcceptStat::GarbageArgs);
        }
    };
    let host = canonical_ip(conn.peer.ip()).to_string();
    let exports_owned;
    let mounts_owned;
    let (reply, status) = match call {
        MountCall::Null => (MountReply::Null, 0),
        MountCall::Mnt(DirPath(path)) => {
            let res = mnt(server, conn, &host, path);
            let status = res.status().as_u32();
            (MountReply::Mnt(res), status)
        }
        MountCall::Dump => {
            mounts_owned = server.mounts.with(|m| m.iter().cloned().collect::<Vec<_>>());
            let list = mounts_owned
                .iter()
                .map(|(h, p)| MountBody { ml_hostname: MntName(h.as_bytes()), ml_directory: DirPath(p.as_bytes()) })
                .collect();
            (MountReply::Dump(MountList(list)), 0)
        }
        MountCall::Umnt(DirPath(path)) => {
            let path = String::from_utf8_lossy(trim_path(path)).into_owned();
            server.mounts.with(|m| m.remove(&(host.clone(), path)));
            (MountReply::Umnt, 0)
        }
        MountCall::Umntall => {
            server.mounts.with(|m| m.retain(|(h, _)| *h != host));
            (MountReply::Umntall, 0)
        }
        MountCall::Export => {
            exports_owned = server.exports.iter().map(|e| (e.path.as_str(), e.group_names())).collect::<Vec<_>>();
            let nodes = exports_owned
                .iter()
                .map(|(path, groups)| ExportNode {
                    ex_dir: DirPath(path.as_bytes()),
                    ex_groups: groups.iter().map(|g| MntName(g.as_bytes())).collect(),
                })
                .collect();
            (MountReply::Export(Exports(nodes)), 0)
        }
    };
    let mut w = success_writer(xid, 128);
    reply.encode(&mut w);
    Outcome::Done { reply: Reply::from_inline(w.into_vec()), status }
}

/// MNT (RFC 1813 §5.2.1).
fn mnt(server: &Server, conn: &ConnectionInfo, host: &str, path: &[u8]) -> MountRes3 {
    let path = trim_path(path);
    let Some((export, rest)) = find_export(&server.exports, path) else {
        info!(peer = %conn.peer, path = %String::from_utf8_lossy(path), "MNT of a path that is not exported");
        return MountRes3::Fail(MountErr3::NoEnt);
    };
    if let Err(refusal) = export.admit(conn.peer) {
        warn!(peer = %conn.peer, export = %export.path, ?refusal, "MNT refused");
        return MountRes3::Fail(MountErr3::Acces);
    }
    let file = match walk(export, rest) {
        Ok(file) => file,
        Err(e) => return MountRes3::Fail(e),
    };
    let text = String::from_utf8_lossy(path).into_owned();
    server.mounts.with(|m| {
        if m.len() < MAX_RECORDED_MOUNTS {
            m.insert((host.to_string(), text));
        }
    });
    info!(peer = %conn.peer, export = %export.path, "MNT");
    MountRes3::Ok(MountRes3Ok {
        fhandle: server.handles.encode(export.index, file),
        auth_flavors: vec![AuthFlavor::AUTH_SYS.0],
    })
}

/// A path without trailing slashes (but "/" stays "/").
fn trim_path(path: &[u8]) -> &[u8] {
    let mut end = path.len();
    while end > 1 && path.get(end - 1) == Some(&b'/') {
        end -= 1;
    }
    path.get(..end).unwrap_or(path)
}

/// The export for `path`: an exact match, else the longest export that is a directory prefix of it,
/// with the rest of the path (components below the export).
fn find_export<'e, 'p>(exports: &'e [Export], path: &'p [u8]) -> Option<(&'e Export, &'p [u8])> {
    if let Some(e) = exports.iter().find(|e| e.path.as_bytes() == path) {
        return Some((e, &[]));
    }
    exports
        .iter()
        .filter_map(|e| {
            let base = e.path.as_bytes();
            let rest = path.strip_prefix(base)?;
            let rest = if base == b"/" { rest } else { rest.strip_prefix(b"/")? };
            Some((e, rest))
        })
        .max_by_key(|(e, _)| e.path.len())
}

/// Looks the components of `rest` up from the export's root; every one must be a directory.
fn walk(export: &Export, rest: &[u8]) -> Result<FileId, MountErr3> {
    let backend = &*export.backend;
    let mut file = export.root;
    for component in rest.split(|&b| b == b'/').filter(|c| !c.is_empty()) {
        if component == b"." || component == b".." {
            return Err(MountErr3::NoEnt);
        }
        file = backend.lookup(file, component).map_err(|_| MountErr3::NoEnt)?;
        let attrs = backend.getattr(file).map_err(|_| MountErr3::NoEnt)?;
        if attrs.ftype != Ftype3::Dir {
            return Err(MountErr3::NotDir);
        }
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trailing_slashes_are_ignored_but_root_stays_root() {
        assert_eq!(trim_path(b"/export///"), b"/export");
        assert_eq!(trim_path(b"/"), b"/");
        assert_eq!(trim_path(b"//"), b"/");
    }
}
