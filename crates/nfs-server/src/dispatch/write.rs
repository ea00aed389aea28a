//! WRITE (RFC 1813 §3.3.7). The dispatcher has already refused (GARBAGE_ARGS) a count that differs
//! from the data's length, as knfsd does. A write by a caller whose effective uid (after squashing) is not 0
//! clears the file's set-user-ID bit, and its set-group-ID bit when group execute is set, as knfsd does
//! (the kernel's file_remove_privs for a caller without CAP_FSETID); the post-op attributes show it.

use nfs3_proto::{NfsErr3, WccData, WriteArgs, WriteResFail, WriteResOk};

use super::call::{require_regular, wcc, Call};
use super::dirop::into_res;
use crate::access::may_write_data;
use crate::backend::Caller;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &WriteArgs<'_>) -> Reply {
    cx.reply(&into_res(write(cx, args)))
}

fn write(cx: &Call<'_>, args: &WriteArgs<'_>) -> Result<WriteResOk, (NfsErr3, WriteResFail)> {
    let empty = |e| (e, WriteResFail { file_wcc: WccData::default() });
    let obj = cx.resolve(&args.file).map_err(empty)?;
    let before = obj.getattr().map_err(empty)?;
    let fail = |e| (e, WriteResFail { file_wcc: wcc(Some(&before), obj.post_op()) });
    obj.require_writable().map_err(fail)?;
    require_regular(&before).map_err(fail)?;
    if !may_write_data(&before, &obj.cred) {
        return Err(fail(NfsErr3::Acces));
    }
    if args.offset.checked_add(args.data.len() as u64).is_none() {
        return Err(fail(NfsErr3::FBig));
    }
    // RFC 1813 §3.3.7: more than wtmax bytes "may" be written as a short write of wtmax bytes.
    let limit = args.data.len().min(cx.max_io() as usize);
    let data = args.data.get(..limit).unwrap_or(args.data);
    // The backend clears set-id bits for a caller that is not root after squashing (Linux file_remove_privs).
    let caller = Caller::of_uid(obj.cred.uid);
    let done = obj.backend().write(obj.file, args.offset, data, args.stable, caller).map_err(fail)?;
    Ok(WriteResOk {
        file_wcc: wcc(Some(&before), obj.post_op()),
        count: done.count,
        committed: done.committed,
        verf: obj.backend().write_verifier(),
    })
}
