//! LINK (RFC 8881 §18.9): the saved file gets the name `newname` in the current directory, within one
//! export (XDEV otherwise); directories cannot be linked (ISDIR). The current file handle stays the
//! directory.

use nfs3_proto::Ftype3;
use nfs4_proto::{LinkArgs, LinkResOk, Nfs4Result, NfsErr4, NfsResOp};

use super::dirop::Changing;
use super::names;
use crate::v4::context::Cx;
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

pub(crate) fn run(cx: &mut Cx<'_>, args: &LinkArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let dir_fh = cx.current()?;
    let Fh::File { export: source_export, file: source } = cx.saved.ok_or(NfsErr4::NoFileHandle)? else {
        return Err(NfsErr4::IsDir);
    };
    if let Fh::File { export, .. } = dir_fh {
        if export != source_export {
            return Err(NfsErr4::Xdev);
        }
    }
    let changing = Changing::open(cx, dir_fh)?;
    let name = args.newname.as_bytes();
    names::check(name)?;
    let dir = &changing.dir;
    if dir.with_file(source).getattr().map_err(from_v3)?.ftype == Ftype3::Dir {
        return Err(NfsErr4::IsDir);
    }
    dir.backend().link(source, dir.file, name).map_err(from_v3)?;
    out.put(&NfsResOp::Link(Nfs4Result::Ok(LinkResOk { cinfo: changing.cinfo() })));
    Ok(())
}
