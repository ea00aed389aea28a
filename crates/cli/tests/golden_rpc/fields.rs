//! Our side of the tshark comparison for a TCP record: the RPC header, then the body by program
//! (NFSv3 in `nfs3_fields`, MOUNTv3, port mapper / rpcbind, NFS_ACL), keyed as the index's `tshark{}`.

use nfs3_proto::mount::MountRes3;
use nfs3_proto::{FileHandle3, MountCall, MountReply, PostOpAttr};
use nfsbench::inspect::{decode_call, decode_reply, Body, CallKey};
use onc_rpc::portmap::Mapping;
use onc_rpc::rpcbind::Rpcb;
use onc_rpc::{AcceptStat, AuthFlavor, AuthSysParms, MessageBody, RejectedReply, ReplyBody, RpcMessage};
use onc_rpc::{NFS_ACL_PROGRAM, PMAP_PROGRAM};
use serde_json::Value;
use xdr::{XdrDecode, XdrError, XdrReader};

use crate::golden_support::{number_of, text, text_of, Fields};
use crate::nfs3_fields::{fh, nfs3_call_fields, nfs3_reply_fields};

fn rpc_header_fields(f: &mut Fields, message: &RpcMessage<'_>) {
    f.first("xid", message.xid);
    match &message.body {
        MessageBody::Call(c) => {
            f.first("rpc_version", c.rpcvers);
            f.first("program", c.prog);
            f.first("program_version", c.vers);
            f.first("procedure", c.proc);
            f.first("cred_flavor", c.cred.flavor.0);
            if c.cred.flavor == AuthFlavor::AUTH_SYS {
                match AuthSysParms::from_opaque_auth(&c.cred) {
                    Ok(p) => {
                        f.first("cred_stamp", p.stamp());
                        f.first("cred_machinename", text(p.machinename()));
                        f.first("cred_uid", p.uid());
                        f.first("cred_gid", p.gid());
                        f.list("cred_aux_gids");
                        p.gids().iter().for_each(|g| f.push("cred_aux_gids", *g));
                    }
                    Err(e) => f.first("cred_error", e.to_string()),
                }
            }
            f.first("verf_flavor", c.verf.flavor.0);
        }
        MessageBody::Reply(ReplyBody::Accepted(a)) => {
            f.first("reply_stat", 0);
            f.first("verf_flavor", a.verf.flavor.0);
            f.first("accept_stat", a.stat.code());
            if let AcceptStat::ProgMismatch { low, high } = a.stat {
                f.first("mismatch_low", low);
                f.first("mismatch_high", high);
            }
        }
        MessageBody::Reply(ReplyBody::Denied(rejected)) => {
            f.first("reply_stat", 1);
            match rejected {
                RejectedReply::RpcMismatch { low, high } => {
                    f.first("reject_stat", 0);
                    f.first("rpc_mismatch_low", *low);
                    f.first("rpc_mismatch_high", *high);
                }
                RejectedReply::AuthError(stat) => {
                    f.first("reject_stat", 1);
                    f.first("auth_stat", *stat as u32);
                }
            }
        }
    }
}

fn mount_call_fields(f: &mut Fields, call: &MountCall<'_>) {
    if let MountCall::Mnt(path) | MountCall::Umnt(path) = call {
        f.first("path", text(path.0));
    }
}

fn mount_reply_fields(f: &mut Fields, reply: &MountReply<'_>) {
    match reply {
        MountReply::Mnt(res) => {
            f.first("mount_status", res.status().as_u32());
            if let MountRes3::Ok(ok) = res {
                // The index takes MNT's fh_length as [first]: one number, not a list.
                f.first("fh_length", ok.fhandle.len() as u64);
                f.list("auth_flavors");
                ok.auth_flavors.iter().for_each(|flavor| f.push("auth_flavors", *flavor));
            }
        }
        MountReply::Dump(list) => {
            for body in &list.0 {
                f.push("dump_hostnames", text(body.ml_hostname.0));
                f.push("dump_directories", text(body.ml_directory.0));
            }
        }
        MountReply::Export(exports) => {
            if let (Some(first), Some(last)) = (exports.0.first(), exports.0.last()) {
                f.first("export_count", exports.0.len() as u64);
                f.first("export_first", text(first.ex_dir.0));
                f.first("export_last", text(last.ex_dir.0));
            }
            if let Some(group) = exports.0.iter().flat_map(|e| &e.ex_groups).next() {
                f.first("export_first_groups", text(group.0));
            }
        }
        MountReply::Null | MountReply::Umnt | MountReply::Umntall => {}
    }
}

