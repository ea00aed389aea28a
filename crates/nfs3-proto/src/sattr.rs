//! `sattr3` (RFC 1813 §2.6): the settable attributes of SETATTR, CREATE, MKDIR, SYMLINK and MKNOD.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::types::{Gid3, Mode3, NfsTime3, Size3, Uid3};

/// `set_mode3`: `union switch (bool set_it) { case TRUE: mode3 mode; default: void; }`, i.e. optional data.
pub type SetMode3 = Option<Mode3>;
/// `set_uid3`.
pub type SetUid3 = Option<Uid3>;
/// `set_gid3`.
pub type SetGid3 = Option<Gid3>;
/// `set_size3`.
pub type SetSize3 = Option<Size3>;

xdr_enum! {
    /// `time_how` (RFC 1813 §2.6): the discriminant of `set_atime` and `set_mtime`.
    pub enum TimeHow as "time_how" {
        DontChange = 0 => "DONT_CHANGE",
        SetToServerTime = 1 => "SET_TO_SERVER_TIME",
        SetToClientTime = 2 => "SET_TO_CLIENT_TIME",
    }
}

/// `set_atime` / `set_mtime` (RFC 1813 §2.6): `union switch (time_how set_it)`, with an `nfstime3` only for
/// `SET_TO_CLIENT_TIME`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SetTime3 {
    #[default]
    DontChange,
    SetToServerTime,
    SetToClientTime(NfsTime3),
}

/// `set_atime` (RFC 1813 §2.6).
pub type SetAtime = SetTime3;
/// `set_mtime` (RFC 1813 §2.6).
pub type SetMtime = SetTime3;

impl SetTime3 {
    pub fn how(&self) -> TimeHow {
        match self {
            SetTime3::DontChange => TimeHow::DontChange,
            SetTime3::SetToServerTime => TimeHow::SetToServerTime,
            SetTime3::SetToClientTime(_) => TimeHow::SetToClientTime,
        }
    }
}

impl XdrEncode for SetTime3 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.how().as_u32());
        if let SetTime3::SetToClientTime(t) = self {
            t.encode(w);
        }
    }
}

impl<'a> XdrDecode<'a> for SetTime3 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match TimeHow::decode(r)? {
            TimeHow::DontChange => SetTime3::DontChange,
            TimeHow::SetToServerTime => SetTime3::SetToServerTime,
            TimeHow::SetToClientTime => SetTime3::SetToClientTime(NfsTime3::decode(r)?),
        })
    }
}

xdr_struct! {
    /// `sattr3` (RFC 1813 §2.6). `Default` changes nothing.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct Sattr3 {
        pub mode: SetMode3,
        pub uid: SetUid3,
        pub gid: SetGid3,
        pub size: SetSize3,
        pub atime: SetAtime,
        pub mtime: SetMtime,
    }
}
