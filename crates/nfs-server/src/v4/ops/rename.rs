//! RENAME (RFC 8881 §18.26): `oldname` in the saved directory to `newname` in the current one, within one
//! export (XDEV otherwise), with the sticky rule on both sides; both directories' change_info4.

use nfs4_proto::{Nfs4Result, NfsErr4, NfsResOp, RenameArgs, RenameResOk};

use super::dirop::Changing;
use super::names;
use crate::v4::context::Cx;
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

pub(crate) fn run(cx: &mut Cx<'_>, args: &RenameArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let target_fh = cx.current()?;
    let source_fh = cx.saved.ok_or(NfsErr4::NoFileHandle)?;
    if let (Fh::File { export: a, .. }, Fh::File { export: b, .. }) = (source_fh, target_fh) {
        if a != b {
            return Err(NfsErr4::Xdev);
        }
    }
    let source = Changing::open(cx, source_fh)?;
    let target = Changing::open(cx, target_fh)?;
    let (old, new) = (args.oldname.as_bytes(), args.newname.as_bytes());
    names::check(old)?;
    names::check(new)?;
    source.check_sticky(old)?;
    target.check_sticky(new)?;
    let backend = source.dir.backend();
    backend.rename(source.dir.file, old, target.dir.file, new).map_err(from_v3)?;
    out.put(&NfsResOp::Rename(Nfs4Result::Ok(RenameResOk {
        source_cinfo: source.cinfo(),
        target_cinfo: target.cinfo(),
    })));
    Ok(())
}
