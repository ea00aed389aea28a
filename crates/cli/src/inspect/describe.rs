//! One-line descriptions of decoded messages, for `nfsbench decode`.
use super::Body;
use nfs3_proto::mount::{MountRes3, MountStat3};
use nfs3_proto::{FileHandle3, MountReply, Nfs3Call, Nfs3Reply, NfsStat3};
use onc_rpc::{AcceptStat, MessageBody, ReplyBody};
use std::fmt::Write;

/// The RFC name of an NFSv3 status ("NFS3_OK", "NFS3ERR_NOENT").
pub fn nfs3_status_name(status: NfsStat3) -> &'static str {
    status.error().map_or("NFS3_OK", |e| e.name())
}

fn mount_status_name(status: MountStat3) -> &'static str {
    status.error().map_or("MNT3_OK", |e| e.name())
}

/// A short, stable tag for a file handle: FNV-1a of its bytes, as tshark's `nfs.fh.hash` is a CRC.
fn fh(h: &FileHandle3) -> String {
    let hash =
        h.as_bytes().iter().fold(0xcbf2_9ce4_8422_2325u64, |a, &b| (a ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    format!("fh:{:08x}", hash as u32)
}

fn name(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// What a reply says at the RPC level when it carries no results.
pub fn reply_status(reply: &ReplyBody<'_>) -> String {
    match reply {
        ReplyBody::Accepted(a) => match a.stat {
            AcceptStat::Success => "SUCCESS".into(),
            other => format!("{other:?}"),
        },
        ReplyBody::Denied(r) => format!("DENIED {r:?}"),
    }
}

/// The key fields of a decoded body, as one line.
pub fn describe(message: &MessageBody<'_>, body: &Body<'_>) -> String {
    let mut s = String::new();
    let _ = match body {
        Body::Nfs3Call(c) => describe_nfs3_call(&mut s, c),
        Body::Nfs3Reply(r) => describe_nfs3_reply(&mut s, r),
        Body::Nfs4Call(c) => describe_nfs4_call(&mut s, c),
        Body::Nfs4Reply(r) => describe_nfs4_reply(&mut s, r),
        Body::CbCall(c) => {
            let ops: Vec<&str> = c.argarray.iter().map(|op| op.name()).collect();
            write!(s, "minorversion {} ident {}: {}", c.minorversion, c.callback_ident, ops.join(" "))
        }
        Body::CbReply(r) => {
            let ops: Vec<String> = r.resarray.iter().map(|op| format!("{} {}", op.name(), op.status())).collect();
            write!(s, "{}: {}", r.status, ops.join(", "))
        }
        Body::MountCall(c) => write!(s, "{c:?}"),
        Body::MountReply(MountReply::Mnt(MountRes3::Ok(ok))) => {
            write!(s, "MNT3_OK {} flavors {:?}", fh(&ok.fhandle), ok.auth_flavors)
        }
        Body::MountReply(MountReply::Mnt(res)) => write!(s, "{}", mount_status_name(res.status())),
        Body::MountReply(MountReply::Export(e)) => write!(s, "{} exports", e.0.len()),
        Body::MountReply(MountReply::Dump(d)) => write!(s, "{} mounts", d.0.len()),
        Body::MountReply(other) => write!(s, "{other:?}"),
        Body::PortmapMapping(m) => write!(s, "prog {} vers {} prot {} port {}", m.prog, m.vers, m.prot, m.port),
        Body::PortmapList(l) => write!(s, "{} mappings", l.0.len()),
        Body::Rpcbind(b) => write!(s, "prog {} vers {} netid {}", b.prog, b.vers, name(b.netid)),
        Body::RpcbindAddress(a) => write!(s, "uaddr {}", name(a.0)),
        Body::RpcbindList(l) => write!(s, "{} registrations", l.0.len()),
        Body::RpcbindEntries(l) => write!(s, "{} addresses", l.0.len()),
        Body::Word(v) => write!(s, "{v}"),
        Body::Empty => match message {
            MessageBody::Reply(r) => write!(s, "{}", reply_status(r)),
            MessageBody::Call(_) => Ok(()),
        },
        Body::Opaque(b) => write!(s, "{} bytes not decoded", b.len()),
    };
    s
}

fn describe_nfs3_call(s: &mut String, call: &Nfs3Call<'_>) -> std::fmt::Result {
    use Nfs3Call::*;
    match call {
        Null => Ok(()),
        Getattr(a) => write!(s, "{}", fh(&a.object)),
        Setattr(a) => write!(s, "{}", fh(&a.object)),
        Lookup(a) => write!(s, "{} {}", fh(&a.what.dir), name(a.what.name)),
        Access(a) => write!(s, "{} access {:#x}", fh(&a.object), a.access),
        Readlink(a) => write!(s, "{}", fh(&a.symlink)),
        Read(a) => write!(s, "{} offset {} count {}", fh(&a.file), a.offset, a.count),
        Write(a) => write!(s, "{} offset {} count {} {:?}", fh(&a.file), a.offset, a.count, a.stable),
        Create(a) => write!(s, "{} {} {:?}", fh(&a.where_.dir), name(a.where_.name), mode_of(&a.how)),
        Mkdir(a) => write!(s, "{} {}", fh(&a.where_.dir), name(a.where_.name)),
        Symlink(a) => write!(s, "{} {} -> {}", fh(&a.where_.dir), name(a.where_.name), name(a.symlink.symlink_data)),
        Mknod(a) => write!(s, "{} {}", fh(&a.where_.dir), name(a.where_.name)),
        Remove(a) => write!(s, "{} {}", fh(&a.object.dir), name(a.object.name)),
        Rmdir(a) => write!(s, "{} {}", fh(&a.object.dir), name(a.object.name)),
        Rename(a) => write!(s, "{} {} -> {} {}", fh(&a.from.dir), name(a.from.name), fh(&a.to.dir), name(a.to.name)),
        Link(a) => write!(s, "{} -> {} {}", fh(&a.file), fh(&a.link.dir), name(a.link.name)),
        Readdir(a) => write!(s, "{} cookie {} count {}", fh(&a.dir), a.cookie, a.count),
        Readdirplus(a) => write!(s, "{} cookie {} maxcount {}", fh(&a.dir), a.cookie, a.maxcount),
        Fsstat(a) => write!(s, "{}", fh(&a.fsroot)),
        Fsinfo(a) => write!(s, "{}", fh(&a.fsroot)),
        Pathconf(a) => write!(s, "{}", fh(&a.object)),
        Commit(a) => write!(s, "{} offset {} count {}", fh(&a.file), a.offset, a.count),
    }
}

fn mode_of(how: &nfs3_proto::CreateHow3) -> &'static str {
    match how {
        nfs3_proto::CreateHow3::Unchecked(_) => "UNCHECKED",
        nfs3_proto::CreateHow3::Guarded(_) => "GUARDED",
        nfs3_proto::CreateHow3::Exclusive(_) => "EXCLUSIVE",
    }
}

fn describe_nfs3_reply(s: &mut String, reply: &Nfs3Reply<'_>) -> std::fmt::Result {
    write!(s, "{}", nfs3_status_name(reply.status()))?;
    match reply {
        Nfs3Reply::Read(r) => r.ok().map_or(Ok(()), |ok| write!(s, " count {} eof {}", ok.count, ok.eof)),
        Nfs3Reply::Write(r) => {
            r.ok().map_or(Ok(()), |ok| write!(s, " count {} committed {:?}", ok.count, ok.committed))
        }
        Nfs3Reply::Readdir(r) => {
            r.ok().map_or(Ok(()), |ok| write!(s, " {} entries eof {}", ok.reply.entries.len(), ok.reply.eof))
        }
        Nfs3Reply::Readdirplus(r) => {
            r.ok().map_or(Ok(()), |ok| write!(s, " {} entries eof {}", ok.reply.entries.len(), ok.reply.eof))
        }
        Nfs3Reply::Lookup(r) => r.ok().map_or(Ok(()), |ok| write!(s, " {}", fh(&ok.object))),
        _ => Ok(()),
    }
}

/// "minorversion 1: SEQUENCE slot 3 seq 17, PUTFH, READ offset 0 count 4096".
fn describe_nfs4_call(s: &mut String, call: &nfs4_proto::Compound4Args<'_>) -> std::fmt::Result {
    use nfs4_proto::NfsArgOp;
    write!(s, "minorversion {}:", call.minorversion)?;
    for (i, op) in call.argarray.iter().enumerate() {
        s.push_str(if i == 0 { " " } else { ", " });
        s.push_str(op.name());
        match op {
            NfsArgOp::Sequence(a) => write!(s, " slot {} seq {}", a.slotid, a.sequenceid)?,
            NfsArgOp::Read(a) => write!(s, " offset {} count {}", a.offset, a.count)?,
            NfsArgOp::Write(a) => write!(s, " offset {} count {} {:?}", a.offset, a.data.len(), a.stable)?,
            NfsArgOp::Lookup(a) => write!(s, " {}", name(a.objname.as_bytes()))?,
            _ => {}
        }
    }
    Ok(())
}

/// "NFS4_OK: SEQUENCE NFS4_OK, PUTFH NFS4_OK, READ NFS4_OK count 4096 eof false".
fn describe_nfs4_reply(s: &mut String, reply: &nfs4_proto::Compound4Res<'_>) -> std::fmt::Result {
    use nfs4_proto::NfsResOp;
    write!(s, "{}:", reply.status)?;
    for (i, op) in reply.resarray.iter().enumerate() {
        write!(s, "{}{} {}", if i == 0 { " " } else { ", " }, op.name(), op.status())?;
        if let NfsResOp::Read(nfs4_proto::Nfs4Result::Ok(ok)) = op {
            write!(s, " count {} eof {}", ok.data.len(), ok.eof)?;
        }
    }
    Ok(())
}
