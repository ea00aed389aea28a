//! LOOKUP (RFC 8881 §18.13) and LOOKUPP (§18.14), across the pseudo file system and into exports:
//! a name in a pseudo directory leads to another or to an export's root; a name at an export's root may
//! name a nested export (`pseudo.rs`); LOOKUPP from an export's root leads back out.

use nfs4_proto::{LookupArgs, NfsErr4, OpNum4};

use super::names;
use crate::access::{permits, MAY_EXEC};
use crate::v4::context::{require_dir, Cx};
use crate::v4::errors::from_v3;
use crate::v4::fh::Fh;
use crate::v4::pseudo::Child;
use crate::v4::results::Results;

pub(crate) fn lookup(cx: &mut Cx<'_>, args: &LookupArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let name = args.objname.as_bytes();
    let next = match cx.current()? {
        Fh::Pseudo(node) => {
            names::check(name)?;
            let child = cx.svc.pseudo.lookup(node, name, &cx.server.exports, cx.conn.peer).ok_or(NfsErr4::NoEnt)?;
            Fh::of_child(cx.server, child)
        }
        Fh::File { export, file } => {
            let dir = cx.obj(export, file)?;
            let attrs = dir.getattr().map_err(from_v3)?;
            require_dir(&attrs)?;
            names::check(name)?;
            if !permits(&attrs, &dir.cred, MAY_EXEC) {
                return Err(NfsErr4::Access);
            }
            let nested = if file == dir.export.root { cx.svc.pseudo.crossing(export, name) } else { None };
            match nested {
                Some(inner) => {
                    // An export that refuses this client is not there for it (as in pseudo directories).
                    let root = Fh::of_child(cx.server, Child::Export(inner));
                    if let Fh::File { export, file } = root {
                        cx.obj(export, file).map_err(|_| NfsErr4::NoEnt)?;
                    }
                    root
                }
                None => Fh::File { export, file: dir.backend().lookup(file, name).map_err(from_v3)? },
            }
        }
    };
    cx.set_current(next);
    out.put_ok(OpNum4::Lookup);
    Ok(())
}

pub(crate) fn lookupp(cx: &mut Cx<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let current = cx.current()?;
    let parent = match current {
        // RFC 8881 §18.14.3: the root has no parent (NOENT).
        Fh::Pseudo(node) => Fh::Pseudo(cx.svc.pseudo.parent(node).ok_or(NfsErr4::NoEnt)?),
        Fh::File { export, file } => {
            let dir = cx.obj(export, file)?;
            let attrs = dir.getattr().map_err(from_v3)?;
            require_dir(&attrs)?;
            if file == dir.export.root {
                let up = cx.svc.pseudo.export_parent(export).ok_or(NfsErr4::NoEnt)?;
                Fh::of_child(cx.server, up)
            } else {
                Fh::File { export, file: dir.backend().parent(file).map_err(from_v3)? }
            }
        }
    };
    cx.set_current(parent);
    out.put_ok(OpNum4::Lookupp);
    Ok(())
}
