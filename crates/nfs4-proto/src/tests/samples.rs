//! Sample values for every operation's arguments and every arm of every result, forechannel and
//! callback, used by the round-trip, truncation and corruption tests.

use std::borrow::Cow;

use crate::callback::*;
use crate::*;

pub fn fh(seed: u8, len: usize) -> NfsFh4 {
    let bytes: Vec<u8> = (0..len).map(|i| seed.wrapping_add(i as u8)).collect();
    NfsFh4::new(&bytes).unwrap_or_default()
}

pub fn sid(seed: u8) -> Stateid4 {
    Stateid4::new(u32::from(seed) + 1, [seed; 12])
}

pub fn cinfo() -> ChangeInfo4 {
    ChangeInfo4 { atomic: true, before: 10, after: 11 }
}

pub fn bitmap(bits: &[u32]) -> Bitmap4 {
    Bitmap4::from_bits(bits.iter().copied())
}

pub fn owner() -> StateOwner4<'static> {
    StateOwner4 { clientid: 0xabcd, owner: Opaque4(b"open id:\x00\x01\x02") }
}

/// Attributes a client sets on create: mode and owner, as wire bytes.
pub fn create_attrs() -> RawFattr4<'static> {
    Fattr4 { mode: Some(0o644), owner: Some(Utf8Str(b"1000")), ..Fattr4::default() }.to_raw()
}

/// Attributes a server answers GETATTR with.
pub fn getattr_attrs() -> RawFattr4<'static> {
    Fattr4 {
        ftype: Some(NfsFtype4::Reg),
        change: Some(7),
        size: Some(1 << 33),
        fileid: Some(42),
        time_modify: Some(NfsTime4 { seconds: -1, nseconds: 999_999_999 }),
        ..Fattr4::default()
    }
    .to_raw()
}

fn attrs_with_unknown_bit() -> RawFattr4<'static> {
    RawFattr4 { attrmask: bitmap(&[12]), attr_vals: Cow::Borrowed(&[0, 0, 0, 0]) }
}

pub fn verifier(seed: u8) -> Verifier4 {
    Verifier4([seed; 8])
}

pub fn impl_id() -> NfsImplId4<'static> {
    NfsImplId4 { domain: Utf8Str(b"kernel.org"), name: Utf8Str(b"Linux 6.1"), date: NfsTime4::default() }
}

pub fn channel(ird: Option<u32>) -> ChannelAttrs4 {
    ChannelAttrs4 {
        headerpadsize: 0,
        maxrequestsize: 1_049_620,
        maxresponsesize: 1_049_480,
        maxresponsesize_cached: 7584,
        maxoperations: 16,
        maxrequests: 64,
        rdma_ird: ird,
    }
}

pub static DATA: [u8; 13] = *b"hello, world!";

fn sp_ops() -> StateProtectOps4 {
    StateProtectOps4 { must_enforce: bitmap(&[42, 43]), must_allow: bitmap(&[3]) }
}

fn write_response() -> WriteResponse4 {
    WriteResponse4 { callback_id: Some(sid(8)), count: 4096, committed: StableHow4::FileSync, writeverf: verifier(3) }
}

fn netaddr() -> NetAddr4<'static> {
    NetAddr4 { netid: Utf8Str(b"tcp"), addr: Utf8Str(b"10.0.0.1.8.1") }
}

