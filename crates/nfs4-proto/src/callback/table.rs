//! `nfs_cb_argop4` and `nfs_cb_resop4` (RFC 8881 §20): every callback operation's arguments and result,
//! keyed by [`CbOpNum4`].

use super::ops::*;
use super::CbOpNum4;
use crate::ops::IllegalRes;

op_table! {
    /// `nfs_cb_argop4`: one callback operation with its arguments, after its number.
    pub enum CbArgOp<'a>;
    /// `nfs_cb_resop4`: one callback operation's result, after its number.
    pub enum CbResOp<'a> by CbOpNum4, illegal IllegalRes;
    void {}
    CbGetattr(CbGetattrArgs) => CbGetattrRes<'a>,
    CbRecall(CbRecallArgs) => CbStatusRes,
    CbLayoutrecall(CbLayoutrecallArgs) => CbStatusRes,
    CbNotify(CbNotifyArgs<'a>) => CbStatusRes,
    CbPushDeleg(CbPushDelegArgs<'a>) => CbStatusRes,
    CbRecallAny(CbRecallAnyArgs) => CbStatusRes,
    CbRecallableObjAvail(CbRecallableObjAvailArgs) => CbStatusRes,
    CbRecallSlot(CbRecallSlotArgs) => CbStatusRes,
    CbSequence(CbSequenceArgs) => CbSequenceRes,
    CbWantsCancelled(CbWantsCancelledArgs) => CbStatusRes,
    CbNotifyLock(CbNotifyLockArgs<'a>) => CbStatusRes,
    CbNotifyDeviceid(CbNotifyDeviceidArgs<'a>) => CbStatusRes,
    CbOffload(CbOffloadArgs) => CbStatusRes,
}
