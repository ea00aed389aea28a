//! LOOKUP (RFC 1813 §3.3.3): a name in a directory. "." is the directory itself and ".." its parent,
//! answered here (the export root is its own parent, so no handle outside the export can be reached).

use nfs3_proto::{LookupArgs, LookupResFail, LookupResOk, NfsErr3};

use super::call::{require_dir, Call};
use super::dirop::into_res;
use super::names::check_name;
use crate::access::{permits, MAY_EXEC};
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &LookupArgs<'_>) -> Reply {
    cx.reply(&into_res(lookup(cx, args)))
}

fn lookup(cx: &Call<'_>, args: &LookupArgs<'_>) -> Result<LookupResOk, (NfsErr3, LookupResFail)> {
    let empty = |e| (e, LookupResFail::default());
    let dir = cx.resolve(&args.what.dir).map_err(empty)?;
    let dir_attrs = dir.getattr().map_err(empty)?;
    let fail = |e| (e, LookupResFail { dir_attributes: Some(dir_attrs) });
    require_dir(&dir_attrs).map_err(fail)?;
    check_name(args.what.name).map_err(fail)?;
    // Searching a directory needs execute permission on it.
    if !permits(&dir_attrs, &dir.cred, MAY_EXEC) {
        return Err(fail(NfsErr3::Acces));
    }
    let found = match args.what.name {
        b"." => Ok(dir.file),
        b".." => dir.parent_of(dir.file),
        name => dir.backend().lookup(dir.file, name),
    }
    .map_err(fail)?;
    let obj = dir.with_file(found);
    Ok(LookupResOk {
        object: cx.handle_of(dir.export, found),
        obj_attributes: obj.post_op(),
        dir_attributes: Some(dir_attrs),
    })
}
