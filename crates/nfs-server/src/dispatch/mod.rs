//! The NFSv3 program (RFC 1813): decodes a call's arguments, routes it to its procedure (one module
//! each), and passes non-idempotent procedures through the duplicate request cache.
//!
//! Each procedure resolves its file handles through [`call::Call::resolve`] (handle check, export
//! access rules, squashed credentials), checks permissions with [`crate::access`], calls the backend
//! and encodes its result, with wcc_data read before and after every change (RFC 1813 §2.6).
//!
//! Procedures return `Result<ResOk, (NfsErr3, ResFail)>` internally: the failure arm of an NFSv3 result
//! (wcc_data, post-op attributes) is a few hundred bytes on the stack, never propagated far, so clippy's
//! `result_large_err` does not apply in spirit.
#![allow(clippy::result_large_err)]

mod access;
pub(crate) mod call;
mod commit;
mod create;
mod dirlist;
pub(crate) mod dirop;
mod fsinfo;
mod fsstat;
mod getattr;
mod link;
mod lookup;
mod mkdir;
mod mknod;
mod names;
mod pathconf;
mod read;
mod readdir;
mod readdirplus;
mod readlink;
mod remove;
mod rename;
mod setattr;
mod symlink;
mod write;

use nfs3_proto::{DecodeError, Nfs3Call, Nfs3Proc, NFS_PROGRAM, NFS_V3};
use onc_rpc::AcceptStat;
use tracing::warn;

use crate::access::Identity;
use crate::drc::{DrcKey, Lookup};
use crate::exports::canonical_ip;
use crate::rpc::Outcome;
use crate::{ConnectionInfo, Reply, Server};
use call::Call;

/// RFC 1813 §3.3 procedures whose repetition would not give the same answer: these go through the
/// duplicate request cache. (COMMIT is idempotent; READ-like procedures never touch the cache.)
pub(crate) fn is_non_idempotent(proc: Nfs3Proc) -> bool {
    use Nfs3Proc::*;
    matches!(proc, Setattr | Write | Create | Mkdir | Symlink | Mknod | Remove | Rmdir | Rename | Link)
}

/// Executes NFSv3 procedure `proc` with the encoded arguments `args`.
pub(crate) fn nfs(server: &Server, conn: &ConnectionInfo, xid: u32, who: Identity, proc: u32, args: &[u8]) -> Outcome {
    let call = match Nfs3Call::decode(proc, args) {
        Ok(call) => call,
        Err(DecodeError::UnknownProcedure(_)) => return Outcome::Refused(AcceptStat::ProcUnavail),
        Err(DecodeError::Xdr(err)) => {
            warn!(xid, proc, peer = %conn.peer, %err, "NFSv3 arguments do not decode");
            return Outcome::Refused(AcceptStat::GarbageArgs);
        }
    };
    // RFC 1813 §3.3.7 declares count apart from the data; knfsd refuses a mismatch as GARBAGE_ARGS.
    if let Nfs3Call::Write(w) = &call {
        if !w.count_matches_data() {
            warn!(xid, peer = %conn.peer, count = w.count, len = w.data.len(), "WRITE count differs from its data");
            return Outcome::Refused(AcceptStat::GarbageArgs);
        }
    }
    let cx = Call::new(server, conn, xid, who);
    if !is_non_idempotent(call.proc()) || !server.drc.is_enabled() {
        let reply = execute(&cx, &call);
        return Outcome::Done { reply, status: cx.status() };
    }
    let key = DrcKey::new(canonical_ip(conn.peer.ip()), xid, NFS_PROGRAM, NFS_V3, proc, args);
    match server.drc.lookup(key) {
        Lookup::InProgress => Outcome::Drop,
        Lookup::Replay(bytes) => Outcome::Replayed(Reply::from_inline(bytes)),
        Lookup::New(slot) => {
            let reply = execute(&cx, &call);
            if reply.is_flat() {
                slot.finish(&reply.inline);
            }
            Outcome::Done { reply, status: cx.status() }
        }
    }
}

fn execute(cx: &Call<'_>, call: &Nfs3Call<'_>) -> Reply {
    match call {
        Nfs3Call::Null => cx.empty_reply(),
        Nfs3Call::Getattr(a) => getattr::run(cx, a),
        Nfs3Call::Setattr(a) => setattr::run(cx, a),
        Nfs3Call::Lookup(a) => lookup::run(cx, a),
        Nfs3Call::Access(a) => access::run(cx, a),
        Nfs3Call::Readlink(a) => readlink::run(cx, a),
        Nfs3Call::Read(a) => read::run(cx, a),
        Nfs3Call::Write(a) => write::run(cx, a),
        Nfs3Call::Create(a) => create::run(cx, a),
        Nfs3Call::Mkdir(a) => mkdir::run(cx, a),
        Nfs3Call::Symlink(a) => symlink::run(cx, a),
        Nfs3Call::Mknod(a) => mknod::run(cx, a),
        Nfs3Call::Remove(a) => remove::run(cx, a),
        Nfs3Call::Rmdir(a) => remove::run_rmdir(cx, a),
        Nfs3Call::Rename(a) => rename::run(cx, a),
        Nfs3Call::Link(a) => link::run(cx, a),
        Nfs3Call::Readdir(a) => readdir::run(cx, a),
        Nfs3Call::Readdirplus(a) => readdirplus::run(cx, a),
        Nfs3Call::Fsstat(a) => fsstat::run(cx, a),
        Nfs3Call::Fsinfo(a) => fsinfo::run(cx, a),
        Nfs3Call::Pathconf(a) => pathconf::run(cx, a),
        Nfs3Call::Commit(a) => commit::run(cx, a),
    }
}
