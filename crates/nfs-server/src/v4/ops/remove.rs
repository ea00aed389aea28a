//! REMOVE (RFC 8881 §18.25): a file or an empty directory of the current directory (NOTEMPTY otherwise),
//! with the sticky-directory rule; the directory's change_info4.

use nfs3_proto::Ftype3;
use nfs4_proto::{Nfs4Result, NfsErr4, NfsResOp, RemoveArgs, RemoveResOk};

use super::dirop::Changing;
use super::names;
use crate::v4::context::Cx;
use crate::v4::errors::from_v3;
use crate::v4::results::Results;

pub(crate) fn run(cx: &mut Cx<'_>, args: &RemoveArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let changing = Changing::open(cx, cx.current()?)?;
    let name = args.target.as_bytes();
    names::check(name)?;
    changing.check_sticky(name)?;
    let dir = &changing.dir;
    let victim = dir.backend().lookup(dir.file, name).map_err(from_v3)?;
    let is_dir = dir.with_file(victim).getattr().map_err(from_v3)?.ftype == Ftype3::Dir;
    dir.backend().remove(dir.file, name, is_dir).map_err(from_v3)?;
    out.put(&NfsResOp::Remove(Nfs4Result::Ok(RemoveResOk { cinfo: changing.cinfo() })));
    Ok(())
}
