//! `nfs_argop4` and `nfs_resop4` (RFC 8881 §16.2.1, §16.2.2): every operation's arguments and result,
//! keyed by [`OpNum4`].

use crate::ops::exchange_id::{ExchangeIdArgs, ExchangeIdRes};
use crate::ops::filehandle::*;
use crate::ops::io::*;
use crate::ops::sequence::{SequenceArgs, SequenceRes};
use crate::ops::session::*;
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
        Restorefh => RestorefhRes,
        Savefh => SavefhRes,
    }
    pending {
        Access, Close, Create, Delegpurge, Delegreturn, Getattr, Link, Lock, Lockt, Locku, Lookup,
        Nverify, Open, Openattr, OpenConfirm, OpenDowngrade, Readdir, Readlink, Remove, Rename, Renew,
        Secinfo, Setattr, Setclientid, SetclientidConfirm, Verify, ReleaseLockowner, FreeStateid,
        GetDirDelegation, Getdeviceinfo, Getdevicelist, Layoutcommit, Layoutget, Layoutreturn, SecinfoNoName,
        SetSsv, TestStateid, WantDelegation, Allocate, Copy, CopyNotify, Deallocate, IoAdvise, Layouterror,
        Layoutstats, OffloadCancel, OffloadStatus, ReadPlus, Seek, WriteSame, Clone, Getxattr, Setxattr,
        Listxattrs, Removexattr,
    }
    Commit(CommitArgs) => CommitRes,
    Putfh(PutfhArgs) => PutfhRes,
    Read(ReadArgs) => ReadRes<'a>,
    Write(WriteArgs<'a>) => WriteRes,
    BackchannelCtl(BackchannelCtlArgs<'a>) => BackchannelCtlRes,
    BindConnToSession(BindConnToSessionArgs) => BindConnToSessionRes,
    ExchangeId(ExchangeIdArgs<'a>) => ExchangeIdRes<'a>,
    CreateSession(CreateSessionArgs<'a>) => CreateSessionRes,
    DestroySession(DestroySessionArgs) => DestroySessionRes,
    Sequence(SequenceArgs) => SequenceRes,
    DestroyClientid(DestroyClientidArgs) => DestroyClientidRes,
    ReclaimComplete(ReclaimCompleteArgs) => ReclaimCompleteRes,
}
