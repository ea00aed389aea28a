//! FSSTAT (RFC 1813 §3.3.18): the backend's space and file-slot totals.

use nfs3_proto::{FsstatArgs, FsstatResFail, FsstatResOk, NfsErr3};

use super::call::Call;
use super::dirop::into_res;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &FsstatArgs) -> Reply {
    cx.reply(&into_res(fsstat(cx, args)))
}

fn fsstat(cx: &Call<'_>, args: &FsstatArgs) -> Result<FsstatResOk, (NfsErr3, FsstatResFail)> {
    let obj = cx.resolve(&args.fsroot).map_err(|e| (e, FsstatResFail::default()))?;
    let attrs = obj.getattr().map_err(|e| (e, FsstatResFail::default()))?;
    let s = obj.backend().fsstat().map_err(|e| (e, FsstatResFail { obj_attributes: Some(attrs) }))?;
    Ok(FsstatResOk {
        obj_attributes: Some(attrs),
        tbytes: s.total_bytes,
        fbytes: s.free_bytes,
        abytes: s.avail_bytes,
        tfiles: s.total_files,
        ffiles: s.free_files,
        afiles: s.avail_files,
        // The figures change with every write: clients should not cache them.
        invarsec: 0,
    })
}