/// Arguments of every operation, exercising every union arm.
pub fn args() -> Vec<NfsArgOp<'static>> {
    use NfsArgOp as A;
    vec![
        A::Access(AccessArgs { access: ACCESS4_READ | ACCESS4_XALIST }),
        A::Close(CloseArgs { seqid: 0, open_stateid: sid(1) }),
        A::Commit(CommitArgs { offset: 1 << 40, count: 0 }),
        A::Create(CreateArgs {
            objtype: CreateType4::Link(b"../target"),
            objname: Component4(b"l"),
            createattrs: create_attrs(),
        }),
        A::Create(CreateArgs { objtype: CreateType4::Dir, objname: Component4(b"d"), createattrs: RawFattr4::EMPTY }),
        A::Create(CreateArgs {
            objtype: CreateType4::Block(SpecData4 { specdata1: 8, specdata2: 1 }),
            objname: Component4(b"b"),
            createattrs: RawFattr4::EMPTY,
        }),
        A::Create(CreateArgs {
            objtype: CreateType4::Char(SpecData4 { specdata1: 1, specdata2: 3 }),
            objname: Component4(b"c"),
            createattrs: RawFattr4::EMPTY,
        }),
        A::Create(CreateArgs {
            objtype: CreateType4::Socket,
            objname: Component4(b"s"),
            createattrs: RawFattr4::EMPTY,
        }),
        A::Create(CreateArgs { objtype: CreateType4::Fifo, objname: Component4(b"f"), createattrs: RawFattr4::EMPTY }),
        A::Create(CreateArgs {
            objtype: CreateType4::Other(NfsFtype4::Reg),
            objname: Component4(b"r"),
            createattrs: RawFattr4::EMPTY,
        }),
        A::Delegpurge(DelegpurgeArgs { clientid: 5 }),
        A::Delegreturn(DelegreturnArgs { deleg_stateid: sid(2) }),
        A::Getattr(GetattrArgs { attr_request: bitmap(&[0, 1, 3, 4, 20, 33, 55, 75, 82]) }),
        A::Getfh,
        A::Link(LinkArgs { newname: Component4(b"hard") }),
        A::Lock(LockArgs {
            locktype: NfsLockType4::Write,
            reclaim: false,
            offset: 0,
            length: u64::MAX,
            locker: Locker4::NewLockOwner(OpenToLockOwner4 {
                open_seqid: 0,
                open_stateid: sid(3),
                lock_seqid: 0,
                lock_owner: owner(),
            }),
        }),
        A::Lock(LockArgs {
            locktype: NfsLockType4::ReadW,
            reclaim: true,
            offset: 100,
            length: 1,
            locker: Locker4::ExistingLockOwner(ExistLockOwner4 { lock_stateid: sid(4), lock_seqid: 1 }),
        }),
        A::Lockt(LocktArgs { locktype: NfsLockType4::Read, offset: 0, length: 10, owner: owner() }),
        A::Locku(LockuArgs { locktype: NfsLockType4::WriteW, seqid: 2, lock_stateid: sid(4), offset: 0, length: 10 }),
        A::Lookup(LookupArgs { objname: Component4(b"file.txt") }),
        A::Lookupp,
        A::Nverify(NverifyArgs { obj_attributes: getattr_attrs() }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
            share_deny: OPEN4_SHARE_DENY_NONE,
            owner: owner(),
            openhow: OpenFlag4::Create(CreateHow4::Unchecked(create_attrs())),
            claim: OpenClaim4::Null(Component4(b"new")),
        }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_WRITE,
            share_deny: OPEN4_SHARE_DENY_BOTH,
            owner: owner(),
            openhow: OpenFlag4::Create(CreateHow4::Guarded(RawFattr4::EMPTY)),
            claim: OpenClaim4::Previous(OpenDelegationType4::Read),
        }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: owner(),
            openhow: OpenFlag4::Create(CreateHow4::Exclusive(verifier(9))),
            claim: OpenClaim4::DelegateCur { delegate_stateid: sid(5), file: Component4(b"cur") },
        }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: owner(),
            openhow: OpenFlag4::Create(CreateHow4::Exclusive41 { verf: verifier(10), attrs: create_attrs() }),
            claim: OpenClaim4::DelegatePrev(Component4(b"prev")),
        }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: owner(),
            openhow: OpenFlag4::NoCreate,
            claim: OpenClaim4::Fh,
        }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: owner(),
            openhow: OpenFlag4::NoCreate,
            claim: OpenClaim4::DelegCurFh(sid(6)),
        }),
        A::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: owner(),
            openhow: OpenFlag4::NoCreate,
            claim: OpenClaim4::DelegPrevFh,
        }),
        A::Openattr(OpenattrArgs { createdir: true }),
        A::OpenConfirm(OpenConfirmArgs { open_stateid: sid(1), seqid: 3 }),
        A::OpenDowngrade(OpenDowngradeArgs { open_stateid: sid(1), seqid: 0, share_access: 1, share_deny: 0 }),
        A::Putfh(PutfhArgs { object: fh(1, 128) }),
        A::Putfh(PutfhArgs { object: fh(1, 0) }),
        A::Putpubfh,
        A::Putrootfh,
        A::Read(ReadArgs { stateid: Stateid4::BYPASS, offset: 4096, count: 1 << 20 }),
        A::Readdir(ReaddirArgs {
            cookie: 0,
            cookieverf: Verifier4::default(),
            dircount: 8192,
            maxcount: 32768,
            attr_request: bitmap(&[1, 20, 55]),
        }),
        A::Readlink,
        A::Remove(RemoveArgs { target: Component4(b"gone") }),
        A::Rename(RenameArgs { oldname: Component4(b"a"), newname: Component4(b"b") }),
        A::Renew(RenewArgs { clientid: 9 }),
        A::Restorefh,
        A::Savefh,
        A::Secinfo(SecinfoArgs { name: Component4(b"export") }),
        A::Setattr(SetattrArgs { stateid: Stateid4::ANONYMOUS, obj_attributes: create_attrs() }),
        A::Setclientid(SetclientidArgs {
            client: NfsClientId4 { verifier: verifier(1), id: Opaque4(b"Linux NFSv4.0 host") },
            callback: CbClient4 { cb_program: 0x4000_0000, cb_location: netaddr() },
            callback_ident: 1,
        }),
        A::SetclientidConfirm(SetclientidConfirmArgs { clientid: 9, setclientid_confirm: verifier(2) }),
        A::Verify(VerifyArgs { obj_attributes: getattr_attrs() }),
        A::Verify(VerifyArgs { obj_attributes: attrs_with_unknown_bit() }),
        A::Write(WriteArgs { stateid: sid(1), offset: 12, stable: StableHow4::Unstable, data: &DATA }),
        A::Write(WriteArgs { stateid: sid(1), offset: 0, stable: StableHow4::DataSync, data: b"" }),
        A::ReleaseLockowner(ReleaseLockownerArgs { lock_owner: owner() }),
        A::BackchannelCtl(BackchannelCtlArgs { cb_program: 0x4000_0000, sec_parms: vec![CallbackSecParms4::None] }),
        A::BindConnToSession(BindConnToSessionArgs {
            sessionid: SessionId4([1; 16]),
            dir: ChannelDirFromClient4::BackOrBoth,
            use_conn_in_rdma_mode: true,
        }),
        A::ExchangeId(ExchangeIdArgs {
            clientowner: ClientOwner4 { verifier: verifier(4), ownerid: Opaque4(b"Linux NFSv4.1 client") },
            flags: EXCHGID4_FLAG_SUPP_MOVED_REFER | EXCHGID4_FLAG_BIND_PRINC_STATEID,
            state_protect: StateProtect4A::None,
            client_impl_id: Some(impl_id()),
        }),
        A::ExchangeId(ExchangeIdArgs {
            clientowner: ClientOwner4 { verifier: verifier(4), ownerid: Opaque4(b"x") },
            flags: 0,
            state_protect: StateProtect4A::MachCred(sp_ops()),
            client_impl_id: None,
        }),
        A::ExchangeId(ExchangeIdArgs {
            clientowner: ClientOwner4 { verifier: verifier(4), ownerid: Opaque4(b"y") },
            flags: 0,
            state_protect: StateProtect4A::Ssv(SsvSpParms4 {
                ops: sp_ops(),
                hash_algs: vec![Opaque4(b"\x06\x09\x60\x86\x48\x01\x65\x03\x04\x02\x01")],
                encr_algs: vec![Opaque4(b"aes"), Opaque4(b"")],
                window: 16,
                num_gss_handles: 2,
            }),
            client_impl_id: None,
        }),
        A::CreateSession(CreateSessionArgs {
            clientid: 0x1234,
            sequence: 1,
            flags: CREATE_SESSION4_FLAG_CONN_BACK_CHAN,
            fore_chan_attrs: channel(None),
            back_chan_attrs: channel(Some(4)),
            cb_program: 0x4000_0000,
            sec_parms: vec![
                CallbackSecParms4::Sys(AuthSysParms {
                    stamp: 1,
                    machinename: b"client",
                    uid: 0,
                    gid: 0,
                    gids: vec![1, 2, 3],
                }),
                CallbackSecParms4::Gss(GssCbHandles4 {
                    service: 2,
                    handle_from_server: Opaque4(b"srv"),
                    handle_from_client: Opaque4(b"cli"),
                }),
                CallbackSecParms4::None,
            ],
        }),
        A::DestroySession(DestroySessionArgs { sessionid: SessionId4([2; 16]) }),
        A::FreeStateid(FreeStateidArgs { stateid: sid(7) }),
        A::GetDirDelegation(GetDirDelegationArgs {
            signal_deleg_avail: false,
            notification_types: bitmap(&[1, 2]),
            child_attr_delay: NfsTime4 { seconds: 1, nseconds: 0 },
            dir_attr_delay: NfsTime4::default(),
            child_attributes: bitmap(&[4]),
            dir_attributes: bitmap(&[3]),
        }),
        A::Getdeviceinfo(GetdeviceinfoArgs {
            device_id: DeviceId4([3; 16]),
            layout_type: 1,
            maxcount: 4096,
            notify_types: Bitmap4::EMPTY,
        }),
        A::Getdevicelist(GetdevicelistArgs { layout_type: 1, maxdevices: 16, cookie: 0, cookieverf: verifier(0) }),
        A::Layoutcommit(LayoutcommitArgs {
            offset: 0,
            length: 4096,
            reclaim: false,
            stateid: sid(8),
            last_write_offset: Some(4095),
            time_modify: None,
            layoutupdate: LayoutBody4 { layout_type: 1, body: OpaqueBody(b"") },
        }),
        A::Layoutget(LayoutgetArgs {
            signal_layout_avail: false,
            layout_type: 1,
            iomode: LayoutIoMode4::Rw,
            offset: 0,
            length: u64::MAX,
            minlength: 4096,
            stateid: sid(1),
            maxcount: 4096,
        }),
        A::Layoutreturn(LayoutreturnArgs {
            reclaim: false,
            layout_type: 1,
            iomode: LayoutIoMode4::Any,
            layoutreturn: Layoutreturn4::File(LayoutreturnFile4 {
                offset: 0,
                length: u64::MAX,
                stateid: sid(8),
                body: OpaqueBody(b"lrf"),
            }),
        }),
        A::Layoutreturn(LayoutreturnArgs {
            reclaim: true,
            layout_type: 4,
            iomode: LayoutIoMode4::Read,
            layoutreturn: Layoutreturn4::Fsid,
        }),
        A::Layoutreturn(LayoutreturnArgs {
            reclaim: false,
            layout_type: 4,
            iomode: LayoutIoMode4::Read,
            layoutreturn: Layoutreturn4::All,
        }),
        A::SecinfoNoName(SecinfoStyle4::CurrentFh),
        A::SecinfoNoName(SecinfoStyle4::Parent),
        A::Sequence(SequenceArgs {
            sessionid: SessionId4([5; 16]),
            sequenceid: u32::MAX,
            slotid: 63,
            highest_slotid: 63,
            cachethis: true,
        }),
        A::SetSsv(SetSsvArgs { ssv: OpaqueBody(b"ssv"), digest: OpaqueBody(b"digest") }),
        A::TestStateid(TestStateidArgs { stateids: vec![sid(1), Stateid4::INVALID, Stateid4::CURRENT] }),
        A::WantDelegation(WantDelegationArgs { want: OPEN4_SHARE_ACCESS_WANT_READ_DELEG, claim: DelegClaim4::Fh }),
        A::WantDelegation(WantDelegationArgs { want: 0, claim: DelegClaim4::DelegPrevFh }),
        A::WantDelegation(WantDelegationArgs { want: 0, claim: DelegClaim4::Previous(OpenDelegationType4::Write) }),
        A::DestroyClientid(DestroyClientidArgs { clientid: 0x1234 }),
        A::ReclaimComplete(ReclaimCompleteArgs { one_fs: false }),
        A::Allocate(AllocateArgs { stateid: sid(1), offset: 0, length: 1 << 30 }),
        A::Copy(CopyArgs {
            src_stateid: sid(1),
            dst_stateid: sid(2),
            src_offset: 0,
            dst_offset: 10,
            count: 0,
            consecutive: true,
            synchronous: false,
            src_servers: vec![
                NetLoc4::Name(Utf8Str(b"server")),
                NetLoc4::Url(Utf8Str(b"nfs://s/x")),
                NetLoc4::NetAddr(netaddr()),
            ],
        }),
        A::CopyNotify(CopyNotifyArgs { src_stateid: sid(1), destination: NetLoc4::Name(Utf8Str(b"dst")) }),
        A::Deallocate(DeallocateArgs { stateid: sid(1), offset: 4096, length: 4096 }),
        A::IoAdvise(IoAdviseArgs { stateid: sid(1), offset: 0, count: 0, hints: bitmap(&[1, 5]) }),
        A::Layouterror(LayouterrorArgs {
            offset: 0,
            length: 1,
            stateid: sid(8),
            errors: vec![DeviceError4 { deviceid: DeviceId4([9; 16]), status: NfsStat4::Io, opnum: OpNum4::Read }],
        }),
        A::Layoutstats(LayoutstatsArgs {
            offset: 0,
            length: 1,
            stateid: sid(8),
            read: IoInfo4 { count: 1, bytes: 4096 },
            write: IoInfo4::default(),
            deviceid: DeviceId4([9; 16]),
            layoutupdate: LayoutBody4 { layout_type: 4, body: OpaqueBody(b"stats") },
        }),
        A::OffloadCancel(OffloadArgs { stateid: sid(9) }),
        A::OffloadStatus(OffloadArgs { stateid: sid(9) }),
        A::ReadPlus(ReadPlusArgs { stateid: sid(1), offset: 0, count: 65536 }),
        A::Seek(SeekArgs { stateid: sid(1), offset: 0, what: DataContent4::Hole }),
        A::WriteSame(WriteSameArgs {
            stateid: sid(1),
            stable: StableHow4::FileSync,
            adb: AppDataBlock4 {
                offset: 0,
                block_size: 512,
                block_count: 8,
                reloff_blocknum: 0,
                block_num: 0,
                reloff_pattern: 0,
                pattern: OpaqueBody(b"\0\0\0\0"),
            },
        }),
        A::Clone(CloneArgs { src_stateid: sid(1), dst_stateid: sid(2), src_offset: 0, dst_offset: 0, count: 0 }),
        A::Getxattr(GetxattrArgs { name: Component4(b"user.a") }),
        A::Setxattr(SetxattrArgs { option: SetxattrOption4::Create, key: Component4(b"user.a"), value: b"v" }),
        A::Listxattrs(ListxattrsArgs { cookie: 0, maxcount: 4096 }),
        A::Removexattr(RemovexattrArgs { name: Component4(b"user.a") }),
    ]
}

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
