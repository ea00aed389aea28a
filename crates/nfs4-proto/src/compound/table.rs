//! `nfs_argop4` and `nfs_resop4` (RFC 8881 §16.2.1, §16.2.2): every operation's arguments and result,
//! keyed by [`OpNum4`].

use crate::ops::attrs::*;
use crate::ops::copy::*;
use crate::ops::delegation::*;
use crate::ops::dir::*;
use crate::ops::exchange_id::{ExchangeIdArgs, ExchangeIdRes};
use crate::ops::filehandle::*;
use crate::ops::io::*;
use crate::ops::layout_stats::*;
use crate::ops::lock::*;
use crate::ops::open::*;
use crate::ops::pnfs::*;
use crate::ops::readdir::*;
use crate::ops::secinfo::*;
use crate::ops::sequence::{SequenceArgs, SequenceRes};
use crate::ops::session::*;
use crate::ops::state::*;
use crate::ops::v40::*;
use crate::ops::v42::*;
use crate::ops::xattr::*;
use crate::ops::{IllegalRes, OpNum4};

op_table! {
    /// `nfs_argop4`: one operation of a COMPOUND with its arguments. Encoding writes the operation number
    /// first. Operations whose arguments are void are unit variants.
    pub enum NfsArgOp<'a>;
    /// `nfs_resop4`: one operation's result, after its operation number.
    pub enum NfsResOp<'a> by OpNum4, illegal IllegalRes;
    void {
        Getfh => GetfhRes,
        Lookupp => LookuppRes,
        Putpubfh => PutpubfhRes,
        Putrootfh => PutrootfhRes,
        Readlink => ReadlinkRes<'a>,
        Restorefh => RestorefhRes,
        Savefh => SavefhRes,
    }
    Access(AccessArgs) => AccessRes,
    Close(CloseArgs) => CloseRes,
    Commit(CommitArgs) => CommitRes,
    Create(CreateArgs<'a>) => CreateRes,
    Delegpurge(DelegpurgeArgs) => DelegpurgeRes,
    Delegreturn(DelegreturnArgs) => DelegreturnRes,
    Getattr(GetattrArgs) => GetattrRes<'a>,
    Link(LinkArgs<'a>) => LinkRes,
    Lock(LockArgs<'a>) => LockRes<'a>,
    Lockt(LocktArgs<'a>) => LocktRes<'a>,
    Locku(LockuArgs) => LockuRes,
    Lookup(LookupArgs<'a>) => LookupRes,
    Nverify(NverifyArgs<'a>) => NverifyRes,
    Open(OpenArgs<'a>) => OpenRes<'a>,
    Openattr(OpenattrArgs) => OpenattrRes,
    OpenConfirm(OpenConfirmArgs) => OpenConfirmRes,
    OpenDowngrade(OpenDowngradeArgs) => OpenDowngradeRes,
    Putfh(PutfhArgs) => PutfhRes,
    Read(ReadArgs) => ReadRes<'a>,
    Readdir(ReaddirArgs) => ReaddirRes<'a>,
    Remove(RemoveArgs<'a>) => RemoveRes,
    Rename(RenameArgs<'a>) => RenameRes,
    Renew(RenewArgs) => RenewRes,
    Secinfo(SecinfoArgs<'a>) => SecinfoRes<'a>,
    Setattr(SetattrArgs<'a>) => SetattrRes,
    Setclientid(SetclientidArgs<'a>) => SetclientidRes<'a>,
    SetclientidConfirm(SetclientidConfirmArgs) => SetclientidConfirmRes,
    Verify(VerifyArgs<'a>) => VerifyRes,
    Write(WriteArgs<'a>) => WriteRes,
    ReleaseLockowner(ReleaseLockownerArgs<'a>) => ReleaseLockownerRes,
    BackchannelCtl(BackchannelCtlArgs<'a>) => BackchannelCtlRes,
    BindConnToSession(BindConnToSessionArgs) => BindConnToSessionRes,
    ExchangeId(ExchangeIdArgs<'a>) => ExchangeIdRes<'a>,
    CreateSession(CreateSessionArgs<'a>) => CreateSessionRes,
    DestroySession(DestroySessionArgs) => DestroySessionRes,
    FreeStateid(FreeStateidArgs) => FreeStateidRes,
    GetDirDelegation(GetDirDelegationArgs) => GetDirDelegationRes,
    Getdeviceinfo(GetdeviceinfoArgs) => GetdeviceinfoRes<'a>,
    Getdevicelist(GetdevicelistArgs) => GetdevicelistRes,
    Layoutcommit(LayoutcommitArgs<'a>) => LayoutcommitRes,
    Layoutget(LayoutgetArgs) => LayoutgetRes<'a>,
    Layoutreturn(LayoutreturnArgs<'a>) => LayoutreturnRes,
    SecinfoNoName(SecinfoNoNameArgs) => SecinfoNoNameRes<'a>,
    Sequence(SequenceArgs) => SequenceRes,
    SetSsv(SetSsvArgs<'a>) => SetSsvRes<'a>,
    TestStateid(TestStateidArgs) => TestStateidRes,
    WantDelegation(WantDelegationArgs) => WantDelegationRes<'a>,
    DestroyClientid(DestroyClientidArgs) => DestroyClientidRes,
    ReclaimComplete(ReclaimCompleteArgs) => ReclaimCompleteRes,
    Allocate(AllocateArgs) => AllocateRes,
    Copy(CopyArgs<'a>) => CopyRes,
    CopyNotify(CopyNotifyArgs<'a>) => CopyNotifyRes<'a>,
    Deallocate(DeallocateArgs) => DeallocateRes,
    IoAdvise(IoAdviseArgs) => IoAdviseRes,
    Layouterror(LayouterrorArgs) => LayouterrorRes,
    Layoutstats(LayoutstatsArgs<'a>) => LayoutstatsRes,
    OffloadCancel(OffloadCancelArgs) => OffloadCancelRes,
    OffloadStatus(OffloadStatusArgs) => OffloadStatusRes,
    ReadPlus(ReadPlusArgs) => ReadPlusRes<'a>,
    Seek(SeekArgs) => SeekRes,
    WriteSame(WriteSameArgs<'a>) => WriteSameRes,
    Clone(CloneArgs) => CloneRes,
    Getxattr(GetxattrArgs<'a>) => GetxattrRes<'a>,
    Setxattr(SetxattrArgs<'a>) => SetxattrRes,
    Listxattrs(ListxattrsArgs) => ListxattrsRes<'a>,
    Removexattr(RemovexattrArgs<'a>) => RemovexattrRes,
}
