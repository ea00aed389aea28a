//! SYMLINK (RFC 1813 §3.3.10): a symbolic link. The target is stored as given (the server never follows
//! it); an empty target or one with NUL is INVAL, one over 1024 bytes NAMETOOLONG (as knfsd).

use nfs3_proto::{CreateResFail, Ftype3, Nfs3Result, NfsErr3, Sattr3, SymlinkArgs};

use super::call::Call;
use super::dirop::DirChange;
use super::names::{check_new_name, PATH_MAX};
use crate::backend::{CreateMode, NewNode};
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &SymlinkArgs<'_>) -> Reply {
    let name = args.where_.name;
    let target = args.symlink.symlink_data;
    let res = match DirChange::open(cx, &args.where_.dir, name, check_new_name) {
        Ok(change) => match check_target(target) {
            Ok(()) => {
                // Links are always 0777 (the mode is never consulted); owner and group as for files.
                let requested = Sattr3 { mode: None, ..args.symlink.symlink_attributes };
                let attrs = change.initial_attrs(&requested, Ftype3::Lnk, 0o777);
                change.make(cx, name, NewNode::Symlink { target }, CreateMode::Guarded, &attrs)
            }
            Err(e) => Nfs3Result::Fail(e, CreateResFail { dir_wcc: change.wcc() }),
        },
        Err((e, dir_wcc)) => Nfs3Result::Fail(e, CreateResFail { dir_wcc }),
    };
    cx.reply(&res)
}

fn check_target(target: &[u8]) -> Result<(), NfsErr3> {
    if target.len() > PATH_MAX {
        return Err(NfsErr3::NameTooLong);
    }
    if target.is_empty() || target.contains(&0) {
        return Err(NfsErr3::Inval);
    }
    Ok(())
}
