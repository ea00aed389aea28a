//! CREATE (RFC 1813 §3.3.8): a regular file, UNCHECKED, GUARDED or EXCLUSIVE.
//!
//! UNCHECKED on an existing regular file succeeds and applies only the requested size (as knfsd does;
//! the file keeps its owner and mode), on any other existing type it is EXIST. EXCLUSIVE hands the
//! verifier to the backend, which recognises a retransmission of the same create (RFC 1813 §3.3.8).

use nfs3_proto::{CreateArgs, CreateHow3, CreateRes, CreateResFail, Ftype3, Nfs3Result, NfsErr3, Sattr3};

use super::call::Call;
use super::dirop::DirChange;
use super::names::check_new_name;
use crate::access::check_setattr;
use crate::backend::{CreateMode, NewNode};
use crate::Reply;

/// Mode of a file created without one (the client normally sends it).
const DEFAULT_FILE_MODE: u32 = 0o644;

pub(crate) fn run(cx: &Call<'_>, args: &CreateArgs<'_>) -> Reply {
    cx.reply(&create(cx, args))
}

fn create(cx: &Call<'_>, args: &CreateArgs<'_>) -> CreateRes {
    let name = args.where_.name;
    let change = match DirChange::open(cx, &args.where_.dir, name, check_new_name) {
        Ok(change) => change,
        Err((e, dir_wcc)) => return Nfs3Result::Fail(e, CreateResFail { dir_wcc }),
    };
    let file = NewNode::File { exclusive: None };
    match &args.how {
        CreateHow3::Guarded(sattr) => {
            let attrs = change.initial_attrs(sattr, Ftype3::Reg, DEFAULT_FILE_MODE);
            change.make(cx, name, file, CreateMode::Guarded, &attrs)
        }
        CreateHow3::Exclusive(verf) => {
            let attrs = change.initial_attrs(&Sattr3::default(), Ftype3::Reg, DEFAULT_FILE_MODE);
            change.make(cx, name, NewNode::File { exclusive: Some(*verf) }, CreateMode::Exclusive, &attrs)
        }
        CreateHow3::Unchecked(sattr) => match change.dir.backend().lookup(change.dir.file, name) {
            Ok(existing) => reuse(cx, &change, existing, sattr),
            Err(NfsErr3::NoEnt) => {
                let attrs = change.initial_attrs(sattr, Ftype3::Reg, DEFAULT_FILE_MODE);
                change.make(cx, name, file, CreateMode::Unchecked, &attrs)
            }
            Err(e) => Nfs3Result::Fail(e, CreateResFail { dir_wcc: change.wcc() }),
        },
    }
}

/// UNCHECKED over an existing name: a regular file is truncated or extended to the requested size.
fn reuse(cx: &Call<'_>, change: &DirChange<'_>, existing: crate::backend::FileId, sattr: &Sattr3) -> CreateRes {
    let fail = |e| Nfs3Result::Fail(e, CreateResFail { dir_wcc: change.wcc() });
    let obj = change.dir.with_file(existing);
    let attrs = match obj.getattr() {
        Ok(attrs) if attrs.ftype == Ftype3::Reg => attrs,
        Ok(_) => return fail(NfsErr3::Exist),
        Err(e) => return fail(e),
    };
    if let Some(size) = sattr.size {
        let resize = Sattr3 { size: Some(size), ..Sattr3::default() };
        let applied = check_setattr(&attrs, &resize, &obj.cred).and_then(|a| obj.backend().setattr(existing, &a));
        if let Err(e) = applied {
            return fail(e);
        }
    }
    change.created(cx, existing)
}
