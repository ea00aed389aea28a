//! READLINK (RFC 1813 §3.3.5): the target of a symbolic link (INVAL for any other type, as knfsd). NFSv3
//! encodes it inline with the attributes (no payload apart: at most 4 KiB, and rare).

use nfs3_proto::{Ftype3, NfsErr3, ReadlinkArgs, ReadlinkRes, ReadlinkResFail, ReadlinkResOk};

use super::call::Call;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &ReadlinkArgs) -> Reply {
    let empty = |e| ReadlinkRes::Fail(e, ReadlinkResFail::default());
    let obj = match cx.resolve(&args.symlink) {
        Ok(obj) => obj,
        Err(e) => return cx.reply(&empty(e)),
    };
    let attrs = match obj.getattr() {
        Ok(attrs) => attrs,
        Err(e) => return cx.reply(&empty(e)),
    };
    let fail = |e| ReadlinkRes::Fail(e, ReadlinkResFail { symlink_attributes: Some(attrs) });
    if attrs.ftype != Ftype3::Lnk {
        return cx.reply(&fail(NfsErr3::Inval));
    }
    match obj.backend().readlink(obj.file) {
        Ok(served) => {
            let target = served.data.to_vec();
            cx.reply_sized(
                &ReadlinkRes::Ok(ReadlinkResOk { symlink_attributes: Some(attrs), data: &target }),
                128 + target.len(),
            )
        }
        Err(e) => cx.reply(&fail(e)),
    }
}