fn mapping_fields(f: &mut Fields, m: &Mapping) {
    f.push("pmap_prog", m.prog);
    f.push("pmap_vers", m.vers);
    f.push("pmap_proto", m.prot);
    f.push("pmap_port", m.port);
}

fn rpcb_fields(f: &mut Fields, b: &Rpcb<'_>) {
    f.push("rpcb_prog", b.prog);
    f.push("rpcb_vers", b.vers);
    f.push("rpcb_netid", text(b.netid));
    f.push("rpcb_addr", text(b.addr));
    f.push("rpcb_owner", text(b.owner));
}

/// NFS_ACL (program 100227 v3, the Linux/Solaris side band) has no codec here and the inspector keeps
/// it opaque; tshark's few fields are read with nfs3-proto's types and plain XDR words:
/// GETACL/SETACL args `nfs_fh3 fh; u32 mask; ...`; GETACL results `nfsstat3; post_op_attr; u32 mask;
/// u32 aclcnt; aclent<> (12 bytes each); u32 dfaclcnt; ...`; SETACL results `nfsstat3; ...`.
fn nfsacl_fields(f: &mut Fields, key: CallKey, call: bool, body: &[u8]) -> Result<(), XdrError> {
    let mut r = XdrReader::new(body);
    match (key.proc, call) {
        (1 | 2, true) => {
            fh(f, &FileHandle3::decode(&mut r)?);
            f.first("acl_mask", r.get_u32()?);
        }
        (1 | 2, false) => {
            let status = r.get_u32()?;
            f.first("status", status);
            if key.proc == 1 && status == 0 {
                PostOpAttr::decode(&mut r)?;
                f.first("acl_mask", r.get_u32()?);
                f.first("acl_count", r.get_u32()?);
                let entries = r.get_array_len("aclent", 1024, 12)?;
                r.get_opaque_fixed(entries * 12)?;
                f.first("default_acl_count", r.get_u32()?);
            }
        }
        _ => {}
    }
    Ok(())
}

/// Everything we read from one record, keyed as tshark's fields. Refused calls give their RPC header
/// only (the arguments do not decode, for us as for the server).
pub fn extract(entry: &Value, record: &[u8]) -> Result<Fields, String> {
    let file = text_of(entry, "file");
    let mut f = Fields::default();
    let (message, _) = RpcMessage::decode(record).map_err(|e| format!("{file}: header: {e}"))?;
    rpc_header_fields(&mut f, &message);
    let fragments = number_of(entry, "fragments");
    if fragments > 1 {
        // tshark reports reassembly only for records that needed it.
        f.first("fragment_count", fragments);
        f.first("reassembled_length", record.len() as u64);
    }
    let key = crate::call_key(entry);
    let decoded = match message.body {
        MessageBody::Call(_) => decode_call(record),
        MessageBody::Reply(_) => decode_reply(record, key),
    };
    let Ok(decoded) = decoded else { return Ok(f) };
    let call = message.as_call().is_some();
    match &decoded.body {
        Body::Nfs3Call(c) => nfs3_call_fields(&mut f, c),
        Body::Nfs3Reply(r) => nfs3_reply_fields(&mut f, r),
        Body::MountCall(c) => mount_call_fields(&mut f, c),
        Body::MountReply(r) => mount_reply_fields(&mut f, r),
        Body::PortmapMapping(m) => mapping_fields(&mut f, m),
        Body::PortmapList(list) => list.0.iter().for_each(|m| mapping_fields(&mut f, m)),
        Body::Word(port) if (key.prog, key.vers, key.proc) == (PMAP_PROGRAM, 2, 3) => f.push("pmap_port", *port),
        // tshark 4.0 does not dissect GETADDRLIST (rpcbind v4 proc 11) arguments; nothing to compare.
        Body::Rpcbind(_) if key.proc == 11 => {}
        Body::Rpcbind(b) => rpcb_fields(&mut f, b),
        Body::RpcbindAddress(a) => f.first("uaddr", text(a.0)),
        Body::Opaque(bytes) if key.prog == NFS_ACL_PROGRAM => {
            nfsacl_fields(&mut f, key, call, bytes).map_err(|e| format!("{file}: NFS_ACL body: {e}"))?
        }
        Body::RpcbindList(list) => list.0.iter().for_each(|b| rpcb_fields(&mut f, b)),
        _ => {}
    }
    Ok(f)
}
