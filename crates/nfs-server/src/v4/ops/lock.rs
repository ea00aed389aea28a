//! Byte-range locks: LOCK (RFC 8881 §18.10), LOCKT (§18.11), LOCKU (§18.12), through the state machine.
//! A conflict is NFS4ERR_DENIED with the lock in the way (`LOCK4denied`): that result is put here. Locks
//! are on regular files only (ISDIR, SYMLINK, WRONG_TYPE otherwise, as knfsd's fh_verify for S_IFREG).
//! The blocking types are answered at once. LOCK and LOCKU make their lock stateid current.

use nfs4_proto::{
    Lock4Denied, LockArgs, LockOwner4, LockResOk, Locker4, LocktArgs, LockuArgs, LockuResOk, Nfs4Result, Nfs4ResultOr,
    NfsErr4, NfsLockType4, NfsResOp, Opaque4, Void,
};

use crate::v4::context::{require_regular, wire_stateid, Cx};
use crate::v4::errors::{from_state, from_v3};
use crate::v4::results::Results;
use crate::v4::state::{self, LockConflict, LockType, Locker, StateError};

fn lock_type(t: NfsLockType4) -> LockType {
    match t {
        NfsLockType4::Read | NfsLockType4::ReadW => LockType::Read,
        NfsLockType4::Write | NfsLockType4::WriteW => LockType::Write,
    }
}

fn wire_lock_type(t: LockType) -> NfsLockType4 {
    match t {
        LockType::Read => NfsLockType4::Read,
        LockType::Write => NfsLockType4::Write,
    }
}

/// The current file, checked to be a regular file.
fn regular_file(cx: &Cx<'_>) -> Result<state::FileKey, NfsErr4> {
    let obj = cx.current_obj(NfsErr4::IsDir)?;
    require_regular(&obj.getattr().map_err(from_v3)?)?;
    cx.file_key()
}

fn denied(conflict: &LockConflict) -> Lock4Denied<'_> {
    Lock4Denied {
        offset: conflict.offset,
        length: conflict.length,
        locktype: wire_lock_type(conflict.lock_type),
        owner: LockOwner4 { clientid: conflict.owner.clientid.0, owner: Opaque4(&conflict.owner.owner) },
    }
}

pub(crate) fn lock(cx: &mut Cx<'_>, args: &LockArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let file = regular_file(cx)?;
    let client = cx.clientid()?;
    let locker = match &args.locker {
        Locker4::NewLockOwner(o) => {
            Locker::New { open_stateid: cx.stateid(&o.open_stateid)?, owner: o.lock_owner.owner.as_bytes() }
        }
        Locker4::ExistingLockOwner(o) => Locker::Existing { lock_stateid: cx.stateid(&o.lock_stateid)? },
    };
    let request = state::LockArgs {
        clientid: client,
        file,
        lock_type: lock_type(args.locktype),
        reclaim: args.reclaim,
        offset: args.offset,
        length: args.length,
        locker,
    };
    let result = cx.state().lock(&request, cx.now);
    match result {
        Ok(stateid) => {
            let lock_stateid = wire_stateid(&stateid);
            cx.current_stateid = Some(lock_stateid);
            out.put(&NfsResOp::Lock(Nfs4ResultOr::Ok(LockResOk { lock_stateid })));
            Ok(())
        }
        Err(StateError::Denied { conflict }) => {
            out.put(&NfsResOp::Lock(Nfs4ResultOr::ErrBody(denied(&conflict))));
            Ok(())
        }
        Err(e) => Err(from_state(&e)),
    }
}

pub(crate) fn lockt(cx: &mut Cx<'_>, args: &LocktArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let file = regular_file(cx)?;
    let client = cx.clientid()?;
    let owner = args.owner.owner.as_bytes();
    let result = cx.state().lockt(client, file, lock_type(args.locktype), args.offset, args.length, owner, cx.now);
    match result {
        Ok(()) => out.put(&NfsResOp::Lockt(Nfs4ResultOr::Ok(Void))),
        Err(StateError::Denied { conflict }) => out.put(&NfsResOp::Lockt(Nfs4ResultOr::ErrBody(denied(&conflict)))),
        Err(e) => return Err(from_state(&e)),
    }
    Ok(())
}

pub(crate) fn locku(cx: &mut Cx<'_>, args: &LockuArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let file = regular_file(cx)?;
    let client = cx.clientid()?;
    let stateid = cx.stateid(&args.lock_stateid)?;
    let unlocked = cx.state().locku(client, file, &stateid, args.offset, args.length).map_err(|e| from_state(&e))?;
    let lock_stateid = wire_stateid(&unlocked);
    cx.current_stateid = Some(lock_stateid);
    out.put(&NfsResOp::Locku(Nfs4Result::Ok(LockuResOk { lock_stateid })));
    Ok(())
}
