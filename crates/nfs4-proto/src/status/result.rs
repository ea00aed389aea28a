//! The shapes of operation results: [`Nfs4Result`] (body only on `NFS4_OK`), [`Nfs4ResultOr`] (also a
//! body on one error), [`Void`], and [`OpResult`], what every result offers a server.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::{NfsErr4, NfsStat4};

/// The result of most operations: `union switch (nfsstat4 status) { case NFS4_OK: resok; default: void; }`
/// (RFC 8881 §16.2.3). For operations whose `resok` is void too, `T` is [`Void`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nfs4Result<T> {
    Ok(T),
    Err(NfsErr4),
}

impl<T> Nfs4Result<T> {
    /// The status word this result is encoded with.
    pub fn status(&self) -> NfsStat4 {
        match self {
            Nfs4Result::Ok(_) => NfsStat4::Ok,
            Nfs4Result::Err(e) => e.status(),
        }
    }

    pub fn is_ok(&self) -> bool {
        matches!(self, Nfs4Result::Ok(_))
    }

    /// The success body, if this is one.
    pub fn ok(&self) -> Option<&T> {
        match self {
            Nfs4Result::Ok(v) => Some(v),
            Nfs4Result::Err(_) => None,
        }
    }

    /// Converts into a `Result` with the failure status as the error.
    pub fn into_result(self) -> Result<T, NfsErr4> {
        match self {
            Nfs4Result::Ok(v) => Ok(v),
            Nfs4Result::Err(e) => Err(e),
        }
    }
}

impl<T> From<Result<T, NfsErr4>> for Nfs4Result<T> {
    fn from(r: Result<T, NfsErr4>) -> Self {
        match r {
            Ok(v) => Nfs4Result::Ok(v),
            Err(e) => Nfs4Result::Err(e),
        }
    }
}

impl<T: XdrEncode> XdrEncode for Nfs4Result<T> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            Nfs4Result::Ok(v) => {
                w.put_u32(NfsStat4::Ok.as_u32());
                v.encode(w);
            }
            Nfs4Result::Err(e) => e.encode(w),
        }
    }
}

impl<'a, T: XdrDecode<'a>> XdrDecode<'a> for Nfs4Result<T> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        match NfsStat4::decode(r)?.error() {
            None => Ok(Nfs4Result::Ok(T::decode(r)?)),
            Some(e) => Ok(Nfs4Result::Err(e)),
        }
    }
}

/// XDR `void`: no bytes. The success body of operations that return only a status.
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

/// What every operation result offers: its status word, and a way for a server to build the result
/// of a failed operation (the body the RFC pairs with that status, empty where it carries one).
pub trait OpResult: Sized {
    /// The status word the result is encoded with.
    fn status(&self) -> NfsStat4;
    /// The result of the operation failing with `err` (RFC 8881 §15.2: the failing operation ends the
    /// COMPOUND). Bodies an error arm must carry (LOCK's `LOCK4denied`, SETATTR's `attrsset`) are empty.
    fn from_error(err: NfsErr4) -> Self;
}

impl<T> OpResult for Nfs4Result<T> {
    fn status(&self) -> NfsStat4 {
        Nfs4Result::status(self)
    }

    fn from_error(err: NfsErr4) -> Self {
        Nfs4Result::Err(err)
    }
}

/// The body an error arm carries in the few results that have one (RFC 8881 §18.10.2 `LOCK4denied` for
/// NFS4ERR_DENIED, §18.43.2 a boolean for NFS4ERR_LAYOUTTRYLATER, ...): `STATUS` is the error it goes with.
pub trait ErrorBody: Sized {
    /// The status whose arm carries this body.
    const STATUS: NfsErr4;
    /// The body a server sends when it has nothing better ([`OpResult::from_error`] with `STATUS`).
    fn empty() -> Self;
}

/// A result with a body on `NFS4_OK` and another on one particular error `B::STATUS`; every other error
/// is void. `Err` never holds `B::STATUS` when decoded; build that failure with `ErrBody`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nfs4ResultOr<T, B> {
    Ok(T),
    ErrBody(B),
    Err(NfsErr4),
}

impl<T, B: ErrorBody> Nfs4ResultOr<T, B> {
    pub fn is_ok(&self) -> bool {
        matches!(self, Nfs4ResultOr::Ok(_))
    }

    /// The success body, if this is one.
    pub fn ok(&self) -> Option<&T> {
        match self {
            Nfs4ResultOr::Ok(v) => Some(v),
            _ => None,
        }
    }
}

impl<T, B: ErrorBody> OpResult for Nfs4ResultOr<T, B> {
    fn status(&self) -> NfsStat4 {
        match self {
            Nfs4ResultOr::Ok(_) => NfsStat4::Ok,
            Nfs4ResultOr::ErrBody(_) => B::STATUS.status(),
            Nfs4ResultOr::Err(e) => e.status(),
        }
    }

    /// `B::STATUS` becomes `ErrBody(B::empty())`, so the encoding stays what a decoder expects.
    fn from_error(err: NfsErr4) -> Self {
        if err == B::STATUS {
            Nfs4ResultOr::ErrBody(B::empty())
        } else {
            Nfs4ResultOr::Err(err)
        }
    }
}

impl<T: XdrEncode, B: XdrEncode + ErrorBody> XdrEncode for Nfs4ResultOr<T, B> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.status().as_u32());
        match self {
            Nfs4ResultOr::Ok(v) => v.encode(w),
            Nfs4ResultOr::ErrBody(b) => b.encode(w),
            Nfs4ResultOr::Err(_) => {}
        }
    }
}

impl<'a, T: XdrDecode<'a>, B: XdrDecode<'a> + ErrorBody> XdrDecode<'a> for Nfs4ResultOr<T, B> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match NfsStat4::decode(r)?.error() {
            None => Nfs4ResultOr::Ok(T::decode(r)?),
            Some(e) if e == B::STATUS => Nfs4ResultOr::ErrBody(B::decode(r)?),
            Some(e) => Nfs4ResultOr::Err(e),
        })
    }
}
