//! READ (RFC 8881 §18.22) and READLINK (§18.24). Their data is the reply's next payload (RFC 8267 §4.2:
//! over RPC-over-RDMA it goes into the client's next Write chunk, in operation order): what the backend
//! serves, as it is (slices of the `mem:` backend's pages, or the buffer `dir:` read into).
//!
//! READ checks the stateid as a read (the anonymous and bypass stateids are allowed unless a deny
//! reservation stands, and then need read permission as NFSv3 does); an open or lock stateid was checked
//! when the file was opened. The count is cut to the largest I/O size and to what still fits in the
//! session's ca_maxresponsesize: a short read, which the client continues (§18.22.3).

use nfs3_proto::Ftype3;
use nfs4_proto::{NfsErr4, OpNum4, ReadArgs};

use crate::access::may_read_data;
use crate::v4::context::{require_regular, Cx};
use crate::v4::errors::{from_state, from_v3};
use crate::v4::results::Results;
use crate::v4::state::IoAccess;

/// READ4resok's bytes around the data: eof, the length word, the data's padding.
const READ_OVERHEAD: usize = 4 + 4 + 3;

pub(crate) fn read(cx: &mut Cx<'_>, args: &ReadArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    let attrs = obj.getattr().map_err(from_v3)?;
    require_regular(&attrs)?;
    let stateid = cx.stateid(&args.stateid)?;
    let (client, file) = (cx.clientid()?, cx.file_key()?);
    cx.state().check_io(client, file, &stateid, IoAccess::Read, cx.now).map_err(|e| from_state(&e))?;
    if stateid.is_anonymous_io() && !may_read_data(&attrs, &obj.cred) {
        return Err(NfsErr4::Access);
    }
    let room = u32::try_from(cx.room.saturating_sub(READ_OVERHEAD)).unwrap_or(u32::MAX);
    let count = args.count.min(cx.server.max_io_size).min(room);
    let (mut served, eof) = obj.backend().read(obj.file, args.offset, count).map_err(from_v3)?;
    served.data.truncate(count as usize);
    served.copied = served.copied.min(served.data.len());
    out.put_with_payload(OpNum4::Read, &u32::from(eof).to_be_bytes(), served);
    Ok(())
}

pub(crate) fn readlink(cx: &mut Cx<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    let attrs = obj.getattr().map_err(from_v3)?;
    // RFC 8881 §18.24.3: only a symbolic link has link text (INVAL otherwise, as knfsd).
    match attrs.ftype {
        Ftype3::Lnk => {}
        Ftype3::Dir => return Err(NfsErr4::IsDir),
        _ => return Err(NfsErr4::Inval),
    }
    let link = obj.backend().readlink(obj.file).map_err(from_v3)?;
    out.put_with_payload(OpNum4::Readlink, &[], link);
    Ok(())
}
