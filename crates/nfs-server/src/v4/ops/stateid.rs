//! FREE_STATEID (RFC 8881 §18.38) and TEST_STATEID (§18.48), for the session's client; neither needs a
//! current file handle.

use nfs4_proto::{FreeStateidArgs, Nfs4Result, NfsErr4, NfsResOp, NfsStat4, TestStateidArgs, TestStateidResOk, Void};

use crate::v4::context::Cx;
use crate::v4::errors::from_state;
use crate::v4::results::Results;
use crate::v4::state::Stateid;

pub(crate) fn free_stateid(cx: &mut Cx<'_>, args: &FreeStateidArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let client = cx.clientid()?;
    let stateid = cx.stateid(&args.stateid)?;
    cx.state().free_stateid(client, &stateid).map_err(|e| from_state(&e))?;
    out.put(&NfsResOp::FreeStateid(Nfs4Result::Ok(Void)));
    Ok(())
}

pub(crate) fn test_stateid(cx: &mut Cx<'_>, args: &TestStateidArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let client = cx.clientid()?;
    // RFC 8881 §18.48.3: each stateid on its own; the current-stateid value is not special here.
    let stateids: Vec<Stateid> = args.stateids.iter().map(|s| Stateid { seqid: s.seqid, other: s.other }).collect();
    let status_codes = cx
        .state()
        .test_stateids(client, &stateids)
        .iter()
        .map(|r| match r {
            Ok(()) => NfsStat4::Ok,
            Err(e) => from_state(e).status(),
        })
        .collect();
    out.put(&NfsResOp::TestStateid(Nfs4Result::Ok(TestStateidResOk { status_codes })));
    Ok(())
}
