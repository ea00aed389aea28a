//! The operations, one file each or one per small family. Each takes the COMPOUND's context and its
//! arguments, and on success appends its result (`Results::put`); an error is returned and the COMPOUND
//! puts the operation's failure result (RFC 8881 §15.2). Results that carry a body with an error (LOCK's
//! NFS4ERR_DENIED) are put by the operation itself.
//!
//! Not offered, answered NFS4ERR_NOTSUPP as RFC 8881 §15.2 and RFC 7862 §13 allow for optional operations:
//! pNFS (LAYOUT*, GETDEVICE*; EXCHANGE_ID says USE_NON_PNFS), named attributes (OPENATTR), SET_SSV (only
//! SP4_NONE is accepted), DELEGPURGE, and NFSv4.2's COPY, COPY_NOTIFY, OFFLOAD_*, CLONE, WRITE_SAME,
//! IO_ADVISE, LAYOUTERROR, LAYOUTSTATS, READ_PLUS (the Linux client then uses READ) and the extended
//! attributes of RFC 8276; and the NFSv4.0 operations a 4.1 client must not send (RFC 8881 §18.2.x:
//! OPEN_CONFIRM, RENEW, SETCLIENTID, SETCLIENTID_CONFIRM, RELEASE_LOCKOWNER).

mod access;
mod create;
mod delegation;
mod dirop;
mod filehandle;
mod getattr;
mod link;
mod lock;
mod lookup;
mod names;
mod open;
mod open_state;
mod read;
mod readdir;
mod remove;
mod rename;
mod secinfo;
pub(crate) mod sequence;
mod session;
mod setattr;
mod stateid;
mod v42;
mod write;

use nfs4_proto::{NfsArgOp, NfsErr4};

use super::context::Cx;
use super::results::Results;

/// Runs operation `op` (any but a leading SEQUENCE, which `sequence::begin` runs).
pub(crate) fn execute(cx: &mut Cx<'_>, op: &NfsArgOp<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    use NfsArgOp as A;
    match op {
        // RFC 8881 §18.46.3: SEQUENCE anywhere but first.
        A::Sequence(_) => Err(NfsErr4::SequencePos),
        A::ExchangeId(a) => session::exchange_id(cx, a, out),
        A::CreateSession(a) => session::create_session(cx, a, out),
        A::DestroySession(a) => session::destroy_session(cx, a, out),
        A::BindConnToSession(a) => session::bind_conn_to_session(cx, a, out),
        A::BackchannelCtl(a) => session::backchannel_ctl(cx, a, out),
        A::ReclaimComplete(a) => session::reclaim_complete(cx, a, out),
        A::DestroyClientid(a) => session::destroy_clientid(cx, a, out),
        A::Putfh(a) => filehandle::putfh(cx, a, out),
        A::Putrootfh => filehandle::putrootfh(cx, out, false),
        A::Putpubfh => filehandle::putrootfh(cx, out, true),
        A::Getfh => filehandle::getfh(cx, out),
        A::Savefh => filehandle::savefh(cx, out),
        A::Restorefh => filehandle::restorefh(cx, out),
        A::Lookup(a) => lookup::lookup(cx, a, out),
        A::Lookupp => lookup::lookupp(cx, out),
        A::Getattr(a) => getattr::getattr(cx, a, out),
        A::Verify(a) => getattr::verify(cx, &a.obj_attributes, false, out),
        A::Nverify(a) => getattr::verify(cx, &a.obj_attributes, true, out),
        A::Setattr(a) => setattr::run(cx, a, out),
        A::Access(a) => access::run(cx, a, out),
        A::Open(a) => open::run(cx, a, out),
        A::OpenDowngrade(a) => open_state::open_downgrade(cx, a, out),
        A::Close(a) => open_state::close(cx, a, out),
        A::Read(a) => read::read(cx, a, out),
        A::Readlink => read::readlink(cx, out),
        A::Write(a) => write::write(cx, a, out),
        A::Commit(a) => write::commit(cx, a, out),
        A::Create(a) => create::run(cx, a, out),
        A::Remove(a) => remove::run(cx, a, out),
        A::Rename(a) => rename::run(cx, a, out),
        A::Link(a) => link::run(cx, a, out),
        A::Readdir(a) => readdir::run(cx, a, out),
        A::Lock(a) => lock::lock(cx, a, out),
        A::Lockt(a) => lock::lockt(cx, a, out),
        A::Locku(a) => lock::locku(cx, a, out),
        A::FreeStateid(a) => stateid::free_stateid(cx, a, out),
        A::TestStateid(a) => stateid::test_stateid(cx, a, out),
        A::Delegreturn(a) => delegation::delegreturn(cx, a, out),
        A::GetDirDelegation(a) => delegation::get_dir_delegation(cx, a, out),
        A::WantDelegation(a) => delegation::want_delegation(cx, a, out),
        A::Secinfo(a) => secinfo::secinfo(cx, a, out),
        A::SecinfoNoName(a) => secinfo::secinfo_no_name(cx, *a, out),
        A::Seek(a) => v42::seek(cx, a, out),
        A::Allocate(a) => v42::allocate(cx, a, out, false),
        A::Deallocate(a) => v42::allocate(cx, a, out, true),
        A::Delegpurge(_)
        | A::Openattr(_)
        | A::SetSsv(_)
        | A::Layoutget(_)
        | A::Layoutcommit(_)
        | A::Layoutreturn(_)
        | A::Getdeviceinfo(_)
        | A::Getdevicelist(_)
        | A::ReadPlus(_)
        | A::Copy(_)
        | A::CopyNotify(_)
        | A::OffloadCancel(_)
        | A::OffloadStatus(_)
        | A::Clone(_)
        | A::WriteSame(_)
        | A::IoAdvise(_)
        | A::Layouterror(_)
        | A::Layoutstats(_)
        | A::Getxattr(_)
        | A::Setxattr(_)
        | A::Listxattrs(_)
        | A::Removexattr(_) => Err(NfsErr4::NotSupp),
        // RFC 8881 §18.x: NFSv4.0's own operations, which a minor version 1 COMPOUND must not carry.
        A::OpenConfirm(_) | A::Renew(_) | A::Setclientid(_) | A::SetclientidConfirm(_) | A::ReleaseLockowner(_) => {
            Err(NfsErr4::NotSupp)
        }
    }
}
