//! SETATTR (RFC 8881 §18.30): the attributes decoded (`attrs::decode_settable`), the NFSv3 ownership and
//! permission rules (`crate::access::check_setattr`, set-id bits dropped as the kernel does), and for a
//! size change the stateid check of a write (§18.30.3: the stateid matters only then).

use nfs4_proto::{Bitmap4, NfsErr4, NfsResOp, NfsStat4, SetattrArgs, SetattrRes};

use crate::access::check_setattr;
use crate::v4::attrs::decode_settable;
use crate::v4::context::Cx;
use crate::v4::errors::{from_state, from_v3};
use crate::v4::results::Results;
use crate::v4::state::IoAccess;

pub(crate) fn run(cx: &mut Cx<'_>, args: &SetattrArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    // The pseudo file system is read-only.
    let obj = cx.current_obj(NfsErr4::Rofs)?;
    let settable = decode_settable(&args.obj_attributes, cx.minor)?;
    obj.require_writable().map_err(from_v3)?;
    let current = obj.getattr().map_err(from_v3)?;
    if settable.sattr.size.is_some() {
        let stateid = cx.stateid(&args.stateid)?;
        let (client, file) = (cx.clientid()?, cx.file_key()?);
        cx.state().check_io(client, file, &stateid, IoAccess::Write, cx.now).map_err(|e| from_state(&e))?;
    }
    let applied = check_setattr(&current, &settable.sattr, &obj.cred).map_err(from_v3)?;
    obj.backend().setattr(obj.file, &applied).map_err(from_v3)?;
    let attrsset = if settable.mask.is_empty() { Bitmap4::EMPTY } else { settable.mask };
    out.put(&NfsResOp::Setattr(SetattrRes { status: NfsStat4::Ok, attrsset }));
    Ok(())
}
