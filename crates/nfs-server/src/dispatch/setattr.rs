//! SETATTR (RFC 1813 §3.3.2): change attributes, optionally guarded by the object's ctime.

use nfs3_proto::{NfsErr3, SetattrArgs, SetattrResFail, SetattrResOk, WccData};

use super::call::{wcc, Call};
use super::dirop::into_res;
use crate::access::check_setattr;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &SetattrArgs) -> Reply {
    cx.reply(&into_res(setattr(cx, args)))
}

fn setattr(cx: &Call<'_>, args: &SetattrArgs) -> Result<SetattrResOk, (NfsErr3, SetattrResFail)> {
    let empty = |e| (e, SetattrResFail { obj_wcc: WccData::default() });
    let obj = cx.resolve(&args.object).map_err(empty)?;
    let before = obj.getattr().map_err(empty)?;
    let fail = |e| (e, SetattrResFail { obj_wcc: wcc(Some(&before), obj.post_op()) });
    obj.require_writable().map_err(fail)?;
    // RFC 1813 §3.3.2: with a guard, the change happens only if the ctime still matches (else NOT_SYNC).
    if args.guard.is_some_and(|ctime| ctime != before.ctime) {
        return Err(fail(NfsErr3::NotSync));
    }
    let attrs = check_setattr(&before, &args.new_attributes, &obj.cred).map_err(fail)?;
    let after = obj.backend().setattr(obj.file, &attrs).map_err(fail)?;
    Ok(SetattrResOk { obj_wcc: wcc(Some(&before), Some(after)) })
}
