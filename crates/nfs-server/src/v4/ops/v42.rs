//! NFSv4.2's file operations this server offers (RFC 7862): SEEK (§15.11), ALLOCATE (§15.1) and
//! DEALLOCATE (§15.4), as far as the backend can ([`crate::backend::Backend::seek`], `allocate`,
//! `deallocate`; NOTSUPP where it cannot). SEEK past the last data or hole is NXIO, as lseek(2) and knfsd
//! answer; `sr_eof` says the offset found is the end of the file.

use nfs4_proto::{AllocateArgs, DataContent4, Nfs4Result, NfsErr4, NfsResOp, SeekArgs, SeekResOk, Void};

use crate::backend::Seek;
use crate::v4::context::{require_regular, Cx};
use crate::v4::errors::{from_state, from_v3};
use crate::v4::results::Results;
use crate::v4::state::IoAccess;

pub(crate) fn seek(cx: &mut Cx<'_>, args: &SeekArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    let attrs = obj.getattr().map_err(from_v3)?;
    require_regular(&attrs)?;
    let stateid = cx.stateid(&args.stateid)?;
    let (client, file) = (cx.clientid()?, cx.file_key()?);
    cx.state().check_io(client, file, &stateid, IoAccess::Read, cx.now).map_err(|e| from_state(&e))?;
    let what = match args.what {
        DataContent4::Data => Seek::Data,
        DataContent4::Hole => Seek::Hole,
    };
    let found = obj.backend().seek(obj.file, args.offset, what).map_err(from_v3)?.ok_or(NfsErr4::Nxio)?;
    let size = obj.getattr().map_or(attrs.size, |a| a.size);
    out.put(&NfsResOp::Seek(Nfs4Result::Ok(SeekResOk { eof: found >= size, offset: found })));
    Ok(())
}

/// ALLOCATE (`punch` false) or DEALLOCATE (`punch` true).
pub(crate) fn allocate(cx: &mut Cx<'_>, args: &AllocateArgs, out: &mut Results, punch: bool) -> Result<(), NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    let attrs = obj.getattr().map_err(from_v3)?;
    require_regular(&attrs)?;
    obj.require_writable().map_err(from_v3)?;
    // RFC 7862 §15.1.3: a range past what a file can hold.
    if args.length == 0 || args.offset.checked_add(args.length).is_none() {
        return Err(NfsErr4::Inval);
    }
    let stateid = cx.stateid(&args.stateid)?;
    let (client, file) = (cx.clientid()?, cx.file_key()?);
    cx.state().check_io(client, file, &stateid, IoAccess::Write, cx.now).map_err(|e| from_state(&e))?;
    let backend = obj.backend();
    if punch {
        backend.deallocate(obj.file, args.offset, args.length).map_err(from_v3)?;
        out.put(&NfsResOp::Deallocate(Nfs4Result::Ok(Void)));
    } else {
        backend.allocate(obj.file, args.offset, args.length).map_err(from_v3)?;
        out.put(&NfsResOp::Allocate(Nfs4Result::Ok(Void)));
    }
    Ok(())
}
