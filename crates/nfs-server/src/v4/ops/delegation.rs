//! Delegations, which this server never grants: DELEGRETURN of anything is BAD_STATEID (RFC 8881
//! §18.6.3), GET_DIR_DELEGATION answers GDD4_UNAVAIL without a promise to signal (§18.39.3), and
//! WANT_DELEGATION answers OPEN_DELEGATE_NONE_EXT with WND4_NOT_SUPP_FTYPE (§18.49.3). Each needs a
//! current file handle first.

use nfs4_proto::{
    DelegreturnArgs, GetDirDelegationArgs, GetDirDelegationResNonFatal, Nfs4Result, NfsErr4, NfsResOp, OpenDelegation4,
    OpenNoneDelegation4, WantDelegationArgs, WhyNoDelegation4,
};

use crate::v4::context::Cx;
use crate::v4::results::Results;

pub(crate) fn delegreturn(cx: &mut Cx<'_>, _args: &DelegreturnArgs, _out: &mut Results) -> Result<(), NfsErr4> {
    cx.current()?;
    Err(NfsErr4::BadStateId)
}

pub(crate) fn get_dir_delegation(
    cx: &mut Cx<'_>,
    _args: &GetDirDelegationArgs,
    out: &mut Results,
) -> Result<(), NfsErr4> {
    cx.current()?;
    let unavailable = GetDirDelegationResNonFatal::Unavail { will_signal_deleg_avail: false };
    out.put(&NfsResOp::GetDirDelegation(Nfs4Result::Ok(unavailable)));
    Ok(())
}

pub(crate) fn want_delegation(cx: &mut Cx<'_>, _args: &WantDelegationArgs, out: &mut Results) -> Result<(), NfsErr4> {
    cx.current()?;
    let none = OpenDelegation4::NoneExt(OpenNoneDelegation4::Other(WhyNoDelegation4::NotSuppFtype));
    out.put(&NfsResOp::WantDelegation(Nfs4Result::Ok(none)));
    Ok(())
}
