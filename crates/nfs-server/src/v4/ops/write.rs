//! WRITE (RFC 8881 §18.32) and COMMIT (§18.3): the stateid checked as a write (OPENMODE through a
//! read-only open, LOCKED against a deny reservation), the data borrowed from the call record, stability
//! and the write verifier as NFSv3 has them (a restart changes the verifier, so clients re-send what was
//! not committed). A caller that is not root after squashing clears set-id bits, as with NFSv3.

use nfs3_proto::StableHow;
use nfs4_proto::{
    CommitArgs, CommitResOk, Nfs4Result, NfsErr4, NfsResOp, StableHow4, Verifier4, WriteArgs, WriteResOk,
};

use crate::access::may_write_data;
use crate::backend::Caller;
use crate::v4::context::{require_regular, Cx};
use crate::v4::errors::{from_state, from_v3};
use crate::v4::results::Results;
use crate::v4::state::IoAccess;

fn stable3(how: StableHow4) -> StableHow {
    match how {
        StableHow4::Unstable => StableHow::Unstable,
        StableHow4::DataSync => StableHow::DataSync,
        StableHow4::FileSync => StableHow::FileSync,
    }
}

fn stable4(how: StableHow) -> StableHow4 {
    match how {
        StableHow::Unstable => StableHow4::Unstable,
        StableHow::DataSync => StableHow4::DataSync,
        StableHow::FileSync => StableHow4::FileSync,
    }
}

pub(crate) fn write(cx: &mut Cx<'_>, args: &WriteArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    let attrs = obj.getattr().map_err(from_v3)?;
    require_regular(&attrs)?;
    obj.require_writable().map_err(from_v3)?;
    let stateid = cx.stateid(&args.stateid)?;
    let (client, file) = (cx.clientid()?, cx.file_key()?);
    cx.state().check_io(client, file, &stateid, IoAccess::Write, cx.now).map_err(|e| from_state(&e))?;
    if stateid.is_anonymous_io() && !may_write_data(&attrs, &obj.cred) {
        return Err(NfsErr4::Access);
    }
    if args.offset.checked_add(args.data.len() as u64).is_none() {
        return Err(NfsErr4::FBig);
    }
    // RFC 8881 §18.32.3: the server may write less than asked (the client sends the rest).
    let data = args.data.get(..args.data.len().min(cx.server.max_io_size as usize)).unwrap_or(args.data);
    let caller = Caller::of_uid(obj.cred.uid);
    let done = obj.backend().write(obj.file, args.offset, data, stable3(args.stable), caller).map_err(from_v3)?;
    out.put(&NfsResOp::Write(Nfs4Result::Ok(WriteResOk {
        count: done.count,
        committed: stable4(done.committed),
        writeverf: Verifier4(obj.backend().write_verifier().0),
    })));
    Ok(())
}

pub(crate) fn commit(cx: &mut Cx<'_>, args: &CommitArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    let attrs = obj.getattr().map_err(from_v3)?;
    require_regular(&attrs)?;
    // RFC 8881 §18.3.3: a range past 2^64 is INVAL.
    if args.offset.checked_add(u64::from(args.count)).is_none() {
        return Err(NfsErr4::Inval);
    }
    obj.backend().commit(obj.file, args.offset, args.count).map_err(from_v3)?;
    out.put(&NfsResOp::Commit(Nfs4Result::Ok(CommitResOk { writeverf: Verifier4(obj.backend().write_verifier().0) })));
    Ok(())
}
