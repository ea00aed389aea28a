//! MKDIR (RFC 1813 §3.3.9): a new directory (inheriting S_ISGID from a set-group-id parent).

use nfs3_proto::{CreateResFail, Ftype3, MkdirArgs, Nfs3Result};

use super::call::Call;
use super::dirop::DirChange;
use super::names::check_new_name;
use crate::backend::{CreateMode, NewNode};
use crate::Reply;

/// Mode of a directory created without one.
const DEFAULT_DIR_MODE: u32 = 0o755;

pub(crate) fn run(cx: &Call<'_>, args: &MkdirArgs<'_>) -> Reply {
    let name = args.where_.name;
    let res = match DirChange::open(cx, &args.where_.dir, name, check_new_name) {
        Ok(change) => {
            let attrs = change.initial_attrs(&args.attributes, Ftype3::Dir, DEFAULT_DIR_MODE);
            change.make(cx, name, NewNode::Directory, CreateMode::Guarded, &attrs)
        }
        Err((e, dir_wcc)) => Nfs3Result::Fail(e, CreateResFail { dir_wcc }),
    };
    cx.reply(&res)
}
