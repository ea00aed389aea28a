//! RENAME (RFC 1813 §3.3.14): atomically, within one export (XDEV across exports); both directories
//! checked for write + search permission and the sticky rule, both returned as wcc_data.

use nfs3_proto::{NfsErr3, RenameArgs, RenameResFail, RenameResOk, WccData};

use super::call::Call;
use super::dirop::{into_res, DirChange};
use super::names::{check_new_name, check_old_name};
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &RenameArgs<'_>) -> Reply {
    cx.reply(&into_res(rename(cx, args)))
}

fn rename(cx: &Call<'_>, args: &RenameArgs<'_>) -> Result<RenameResOk, (NfsErr3, RenameResFail)> {
    let from = DirChange::open(cx, &args.from.dir, args.from.name, check_old_name)
        .map_err(|(e, fromdir_wcc)| (e, RenameResFail { fromdir_wcc, todir_wcc: WccData::default() }))?;
    let to = DirChange::open(cx, &args.to.dir, args.to.name, check_new_name)
        .map_err(|(e, todir_wcc)| (e, RenameResFail { fromdir_wcc: from.wcc(), todir_wcc }))?;
    let fail = |e| (e, RenameResFail { fromdir_wcc: from.wcc(), todir_wcc: to.wcc() });
    if from.dir.export.index != to.dir.export.index {
        return Err(fail(NfsErr3::Xdev));
    }
    from.check_sticky(args.from.name).map_err(fail)?;
    to.check_sticky(args.to.name).map_err(fail)?;
    from.dir.backend().rename(from.dir.file, args.from.name, to.dir.file, args.to.name).map_err(fail)?;
    Ok(RenameResOk { fromdir_wcc: from.wcc(), todir_wcc: to.wcc() })
}
