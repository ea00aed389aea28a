//! `nfsstat4` (RFC 8881 §15.1, RFC 7862 §11.1, RFC 8276 §8.5), and the shapes results take:
//! a status word, then the operation's `resok` body only on `NFS4_OK` (RFC 8881 §16.2.3: `default: void`).
//!
//! A status value this crate does not know is a decode error (`XdrError::BadDiscriminant` naming
//! `nfsstat4`): the set is fixed for the minor versions spoken here. Results that carry a body on a
//! particular error (LOCK's `LOCK4DENIED`, SETATTR's `attrsset`) have their own types in [`crate::ops`].

mod result;

pub use result::*;

/// Declares `$stat` with every value (including `Ok = 0`) and `$err` with every failure value, so a
/// result's failure arm can never carry the success status.
macro_rules! wire_status {
    (
        $(#[$smeta:meta])*
        pub enum $stat:ident as $what:literal { Ok = 0 => $ok_name:literal }
        $(#[$emeta:meta])*
        pub enum $err:ident {
            $( $variant:ident = $value:literal => $vname:literal, )+
        }
    ) => {
        xdr_enum! {
            $(#[$smeta])*
            pub enum $stat as $what {
                Ok = 0 => $ok_name,
                $( $variant = $value => $vname, )+
            }
        }

        $(#[$emeta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u32)]
        pub enum $err { $( $variant = $value, )+ }

        impl $stat {
            /// `None` for success, else the failure.
            pub const fn error(self) -> Option<$err> {
                match self {
                    $stat::Ok => None,
                    $( $stat::$variant => Some($err::$variant), )+
                }
            }

            pub const fn is_ok(self) -> bool {
                matches!(self, $stat::Ok)
            }
        }

        impl $err {
            /// Every failure value, in RFC order.
            pub const ALL: &'static [$err] = &[$( $err::$variant ),+];

            /// The failure for a wire value; `None` for success and for undefined values.
            pub const fn from_u32(value: u32) -> Option<Self> {
                match value {
                    $( $value => Some($err::$variant), )+
                    _ => None,
                }
            }

            pub const fn as_u32(self) -> u32 {
                self as u32
            }

            pub const fn status(self) -> $stat {
                match self {
                    $( $err::$variant => $stat::$variant, )+
                }
            }

            /// The RFC's name for the value.
            pub const fn name(self) -> &'static str {
                self.status().name()
            }
        }

        impl From<$err> for $stat {
            fn from(e: $err) -> $stat {
                e.status()
            }
        }

        impl std::fmt::Display for $err {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::fmt::Display for $stat {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl xdr::XdrEncode for $err {
            fn encode<'p>(&'p self, w: &mut xdr::XdrWriter<'p>) {
                w.put_u32(self.as_u32());
            }
        }

        impl<'de> xdr::XdrDecode<'de> for $err {
            fn decode(r: &mut xdr::XdrReader<'de>) -> Result<Self, xdr::XdrError> {
                r.get_enum($what, $err::from_u32)
            }
        }
    };
}

wire_status! {
    /// `nfsstat4`: every value of RFC 8881 §15.1, RFC 7862 §11.1 and RFC 8276 §8.5, including `NFS4_OK`.
    pub enum NfsStat4 as "nfsstat4" { Ok = 0 => "NFS4_OK" }

    /// Every `nfsstat4` value except `NFS4_OK`: the status of a failed operation.
    pub enum NfsErr4 {
        Perm = 1 => "NFS4ERR_PERM",
        NoEnt = 2 => "NFS4ERR_NOENT",
        Io = 5 => "NFS4ERR_IO",
        Nxio = 6 => "NFS4ERR_NXIO",
        Access = 13 => "NFS4ERR_ACCESS",
        Exist = 17 => "NFS4ERR_EXIST",
        Xdev = 18 => "NFS4ERR_XDEV",
        NotDir = 20 => "NFS4ERR_NOTDIR",
        IsDir = 21 => "NFS4ERR_ISDIR",
        Inval = 22 => "NFS4ERR_INVAL",
        FBig = 27 => "NFS4ERR_FBIG",
        NoSpc = 28 => "NFS4ERR_NOSPC",
        Rofs = 30 => "NFS4ERR_ROFS",
        Mlink = 31 => "NFS4ERR_MLINK",
        NameTooLong = 63 => "NFS4ERR_NAMETOOLONG",
        NotEmpty = 66 => "NFS4ERR_NOTEMPTY",
        Dquot = 69 => "NFS4ERR_DQUOT",
        Stale = 70 => "NFS4ERR_STALE",
        BadHandle = 10001 => "NFS4ERR_BADHANDLE",
        BadCookie = 10003 => "NFS4ERR_BAD_COOKIE",
        NotSupp = 10004 => "NFS4ERR_NOTSUPP",
        TooSmall = 10005 => "NFS4ERR_TOOSMALL",
        ServerFault = 10006 => "NFS4ERR_SERVERFAULT",
        BadType = 10007 => "NFS4ERR_BADTYPE",
        Delay = 10008 => "NFS4ERR_DELAY",
        Same = 10009 => "NFS4ERR_SAME",
        Denied = 10010 => "NFS4ERR_DENIED",
        Expired = 10011 => "NFS4ERR_EXPIRED",
        Locked = 10012 => "NFS4ERR_LOCKED",
        Grace = 10013 => "NFS4ERR_GRACE",
        FhExpired = 10014 => "NFS4ERR_FHEXPIRED",
        ShareDenied = 10015 => "NFS4ERR_SHARE_DENIED",
        WrongSec = 10016 => "NFS4ERR_WRONGSEC",
        ClidInUse = 10017 => "NFS4ERR_CLID_INUSE",
        Resource = 10018 => "NFS4ERR_RESOURCE",
        Moved = 10019 => "NFS4ERR_MOVED",
        NoFileHandle = 10020 => "NFS4ERR_NOFILEHANDLE",
        MinorVersMismatch = 10021 => "NFS4ERR_MINOR_VERS_MISMATCH",
        StaleClientId = 10022 => "NFS4ERR_STALE_CLIENTID",
        StaleStateId = 10023 => "NFS4ERR_STALE_STATEID",
        OldStateId = 10024 => "NFS4ERR_OLD_STATEID",
        BadStateId = 10025 => "NFS4ERR_BAD_STATEID",
        BadSeqId = 10026 => "NFS4ERR_BAD_SEQID",
        NotSame = 10027 => "NFS4ERR_NOT_SAME",
        LockRange = 10028 => "NFS4ERR_LOCK_RANGE",
        Symlink = 10029 => "NFS4ERR_SYMLINK",
        RestoreFh = 10030 => "NFS4ERR_RESTOREFH",
        LeaseMoved = 10031 => "NFS4ERR_LEASE_MOVED",
        AttrNotSupp = 10032 => "NFS4ERR_ATTRNOTSUPP",
        NoGrace = 10033 => "NFS4ERR_NO_GRACE",
        ReclaimBad = 10034 => "NFS4ERR_RECLAIM_BAD",
        ReclaimConflict = 10035 => "NFS4ERR_RECLAIM_CONFLICT",
        BadXdr = 10036 => "NFS4ERR_BADXDR",
        LocksHeld = 10037 => "NFS4ERR_LOCKS_HELD",
        OpenMode = 10038 => "NFS4ERR_OPENMODE",
        BadOwner = 10039 => "NFS4ERR_BADOWNER",
        BadChar = 10040 => "NFS4ERR_BADCHAR",
        BadName = 10041 => "NFS4ERR_BADNAME",
        BadRange = 10042 => "NFS4ERR_BAD_RANGE",
        LockNotSupp = 10043 => "NFS4ERR_LOCK_NOTSUPP",
        OpIllegal = 10044 => "NFS4ERR_OP_ILLEGAL",
        Deadlock = 10045 => "NFS4ERR_DEADLOCK",
        FileOpen = 10046 => "NFS4ERR_FILE_OPEN",
        AdminRevoked = 10047 => "NFS4ERR_ADMIN_REVOKED",
        CbPathDown = 10048 => "NFS4ERR_CB_PATH_DOWN",
        BadIoMode = 10049 => "NFS4ERR_BADIOMODE",
        BadLayout = 10050 => "NFS4ERR_BADLAYOUT",
        BadSessionDigest = 10051 => "NFS4ERR_BAD_SESSION_DIGEST",
        BadSession = 10052 => "NFS4ERR_BADSESSION",
        BadSlot = 10053 => "NFS4ERR_BADSLOT",
        CompleteAlready = 10054 => "NFS4ERR_COMPLETE_ALREADY",
        ConnNotBoundToSession = 10055 => "NFS4ERR_CONN_NOT_BOUND_TO_SESSION",
        DelegAlreadyWanted = 10056 => "NFS4ERR_DELEG_ALREADY_WANTED",
        BackChanBusy = 10057 => "NFS4ERR_BACK_CHAN_BUSY",
        LayoutTryLater = 10058 => "NFS4ERR_LAYOUTTRYLATER",
        LayoutUnavailable = 10059 => "NFS4ERR_LAYOUTUNAVAILABLE",
        NoMatchingLayout = 10060 => "NFS4ERR_NOMATCHING_LAYOUT",
        RecallConflict = 10061 => "NFS4ERR_RECALLCONFLICT",
        UnknownLayoutType = 10062 => "NFS4ERR_UNKNOWN_LAYOUTTYPE",
        SeqMisordered = 10063 => "NFS4ERR_SEQ_MISORDERED",
        SequencePos = 10064 => "NFS4ERR_SEQUENCE_POS",
        ReqTooBig = 10065 => "NFS4ERR_REQ_TOO_BIG",
        RepTooBig = 10066 => "NFS4ERR_REP_TOO_BIG",
        RepTooBigToCache = 10067 => "NFS4ERR_REP_TOO_BIG_TO_CACHE",
        RetryUncachedRep = 10068 => "NFS4ERR_RETRY_UNCACHED_REP",
        UnsafeCompound = 10069 => "NFS4ERR_UNSAFE_COMPOUND",
        TooManyOps = 10070 => "NFS4ERR_TOO_MANY_OPS",
        OpNotInSession = 10071 => "NFS4ERR_OP_NOT_IN_SESSION",
        HashAlgUnsupp = 10072 => "NFS4ERR_HASH_ALG_UNSUPP",
        ConnBindingNotEnforced = 10073 => "NFS4ERR_CONN_BINDING_NOT_ENFORCED",
        ClientIdBusy = 10074 => "NFS4ERR_CLIENTID_BUSY",
        PnfsIoHole = 10075 => "NFS4ERR_PNFS_IO_HOLE",
        SeqFalseRetry = 10076 => "NFS4ERR_SEQ_FALSE_RETRY",
        BadHighSlot = 10077 => "NFS4ERR_BAD_HIGH_SLOT",
        DeadSession = 10078 => "NFS4ERR_DEADSESSION",
        EncrAlgUnsupp = 10079 => "NFS4ERR_ENCR_ALG_UNSUPP",
        PnfsNoLayout = 10080 => "NFS4ERR_PNFS_NO_LAYOUT",
        NotOnlyOp = 10081 => "NFS4ERR_NOT_ONLY_OP",
        WrongCred = 10082 => "NFS4ERR_WRONG_CRED",
        WrongType = 10083 => "NFS4ERR_WRONG_TYPE",
        DirDelegUnavail = 10084 => "NFS4ERR_DIRDELEG_UNAVAIL",
        RejectDeleg = 10085 => "NFS4ERR_REJECT_DELEG",
        ReturnConflict = 10086 => "NFS4ERR_RETURNCONFLICT",
        DelegRevoked = 10087 => "NFS4ERR_DELEG_REVOKED",
        PartnerNotSupp = 10088 => "NFS4ERR_PARTNER_NOTSUPP",
        PartnerNoAuth = 10089 => "NFS4ERR_PARTNER_NO_AUTH",
        UnionNotSupp = 10090 => "NFS4ERR_UNION_NOTSUPP",
        OffloadDenied = 10091 => "NFS4ERR_OFFLOAD_DENIED",
        WrongLfs = 10092 => "NFS4ERR_WRONG_LFS",
        BadLabel = 10093 => "NFS4ERR_BADLABEL",
        OffloadNoReqs = 10094 => "NFS4ERR_OFFLOAD_NO_REQS",
        NoXattr = 10095 => "NFS4ERR_NOXATTR",
        Xattr2Big = 10096 => "NFS4ERR_XATTR2BIG",
    }
}
