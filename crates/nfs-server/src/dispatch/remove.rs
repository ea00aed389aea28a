//! REMOVE (RFC 1813 §3.3.12) and RMDIR (§3.3.13): take a name out of a directory (the backend refuses a
//! directory for REMOVE and a non-empty or non-directory for RMDIR).

use nfs3_proto::{NfsErr3, RemoveArgs, RemoveResFail, RemoveResOk, RmdirArgs};

use super::call::Call;
use super::dirop::{into_res, DirChange};
use super::names::check_old_name;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &RemoveArgs<'_>) -> Reply {
    cx.reply(&into_res(remove(cx, &args.object.dir, args.object.name, false)))
}

pub(crate) fn run_rmdir(cx: &Call<'_>, args: &RmdirArgs<'_>) -> Reply {
    cx.reply(&into_res(remove(cx, &args.object.dir, args.object.name, true)))
}

fn remove(
    cx: &Call<'_>,
    dir: &nfs3_proto::FileHandle3,
    name: &[u8],
    rmdir: bool,
) -> Result<RemoveResOk, (NfsErr3, RemoveResFail)> {
    let change =
        DirChange::open(cx, dir, name, check_old_name).map_err(|(e, dir_wcc)| (e, RemoveResFail { dir_wcc }))?;
    let fail = |e| (e, RemoveResFail { dir_wcc: change.wcc() });
    change.check_sticky(name).map_err(fail)?;
    change.dir.backend().remove(change.dir.file, name, rmdir).map_err(fail)?;
    Ok(RemoveResOk { dir_wcc: change.wcc() })
}
