//! Callback arguments and results.

use super::*;
use crate::callback::*;
use crate::*;

/// Callback arguments for every callback operation and every union arm.
pub fn cb_args() -> Vec<CbArgOp<'static>> {
    use CbArgOp as A;
    vec![
        A::CbGetattr(CbGetattrArgs { fh: fh(1, 16), attr_request: bitmap(&[3, 4]) }),
        A::CbRecall(CbRecallArgs { stateid: sid(5), truncate: false, fh: fh(1, 16) }),
        A::CbLayoutrecall(CbLayoutrecallArgs {
            layout_type: 1,
            iomode: LayoutIoMode4::Any,
            changed: true,
            recall: Layoutrecall4::File(LayoutrecallFile4 { fh: fh(2, 8), offset: 0, length: 1, stateid: sid(8) }),
        }),
        A::CbLayoutrecall(CbLayoutrecallArgs {
            layout_type: 1,
            iomode: LayoutIoMode4::Read,
            changed: false,
            recall: Layoutrecall4::Fsid(Fsid4 { major: 1, minor: 2 }),
        }),
        A::CbLayoutrecall(CbLayoutrecallArgs {
            layout_type: 1,
            iomode: LayoutIoMode4::Rw,
            changed: false,
            recall: Layoutrecall4::All,
        }),
        A::CbNotify(CbNotifyArgs {
            stateid: sid(2),
            fh: fh(3, 8),
            changes: vec![Notify4 { mask: bitmap(&[1]), values: OpaqueBody(b"vals") }],
        }),
        A::CbPushDeleg(CbPushDelegArgs { fh: fh(3, 8), delegation: OpenDelegation4::None }),
        A::CbRecallAny(CbRecallAnyArgs { objects_to_keep: 0, type_mask: bitmap(&[RCA4_TYPE_MASK_RDATA_DLG]) }),
        A::CbRecallableObjAvail(CbRecallAnyArgs { objects_to_keep: 1, type_mask: Bitmap4::EMPTY }),
        A::CbRecallSlot(CbRecallSlotArgs { target_highest_slotid: 3 }),
        A::CbSequence(CbSequenceArgs {
            sessionid: SessionId4([5; 16]),
            sequenceid: 1,
            slotid: 0,
            highest_slotid: 0,
            cachethis: false,
            referring_call_lists: vec![ReferringCallList4 {
                sessionid: SessionId4([5; 16]),
                referring_calls: vec![ReferringCall4 { sequenceid: 7, slotid: 2 }],
            }],
        }),
        A::CbWantsCancelled(CbWantsCancelledArgs { contended_wants_cancelled: true, resourced_wants_cancelled: false }),
        A::CbNotifyLock(CbNotifyLockArgs { fh: fh(4, 32), lock_owner: owner() }),
        A::CbNotifyDeviceid(CbNotifyDeviceidArgs { changes: vec![] }),
        A::CbOffload(CbOffloadArgs { fh: fh(4, 32), stateid: sid(9), info: OffloadInfo4::Ok(write_response()) }),
        A::CbOffload(CbOffloadArgs {
            fh: fh(4, 32),
            stateid: sid(9),
            info: OffloadInfo4::Err { status: NfsErr4::NoSpc, bytes_copied: 512 },
        }),
    ]
}

/// Callback results: both arms of each.
pub fn cb_results() -> Vec<CbResOp<'static>> {
    let mut out = vec![
        CbResOp::CbGetattr(Nfs4Result::Ok(CbGetattrResOk { obj_attributes: getattr_attrs() })),
        CbResOp::CbSequence(Nfs4Result::Ok(CbSequenceResOk {
            sessionid: SessionId4([5; 16]),
            sequenceid: 1,
            slotid: 0,
            highest_slotid: 0,
            target_highest_slotid: 0,
        })),
        CbResOp::Illegal(IllegalRes::default()),
    ];
    for &op in CbOpNum4::ALL {
        if op != CbOpNum4::Illegal {
            out.push(CbResOp::error(op, NfsErr4::Delay));
            if !matches!(op, CbOpNum4::CbGetattr | CbOpNum4::CbSequence) {
                let ok = CbResOp::decode_body(op, &mut xdr::XdrReader::new(&[0, 0, 0, 0]));
                out.push(ok.expect("a status-only result decodes from NFS4_OK"));
            }
        }
    }
    out
}
