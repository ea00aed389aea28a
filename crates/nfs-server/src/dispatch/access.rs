//! ACCESS (RFC 1813 §3.3.4): which of the requested rights the caller holds, from the mode bits and
//! the caller's squashed credentials (see [`crate::access::access_mask`]).

use nfs3_proto::{AccessArgs, AccessResFail, AccessResOk, Nfs3Result};

use super::call::Call;
use crate::access::access_mask;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &AccessArgs) -> Reply {
    let res = match cx.resolve(&args.object).and_then(|obj| Ok((obj, obj.getattr()?))) {
        Ok((obj, attrs)) => Nfs3Result::Ok(AccessResOk {
            obj_attributes: Some(attrs),
            access: access_mask(&attrs, &obj.cred, args.access, obj.export.read_only),
        }),
        Err(e) => Nfs3Result::Fail(e, AccessResFail::default()),
    };
    cx.reply(&res)
}
