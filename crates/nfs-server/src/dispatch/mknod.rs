//! MKNOD (RFC 1813 §3.3.11): a device, socket or FIFO. Regular files, directories and links are
//! BADTYPE (they have their own procedures); devices need root (PERM otherwise, as mknod(2)).

use nfs3_proto::{CreateRes, CreateResFail, Ftype3, MknodArgs, MknodData3, NfsErr3, Sattr3, SpecData3};

use super::call::Call;
use super::dirop::DirChange;
use super::names::check_new_name;
use crate::backend::{CreateMode, NewNode};
use crate::Reply;

/// Mode of a node created without one.
const DEFAULT_NODE_MODE: u32 = 0o644;

pub(crate) fn run(cx: &Call<'_>, args: &MknodArgs<'_>) -> Reply {
    let name = args.where_.name;
    let change = match DirChange::open(cx, &args.where_.dir, name, check_new_name) {
        Ok(change) => change,
        Err((e, dir_wcc)) => return cx.reply(&CreateRes::Fail(e, CreateResFail { dir_wcc })),
    };
    let fail = |e| CreateRes::Fail(e, CreateResFail { dir_wcc: change.wcc() });
    let (ftype, sattr, rdev): (Ftype3, &Sattr3, SpecData3) = match &args.what {
        MknodData3::Chr(d) => (Ftype3::Chr, &d.dev_attributes, d.spec),
        MknodData3::Blk(d) => (Ftype3::Blk, &d.dev_attributes, d.spec),
        MknodData3::Sock(a) => (Ftype3::Sock, a, SpecData3::default()),
        MknodData3::Fifo(a) => (Ftype3::Fifo, a, SpecData3::default()),
        MknodData3::Reg | MknodData3::Dir | MknodData3::Lnk => return cx.reply(&fail(NfsErr3::BadType)),
    };
    if matches!(ftype, Ftype3::Chr | Ftype3::Blk) && !change.dir.cred.is_root() {
        return cx.reply(&fail(NfsErr3::Perm));
    }
    let attrs = change.initial_attrs(sattr, ftype, DEFAULT_NODE_MODE);
    cx.reply(&change.make(cx, name, NewNode::Special { ftype, rdev }, CreateMode::Guarded, &attrs))
}
