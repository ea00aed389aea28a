//! COMMIT (RFC 1813 §3.3.21): make earlier UNSTABLE writes durable; the write verifier tells the client
//! whether its uncommitted data survived (it changes when the server restarts).

use nfs3_proto::{CommitArgs, CommitResFail, CommitResOk, NfsErr3, WccData};

use super::call::{require_regular, wcc, Call};
use super::dirop::into_res;
use crate::access::may_write_data;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &CommitArgs) -> Reply {
    cx.reply(&into_res(commit(cx, args)))
}

fn commit(cx: &Call<'_>, args: &CommitArgs) -> Result<CommitResOk, (NfsErr3, CommitResFail)> {
    let empty = |e| (e, CommitResFail { file_wcc: WccData::default() });
    let obj = cx.resolve(&args.file).map_err(empty)?;
    let before = obj.getattr().map_err(empty)?;
    let fail = |e| (e, CommitResFail { file_wcc: wcc(Some(&before), obj.post_op()) });
    require_regular(&before).map_err(fail)?;
    obj.require_writable().map_err(fail)?;
    if !may_write_data(&before, &obj.cred) {
        return Err(fail(NfsErr3::Acces));
    }
    // An offset + count past 2^64 describes no byte range (knfsd: INVAL).
    if args.offset.checked_add(u64::from(args.count)).is_none() {
        return Err(fail(NfsErr3::Inval));
    }
    obj.backend().commit(obj.file, args.offset, args.count).map_err(fail)?;
    Ok(CommitResOk { file_wcc: wcc(Some(&before), obj.post_op()), verf: obj.backend().write_verifier() })
}
