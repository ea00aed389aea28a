//! `nfsstat3` (RFC 1813 §2.6) and the shape every NFSv3 result shares: a status word, then the
//! procedure's `resok` arm on `NFS3_OK` or its `resfail` arm otherwise.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

wire_status! {
    /// `nfsstat3` (RFC 1813 §2.6): every value the RFC defines, including `NFS3_OK`.
    pub enum NfsStat3 as "nfsstat3" { Ok = 0 => "NFS3_OK" }

    /// Every `nfsstat3` value except `NFS3_OK`: the status carried by a result's failure arm.
    pub enum NfsErr3 {
        Perm = 1 => "NFS3ERR_PERM",
        NoEnt = 2 => "NFS3ERR_NOENT",
        Io = 5 => "NFS3ERR_IO",
        Nxio = 6 => "NFS3ERR_NXIO",
        Acces = 13 => "NFS3ERR_ACCES",
        Exist = 17 => "NFS3ERR_EXIST",
        Xdev = 18 => "NFS3ERR_XDEV",
        NoDev = 19 => "NFS3ERR_NODEV",
        NotDir = 20 => "NFS3ERR_NOTDIR",
        IsDir = 21 => "NFS3ERR_ISDIR",
        Inval = 22 => "NFS3ERR_INVAL",
        FBig = 27 => "NFS3ERR_FBIG",
        NoSpc = 28 => "NFS3ERR_NOSPC",
        Rofs = 30 => "NFS3ERR_ROFS",
        Mlink = 31 => "NFS3ERR_MLINK",
        NameTooLong = 63 => "NFS3ERR_NAMETOOLONG",
        NotEmpty = 66 => "NFS3ERR_NOTEMPTY",
        Dquot = 69 => "NFS3ERR_DQUOT",
        Stale = 70 => "NFS3ERR_STALE",
        Remote = 71 => "NFS3ERR_REMOTE",
        BadHandle = 10001 => "NFS3ERR_BADHANDLE",
        NotSync = 10002 => "NFS3ERR_NOT_SYNC",
        BadCookie = 10003 => "NFS3ERR_BAD_COOKIE",
        NotSupp = 10004 => "NFS3ERR_NOTSUPP",
        TooSmall = 10005 => "NFS3ERR_TOOSMALL",
        ServerFault = 10006 => "NFS3ERR_SERVERFAULT",
        BadType = 10007 => "NFS3ERR_BADTYPE",
        Jukebox = 10008 => "NFS3ERR_JUKEBOX",
    }
}

/// An NFSv3 procedure result: `union switch (nfsstat3 status) { case NFS3_OK: resok; default: resfail; }`
/// (RFC 1813 §3.3). The failure arm holds an [`NfsErr3`], so `NFS3_OK` with a failure body cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nfs3Result<T, F> {
    Ok(T),
    Fail(NfsErr3, F),
}

impl<T, F> Nfs3Result<T, F> {
    /// The status word this result is encoded with.
    pub fn status(&self) -> NfsStat3 {
        match self {
            Nfs3Result::Ok(_) => NfsStat3::Ok,
            Nfs3Result::Fail(e, _) => e.status(),
        }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, Nfs3Result::Ok(_))
    }

    /// The success arm, if this is one.
    pub fn ok(&self) -> Option<&T> {
        match self {
            Nfs3Result::Ok(v) => Some(v),
            Nfs3Result::Fail(..) => None,
        }
    }

    /// Converts into a `Result`, keeping the failure status with its body.
    pub fn into_result(self) -> Result<T, (NfsErr3, F)> {
        match self {
            Nfs3Result::Ok(v) => Ok(v),
            Nfs3Result::Fail(e, f) => Err((e, f)),
        }
    }
}

impl<T: XdrEncode, F: XdrEncode> XdrEncode for Nfs3Result<T, F> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Nfs3Result::Ok(v) => {
                w.put_u32(NfsStat3::Ok.as_u32());
                v.encode(w);
            }
            Nfs3Result::Fail(e, f) => {
                e.encode(w);
                f.encode(w);
            }
        }
    }
}

impl<'a, T: XdrDecode<'a>, F: XdrDecode<'a>> XdrDecode<'a> for Nfs3Result<T, F> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 1813 §3.3: NFS3_OK selects resok; every other defined status selects resfail.
        let status = NfsStat3::decode(r)?;
        match status.error() {
            None => Ok(Nfs3Result::Ok(T::decode(r)?)),
            Some(e) => Ok(Nfs3Result::Fail(e, F::decode(r)?)),
        }
    }
}

/// XDR `void`: no bytes. The failure arm of GETATTR and the body of NULL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Void;

impl XdrEncode for Void {
    fn encode<'p>(&'p self, _w: &mut XdrWriter<'p>) {}
}

impl<'a> XdrDecode<'a> for Void {
    fn decode(_r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(Void)
    }
}
