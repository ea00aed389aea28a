//! CLOSE (RFC 8881 §18.2) and OPEN_DOWNGRADE (§18.18): the open stateid of the current file, handed to
//! the state machine. CLOSE answers the invalid special stateid (§18.2.4's recommendation) and leaves no
//! current stateid; OPEN_DOWNGRADE's new stateid becomes the current one.

use nfs4_proto::{
    CloseArgs, CloseResOk, Nfs4Result, NfsErr4, NfsResOp, OpenDowngradeArgs, OpenDowngradeResOk,
    OPEN4_SHARE_ACCESS_WANT_DELEG_MASK,
};

use crate::v4::context::{wire_stateid, Cx};
use crate::v4::errors::from_state;
use crate::v4::results::Results;

pub(crate) fn close(cx: &mut Cx<'_>, args: &CloseArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let file = cx.file_key()?;
    let stateid = cx.stateid(&args.open_stateid)?;
    let client = cx.clientid()?;
    let closed = cx.state().close(client, file, &stateid).map_err(|e| from_state(&e))?;
    cx.current_stateid = None;
    out.put(&NfsResOp::Close(Nfs4Result::Ok(CloseResOk { open_stateid: wire_stateid(&closed) })));
    Ok(())
}

pub(crate) fn open_downgrade(cx: &mut Cx<'_>, args: &OpenDowngradeArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let file = cx.file_key()?;
    let stateid = cx.stateid(&args.open_stateid)?;
    let client = cx.clientid()?;
    // RFC 8881 §18.18.3: the want bits mean nothing here.
    let access = args.share_access & !OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
    let downgraded =
        cx.state().open_downgrade(client, file, &stateid, access, args.share_deny).map_err(|e| from_state(&e))?;
    let open_stateid = wire_stateid(&downgraded);
    cx.current_stateid = Some(open_stateid);
    out.put(&NfsResOp::OpenDowngrade(Nfs4Result::Ok(OpenDowngradeResOk { open_stateid })));
    Ok(())
}
