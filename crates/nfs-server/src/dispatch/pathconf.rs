//! PATHCONF (RFC 1813 §3.3.20): POSIX limits, the same for every object (FSF3_HOMOGENEOUS).

use nfs3_proto::{Nfs3Result, PathconfArgs, PathconfResFail, PathconfResOk};

use super::call::Call;
use super::names::NAME_MAX;
use crate::Reply;

/// Most hard links to one file (ext4's limit, which knfsd reports for it).
const LINK_MAX: u32 = 65_000;

pub(crate) fn run(cx: &Call<'_>, args: &PathconfArgs) -> Reply {
    let res = match cx.resolve(&args.object).and_then(|obj| obj.getattr()) {
        Ok(attrs) => Nfs3Result::Ok(PathconfResOk {
            obj_attributes: Some(attrs),
            linkmax: LINK_MAX,
            name_max: NAME_MAX as u32,
            // Long names are refused (NAMETOOLONG), never truncated.
            no_trunc: true,
            // Only root may give files away (see crate::access::check_setattr).
            chown_restricted: true,
            case_insensitive: false,
            case_preserving: true,
        }),
        Err(e) => Nfs3Result::Fail(e, PathconfResFail::default()),
    };
    cx.reply(&res)
}
