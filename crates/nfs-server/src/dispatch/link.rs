//! LINK (RFC 1813 §3.3.15): a hard link, within one export (XDEV otherwise), never to a directory
//! (PERM, as link(2) and knfsd answer).

use nfs3_proto::{Ftype3, LinkArgs, LinkResFail, LinkResOk, NfsErr3};

use super::call::Call;
use super::dirop::{into_res, DirChange};
use super::names::check_new_name;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &LinkArgs<'_>) -> Reply {
    cx.reply(&into_res(link(cx, args)))
}

fn link(cx: &Call<'_>, args: &LinkArgs<'_>) -> Result<LinkResOk, (NfsErr3, LinkResFail)> {
    let file = cx.resolve(&args.file).map_err(|e| (e, LinkResFail::default()))?;
    let attrs = file.getattr().map_err(|e| (e, LinkResFail::default()))?;
    let change = DirChange::open(cx, &args.link.dir, args.link.name, check_new_name)
        .map_err(|(e, linkdir_wcc)| (e, LinkResFail { file_attributes: Some(attrs), linkdir_wcc }))?;
    let fail = |e| (e, LinkResFail { file_attributes: file.post_op(), linkdir_wcc: change.wcc() });
    if file.export.index != change.dir.export.index {
        return Err(fail(NfsErr3::Xdev));
    }
    if attrs.ftype == Ftype3::Dir {
        return Err(fail(NfsErr3::Perm));
    }
    change.dir.backend().link(file.file, change.dir.file, args.link.name).map_err(fail)?;
    Ok(LinkResOk { file_attributes: file.post_op(), linkdir_wcc: change.wcc() })
}
