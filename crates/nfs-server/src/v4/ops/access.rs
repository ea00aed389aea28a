//! ACCESS (RFC 8881 §18.1): the NFSv3 rules (`crate::access`, the bits have the same values), on the
//! export's squashed credentials; pseudo directories are read-only. The extended-attribute bits of
//! RFC 8276 are not checked, so not reported as supported.

use nfs4_proto::{AccessArgs, AccessResOk, Nfs4Result, NfsErr4, NfsResOp};

use crate::access::access_mask;
use crate::v4::context::Cx;
use crate::v4::fh::Fh;
use crate::v4::results::Results;

/// ACCESS4_READ through ACCESS4_EXECUTE.
const CHECKED: u32 = 0x3f;

pub(crate) fn run(cx: &mut Cx<'_>, args: &AccessArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let fh = cx.current()?;
    let attrs = cx.current_attrs()?;
    let cred = cx.cred_for(fh)?;
    let read_only = match fh {
        Fh::Pseudo(_) => true,
        Fh::File { export, .. } => cx.server.exports.get(usize::from(export)).is_none_or(|e| e.read_only),
    };
    let supported = args.access & CHECKED;
    let access = access_mask(&attrs, &cred, supported, read_only);
    out.put(&NfsResOp::Access(Nfs4Result::Ok(AccessResOk { supported, access })));
    Ok(())
}
