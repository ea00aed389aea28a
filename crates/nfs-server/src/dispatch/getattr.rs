//! GETATTR (RFC 1813 §3.3.1): the attributes of any object; no permission is needed.

use nfs3_proto::{GetattrArgs, GetattrRes, GetattrResOk, Nfs3Result, Void};

use super::call::Call;
use crate::Reply;

pub(crate) fn run(cx: &Call<'_>, args: &GetattrArgs) -> Reply {
    let res: GetattrRes = match cx.resolve(&args.object).and_then(|obj| obj.getattr()) {
        Ok(obj_attributes) => Nfs3Result::Ok(GetattrResOk { obj_attributes }),
        Err(e) => Nfs3Result::Fail(e, Void),
    };
    cx.reply(&res)
}
