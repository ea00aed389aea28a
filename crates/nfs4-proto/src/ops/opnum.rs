//! `nfs_opnum4` (RFC 8881 §16.2.1, RFC 7862 §11.2, RFC 8276 §8.4): operation numbers and their names.

xdr_enum! {
    /// `nfs_opnum4`: every operation number of NFSv4.0–4.2 and the extended attribute operations,
    /// plus `OP_ILLEGAL`. The v4.0-only operations (OPEN_CONFIRM, RENEW, SETCLIENTID, ...) are numbers a
    /// v4.1 server must answer with NFS4ERR_NOTSUPP (RFC 8881 §18: "MNI"), not NFS4ERR_OP_ILLEGAL.
    pub enum OpNum4 as "nfs_opnum4" {
        Access = 3 => "ACCESS",
        Close = 4 => "CLOSE",
        Commit = 5 => "COMMIT",
        Create = 6 => "CREATE",
        Delegpurge = 7 => "DELEGPURGE",
        Delegreturn = 8 => "DELEGRETURN",
        Getattr = 9 => "GETATTR",
        Getfh = 10 => "GETFH",
        Link = 11 => "LINK",
        Lock = 12 => "LOCK",
        Lockt = 13 => "LOCKT",
        Locku = 14 => "LOCKU",
        Lookup = 15 => "LOOKUP",
        Lookupp = 16 => "LOOKUPP",
        Nverify = 17 => "NVERIFY",
        Open = 18 => "OPEN",
        Openattr = 19 => "OPENATTR",
        OpenConfirm = 20 => "OPEN_CONFIRM",
        OpenDowngrade = 21 => "OPEN_DOWNGRADE",
        Putfh = 22 => "PUTFH",
        Putpubfh = 23 => "PUTPUBFH",
        Putrootfh = 24 => "PUTROOTFH",
        Read = 25 => "READ",
        Readdir = 26 => "READDIR",
        Readlink = 27 => "READLINK",
        Remove = 28 => "REMOVE",
        Rename = 29 => "RENAME",
        Renew = 30 => "RENEW",
        Restorefh = 31 => "RESTOREFH",
        Savefh = 32 => "SAVEFH",
        Secinfo = 33 => "SECINFO",
        Setattr = 34 => "SETATTR",
        Setclientid = 35 => "SETCLIENTID",
        SetclientidConfirm = 36 => "SETCLIENTID_CONFIRM",
        Verify = 37 => "VERIFY",
        Write = 38 => "WRITE",
        ReleaseLockowner = 39 => "RELEASE_LOCKOWNER",
        BackchannelCtl = 40 => "BACKCHANNEL_CTL",
        BindConnToSession = 41 => "BIND_CONN_TO_SESSION",
        ExchangeId = 42 => "EXCHANGE_ID",
        CreateSession = 43 => "CREATE_SESSION",
        DestroySession = 44 => "DESTROY_SESSION",
        FreeStateid = 45 => "FREE_STATEID",
        GetDirDelegation = 46 => "GET_DIR_DELEGATION",
        Getdeviceinfo = 47 => "GETDEVICEINFO",
        Getdevicelist = 48 => "GETDEVICELIST",
        Layoutcommit = 49 => "LAYOUTCOMMIT",
        Layoutget = 50 => "LAYOUTGET",
        Layoutreturn = 51 => "LAYOUTRETURN",
        SecinfoNoName = 52 => "SECINFO_NO_NAME",
        Sequence = 53 => "SEQUENCE",
        SetSsv = 54 => "SET_SSV",
        TestStateid = 55 => "TEST_STATEID",
        WantDelegation = 56 => "WANT_DELEGATION",
        DestroyClientid = 57 => "DESTROY_CLIENTID",
        ReclaimComplete = 58 => "RECLAIM_COMPLETE",
        Allocate = 59 => "ALLOCATE",
        Copy = 60 => "COPY",
        CopyNotify = 61 => "COPY_NOTIFY",
        Deallocate = 62 => "DEALLOCATE",
        IoAdvise = 63 => "IO_ADVISE",
        Layouterror = 64 => "LAYOUTERROR",
        Layoutstats = 65 => "LAYOUTSTATS",
        OffloadCancel = 66 => "OFFLOAD_CANCEL",
        OffloadStatus = 67 => "OFFLOAD_STATUS",
        ReadPlus = 68 => "READ_PLUS",
        Seek = 69 => "SEEK",
        WriteSame = 70 => "WRITE_SAME",
        Clone = 71 => "CLONE",
        Getxattr = 72 => "GETXATTR",
        Setxattr = 73 => "SETXATTR",
        Listxattrs = 74 => "LISTXATTRS",
        Removexattr = 75 => "REMOVEXATTR",
        Illegal = 10044 => "ILLEGAL",
    }
}

impl OpNum4 {
    /// The lowest minor version that defines the operation: 0 for 3..=39, 1 for 40..=58, 2 for the
    /// RFC 7862 and RFC 8276 operations. A COMPOUND of a lower minor version naming it gets
    /// NFS4ERR_OP_ILLEGAL, as knfsd's nfsd4_opnum_in_range.
    pub const fn minor_version(self) -> u32 {
        match self.as_u32() {
            0..=39 => 0,
            40..=58 => 1,
            _ => 2,
        }
    }

    /// RFC 8881 §18 (the operations marked MNI, "must not implement", in §17's table): a v4.1 server
    /// answers these v4.0 operations with NFS4ERR_NOTSUPP.
    pub const fn is_v40_only(self) -> bool {
        matches!(
            self,
            OpNum4::OpenConfirm
                | OpNum4::Renew
                | OpNum4::Setclientid
                | OpNum4::SetclientidConfirm
                | OpNum4::ReleaseLockowner
        )
    }
}

/// The RFC name of operation `op` (e.g. `"SEQUENCE"`), `"UNKNOWN"` when no minor version defines it.
pub const fn op_name(op: u32) -> &'static str {
    match OpNum4::from_u32(op) {
        Some(o) => o.name(),
        None => "UNKNOWN",
    }
}
