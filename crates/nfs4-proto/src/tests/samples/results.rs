//! Every arm of every forechannel result.

use super::*;
use crate::*;

fn denied() -> Lock4Denied<'static> {
    Lock4Denied { offset: 5, length: 10, locktype: NfsLockType4::Read, owner: owner() }
}

/// The success arm of every result, and every error arm that carries a body.
pub fn results() -> Vec<NfsResOp<'static>> {
    use Nfs4Result::Ok as K;
    use NfsResOp as R;
    let mut out = vec![
        R::Access(K(AccessResOk { supported: 0x3f, access: ACCESS4_READ })),
        R::Close(K(CloseResOk { open_stateid: Stateid4::INVALID })),
        R::Commit(K(CommitResOk { writeverf: verifier(1) })),
        R::Create(K(CreateResOk { cinfo: cinfo(), attrset: bitmap(&[33]) })),
        R::Delegpurge(K(Void)),
        R::Delegreturn(K(Void)),
        R::Getattr(K(GetattrResOk { obj_attributes: getattr_attrs() })),
        R::Getfh(K(GetfhResOk { object: fh(3, 28) })),
        R::Link(K(LinkResOk { cinfo: cinfo() })),
        R::Lock(Nfs4ResultOr::Ok(LockResOk { lock_stateid: sid(4) })),
        R::Lock(Nfs4ResultOr::ErrBody(denied())),
        R::Lockt(Nfs4ResultOr::Ok(Void)),
        R::Lockt(Nfs4ResultOr::ErrBody(denied())),
        R::Locku(K(LockuResOk { lock_stateid: sid(4) })),
        R::Lookup(K(Void)),
        R::Lookupp(K(Void)),
        R::Nverify(K(Void)),
        R::Open(K(OpenResOk {
            stateid: sid(1),
            cinfo: cinfo(),
            rflags: OPEN4_RESULT_LOCKTYPE_POSIX,
            attrset: bitmap(&[33]),
            delegation: OpenDelegation4::None,
        })),
        R::Open(K(OpenResOk {
            delegation: OpenDelegation4::NoneExt(OpenNoneDelegation4::Other(WhyNoDelegation4::NotWanted)),
            ..OpenResOk::default()
        })),
        R::Open(K(OpenResOk {
            delegation: OpenDelegation4::NoneExt(OpenNoneDelegation4::Contention { server_will_push_deleg: true }),
            ..OpenResOk::default()
        })),
        R::Open(K(OpenResOk {
            delegation: OpenDelegation4::NoneExt(OpenNoneDelegation4::Resource { server_will_signal_avail: false }),
            ..OpenResOk::default()
        })),
        R::Open(K(OpenResOk {
            delegation: OpenDelegation4::Read(OpenReadDelegation4 {
                stateid: sid(5),
                recall: false,
                permissions: NfsAce4 { acetype: 0, flag: 0, access_mask: 1, who: Utf8Str(b"EVERYONE@") },
            }),
            ..OpenResOk::default()
        })),
        R::Open(K(OpenResOk {
            delegation: OpenDelegation4::Write(OpenWriteDelegation4 {
                stateid: sid(5),
                recall: true,
                space_limit: NfsSpaceLimit4::Size(1 << 20),
                permissions: NfsAce4::default(),
            }),
            ..OpenResOk::default()
        })),
        R::Open(K(OpenResOk {
            delegation: OpenDelegation4::Write(OpenWriteDelegation4 {
                stateid: sid(5),
                recall: false,
                space_limit: NfsSpaceLimit4::Blocks { num_blocks: 10, bytes_per_block: 4096 },
                permissions: NfsAce4::default(),
            }),
            ..OpenResOk::default()
        })),
        R::Openattr(K(Void)),
        R::OpenConfirm(K(OpenConfirmResOk { open_stateid: sid(1) })),
        R::OpenDowngrade(K(OpenDowngradeResOk { open_stateid: sid(1) })),
        R::Putfh(K(Void)),
        R::Putpubfh(K(Void)),
        R::Putrootfh(K(Void)),
        R::Read(K(ReadResOk { eof: true, data: &DATA })),
        R::Read(K(ReadResOk { eof: false, data: b"" })),
        R::Readdir(K(ReaddirResOk {
            cookieverf: verifier(6),
            reply: DirList4 {
                entries: vec![
                    Entry4 { cookie: 3, name: Component4(b"a"), attrs: getattr_attrs() },
                    Entry4 { cookie: 4, name: Component4(b"bb"), attrs: RawFattr4::EMPTY },
                ],
                eof: true,
            },
        })),
        R::Readdir(K(ReaddirResOk::default())),
        R::Readlink(K(ReadlinkResOk { link: b"/etc/passwd" })),
        R::Remove(K(RemoveResOk { cinfo: cinfo() })),
        R::Rename(K(RenameResOk { source_cinfo: cinfo(), target_cinfo: ChangeInfo4::default() })),
        R::Renew(K(Void)),
        R::Restorefh(K(Void)),
        R::Savefh(K(Void)),
        R::Secinfo(K(SecinfoResOk(vec![
            Secinfo4::RpcsecGss(RpcsecGssInfo {
                oid: Opaque4(b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02"),
                qop: 0,
                service: 1,
            }),
            Secinfo4::Flavor(1),
            Secinfo4::Flavor(0),
        ]))),
        R::Setattr(SetattrRes { status: NfsStat4::Ok, attrsset: bitmap(&[4, 33]) }),
        R::Setattr(SetattrRes { status: NfsStat4::Perm, attrsset: bitmap(&[33]) }),
        R::Setclientid(Nfs4ResultOr::Ok(SetclientidResOk { clientid: 1, setclientid_confirm: verifier(2) })),
        R::Setclientid(Nfs4ResultOr::ErrBody(ClidInUse { client_using: netaddr() })),
        R::SetclientidConfirm(K(Void)),
        R::Verify(K(Void)),
        R::Write(K(WriteResOk { count: 13, committed: StableHow4::FileSync, writeverf: verifier(1) })),
        R::ReleaseLockowner(K(Void)),
        R::BackchannelCtl(K(Void)),
        R::BindConnToSession(K(BindConnToSessionResOk {
            sessionid: SessionId4([1; 16]),
            dir: ChannelDirFromServer4::Both,
            use_conn_in_rdma_mode: false,
        })),
        R::ExchangeId(K(ExchangeIdResOk {
            clientid: 0x1234,
            sequenceid: 1,
            flags: EXCHGID4_FLAG_USE_NON_PNFS,
            state_protect: StateProtect4R::None,
            server_owner: ServerOwner4 { minor_id: 0, major_id: Opaque4(b"nfsbench") },
            server_scope: Opaque4(b"nfsbench"),
            server_impl_id: Some(impl_id()),
        })),
        R::ExchangeId(K(ExchangeIdResOk { state_protect: StateProtect4R::MachCred(sp_ops()), ..Default::default() })),
        R::ExchangeId(K(ExchangeIdResOk {
            state_protect: StateProtect4R::Ssv(SsvProtInfo4 {
                ops: sp_ops(),
                hash_alg: 1,
                encr_alg: 2,
                ssv_len: 32,
                window: 4,
                handles: vec![Opaque4(b"h1"), Opaque4(b"h2")],
            }),
            ..Default::default()
        })),
        R::CreateSession(K(CreateSessionResOk {
            sessionid: SessionId4([2; 16]),
            sequence: 1,
            flags: 0,
            fore_chan_attrs: channel(None),
            back_chan_attrs: channel(None),
        })),
        R::DestroySession(K(Void)),
        R::FreeStateid(K(Void)),
        R::GetDirDelegation(K(GetDirDelegationResNonFatal::Unavail { will_signal_deleg_avail: false })),
        R::GetDirDelegation(K(GetDirDelegationResNonFatal::Ok(GetDirDelegationResOk {
            cookieverf: verifier(1),
            stateid: sid(2),
            notification: bitmap(&[1]),
            child_attributes: bitmap(&[4]),
            dir_attributes: bitmap(&[3]),
        }))),
        R::Getdeviceinfo(Nfs4ResultOr::Ok(GetdeviceinfoResOk {
            device_addr: DeviceAddr4 { layout_type: 1, addr_body: OpaqueBody(b"addr") },
            notification: Bitmap4::EMPTY,
        })),
        R::Getdeviceinfo(Nfs4ResultOr::ErrBody(GetdeviceinfoTooSmall { mincount: 8192 })),
        R::Getdevicelist(K(GetdevicelistResOk {
            cookie: 1,
            cookieverf: verifier(1),
            deviceid_list: vec![DeviceId4([1; 16]), DeviceId4([2; 16])],
            eof: true,
        })),
        R::Layoutcommit(K(LayoutcommitResOk { newsize: Some(4096) })),
        R::Layoutcommit(K(LayoutcommitResOk { newsize: None })),
        R::Layoutget(Nfs4ResultOr::Ok(LayoutgetResOk {
            return_on_close: true,
            stateid: sid(8),
            layout: vec![Layout4 {
                offset: 0,
                length: u64::MAX,
                iomode: LayoutIoMode4::Rw,
                content: LayoutBody4 { layout_type: 1, body: OpaqueBody(b"layout") },
            }],
        })),
        R::Layoutget(Nfs4ResultOr::ErrBody(LayoutTryLater { will_signal_layout_avail: true })),
        R::Layoutreturn(K(LayoutreturnResOk { stateid: Some(sid(8)) })),
        R::Layoutreturn(K(LayoutreturnResOk { stateid: None })),
        R::SecinfoNoName(K(SecinfoResOk(vec![Secinfo4::Flavor(1)]))),
        R::Sequence(K(SequenceResOk {
            sessionid: SessionId4([5; 16]),
            sequenceid: 1,
            slotid: 0,
            highest_slotid: 0,
            target_highest_slotid: 63,
            status_flags: 0,
        })),
        R::SetSsv(K(SetSsvResOk { digest: OpaqueBody(b"d") })),
        R::TestStateid(K(TestStateidResOk { status_codes: vec![NfsStat4::Ok, NfsStat4::BadStateId] })),
        R::WantDelegation(K(OpenDelegation4::NoneExt(OpenNoneDelegation4::Other(WhyNoDelegation4::IsDir)))),
        R::DestroyClientid(K(Void)),
        R::ReclaimComplete(K(Void)),
        R::Allocate(K(Void)),
        R::Copy(Nfs4ResultOr::Ok(CopyResOk { response: write_response(), requirements: CopyRequirements4::default() })),
        R::Copy(Nfs4ResultOr::ErrBody(CopyRequirements4 { consecutive: true, synchronous: true })),
        R::CopyNotify(K(CopyNotifyResOk {
            lease_time: NfsTime4 { seconds: 90, nseconds: 0 },
            stateid: sid(9),
            source_server: vec![NetLoc4::NetAddr(netaddr())],
        })),
        R::Deallocate(K(Void)),
        R::IoAdvise(K(IoAdviseResOk { hints: bitmap(&[1]) })),
        R::Layouterror(K(Void)),
        R::Layoutstats(K(Void)),
        R::OffloadCancel(K(Void)),
        R::OffloadStatus(K(OffloadStatusResOk { count: 100, complete: Some(NfsStat4::Ok) })),
        R::OffloadStatus(K(OffloadStatusResOk { count: 0, complete: None })),
        R::ReadPlus(K(ReadPlusResOk {
            eof: true,
            contents: vec![
                ReadPlusContent::Data { offset: 0, data: &DATA },
                ReadPlusContent::Hole { offset: 13, length: 4083 },
            ],
        })),
        R::Seek(K(SeekResOk { eof: false, offset: 8192 })),
        R::WriteSame(K(WriteResponse4 { callback_id: None, ..write_response() })),
        R::Clone(K(Void)),
        R::Getxattr(K(GetxattrResOk { value: b"value" })),
        R::Setxattr(K(XattrChangeResOk { cinfo: cinfo() })),
        R::Listxattrs(K(ListxattrsResOk {
            cookie: 2,
            names: vec![Component4(b"user.a"), Component4(b"user.b")],
            eof: true,
        })),
        R::Removexattr(K(XattrChangeResOk { cinfo: cinfo() })),
        R::Illegal(IllegalRes::default()),
    ];
    // The plain failure arm of every operation.
    for &op in OpNum4::ALL {
        let err = if op == OpNum4::Illegal { NfsErr4::OpIllegal } else { NfsErr4::Delay };
        out.push(NfsResOp::error(op, err));
    }
    out
}
