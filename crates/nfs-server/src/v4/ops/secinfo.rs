//! SECINFO (RFC 8881 §18.29) and SECINFO_NO_NAME (§18.45): the flavours an object may be reached with —
//! AUTH_SYS, then AUTH_NONE (squashed to the anonymous ids), every export alike. Both consume the current
//! file handle (§2.6.3.1.1.8): none is current after them.

use nfs4_proto::{Nfs4Result, NfsErr4, NfsResOp, Secinfo4, SecinfoArgs, SecinfoResOk, SecinfoStyle4};

use super::names;
use crate::access::{permits, MAY_EXEC};
use crate::v4::context::{require_dir, Cx};
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

/// RFC 5531 §8.2: AUTH_SYS (1) first, then AUTH_NONE (0).
fn flavours() -> SecinfoResOk<'static> {
    SecinfoResOk(vec![Secinfo4::Flavor(1), Secinfo4::Flavor(0)])
}

pub(crate) fn secinfo(cx: &mut Cx<'_>, args: &SecinfoArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let name = args.name.as_bytes();
    match cx.current()? {
        Fh::Pseudo(node) => {
            names::check(name)?;
            cx.svc.pseudo.lookup(node, name, &cx.server.exports, cx.conn.peer).ok_or(NfsErr4::NoEnt)?;
        }
        Fh::File { export, file } => {
            let dir = cx.obj(export, file)?;
            let attrs = dir.getattr().map_err(from_v3)?;
            require_dir(&attrs)?;
            names::check(name)?;
            if !permits(&attrs, &dir.cred, MAY_EXEC) {
                return Err(NfsErr4::Access);
            }
            let nested = file == dir.export.root && cx.svc.pseudo.crossing(export, name).is_some();
            if !nested {
                dir.backend().lookup(file, name).map_err(from_v3)?;
            }
        }
    }
    cx.current = None;
    cx.current_stateid = None;
    out.put(&NfsResOp::Secinfo(Nfs4Result::Ok(flavours())));
    Ok(())
}

pub(crate) fn secinfo_no_name(cx: &mut Cx<'_>, style: SecinfoStyle4, out: &mut Results) -> Result<(), NfsErr4> {
    let fh = cx.current()?;
    if style == SecinfoStyle4::Parent {
        // RFC 8881 §18.45.3: the parent of the current directory (NOENT at the root).
        match fh {
            Fh::Pseudo(node) => {
                cx.svc.pseudo.parent(node).ok_or(NfsErr4::NoEnt)?;
            }
            Fh::File { export, file } => {
                let dir = cx.obj(export, file)?;
                require_dir(&dir.getattr().map_err(from_v3)?)?;
                if file == dir.export.root && cx.svc.pseudo.export_parent(export).is_none() {
                    return Err(NfsErr4::NoEnt);
                }
            }
        }
    }
    cx.current = None;
    cx.current_stateid = None;
    out.put(&NfsResOp::SecinfoNoName(Nfs4Result::Ok(flavours())));
    Ok(())
}
