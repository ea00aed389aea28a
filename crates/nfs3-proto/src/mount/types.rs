//! MOUNT v3 data types (RFC 1813 Appendix I §5.1) and the results of MNT, DUMP and EXPORT.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use super::{MNTNAMLEN, MNTPATHLEN};
use crate::types::{encode_list, FileHandle3};

wire_status! {
    /// `mountstat3` (RFC 1813 §5.1.5, Appendix I): every value, including `MNT3_OK`.
    pub enum MountStat3 as "mountstat3" { Ok = 0 => "MNT3_OK" }

    /// Every `mountstat3` value except `MNT3_OK`.
    pub enum MountErr3 {
        Perm = 1 => "MNT3ERR_PERM",
        NoEnt = 2 => "MNT3ERR_NOENT",
        Io = 5 => "MNT3ERR_IO",
        Acces = 13 => "MNT3ERR_ACCES",
        NotDir = 20 => "MNT3ERR_NOTDIR",
        Inval = 22 => "MNT3ERR_INVAL",
        NameTooLong = 63 => "MNT3ERR_NAMETOOLONG",
        NotSupp = 10004 => "MNT3ERR_NOTSUPP",
        ServerFault = 10006 => "MNT3ERR_SERVERFAULT",
    }
}

/// `dirpath` (RFC 1813 §5.1.5): `string<MNTPATHLEN>`, a server path name, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DirPath<'a>(pub &'a [u8]);

impl XdrEncode for DirPath<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.0);
    }
}

impl<'a> XdrDecode<'a> for DirPath<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 1813 §5.1.4: a path name is at most MNTPATHLEN (1024) bytes.
        Ok(DirPath(r.get_string("dirpath", MNTPATHLEN)?))
    }
}

/// `name` (RFC 1813 §5.1.5): `string<MNTNAMLEN>`, a host or group name, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MntName<'a>(pub &'a [u8]);

impl XdrEncode for MntName<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.0);
    }
}

impl<'a> XdrDecode<'a> for MntName<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 1813 §5.1.4: a name is at most MNTNAMLEN (255) bytes.
        Ok(MntName(r.get_string("name", MNTNAMLEN)?))
    }
}

/// `mountres3_ok` (RFC 1813 §5.2.1): the export's root handle and the RPC auth flavors it accepts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MountRes3Ok {
    pub fhandle: FileHandle3,
    /// `int auth_flavors<>`, kept unsigned like RPC flavor numbers (same bytes on the wire).
    pub auth_flavors: Vec<u32>,
}

impl XdrEncode for MountRes3Ok {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.fhandle.encode(w);
        w.put_u32(self.auth_flavors.len() as u32);
        for flavor in &self.auth_flavors {
            w.put_u32(*flavor);
        }
    }
}

impl<'a> XdrDecode<'a> for MountRes3Ok {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(MountRes3Ok {
            // RFC 1813 §5.1.4-5.1.5: fhandle3 is opaque<FHSIZE3>, FHSIZE3 = 64.
            fhandle: FileHandle3::decode_named(r, "fhandle3")?,
            auth_flavors: r.get_vec("auth_flavors", u32::MAX, 4, |r| r.get_u32())?,
        })
    }
}

/// `mountres3` (RFC 1813 §5.2.1): `union switch (mountstat3 fhs_status) { case MNT3_OK: mountres3_ok; default: void; }`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MountRes3 {
    Ok(MountRes3Ok),
    Fail(MountErr3),
}

impl MountRes3 {
    pub fn status(&self) -> MountStat3 {
        match self {
            MountRes3::Ok(_) => MountStat3::Ok,
            MountRes3::Fail(e) => e.status(),
        }
    }
}

impl XdrEncode for MountRes3 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        match self {
            MountRes3::Ok(ok) => {
                w.put_u32(MountStat3::Ok.as_u32());
                ok.encode(w);
            }
            MountRes3::Fail(e) => e.encode(w),
        }
    }
}

impl<'a> XdrDecode<'a> for MountRes3 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(match MountStat3::decode(r)?.error() {
            None => MountRes3::Ok(MountRes3Ok::decode(r)?),
            Some(e) => MountRes3::Fail(e),
        })
    }
}

xdr_struct! {
    /// `mountbody` (RFC 1813 §5.2.2) without its `ml_next` link: a client host and the path it mounted.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct MountBody<'a> {
        pub ml_hostname: MntName<'a>,
        pub ml_directory: DirPath<'a>,
    }
}

/// `mountlist` (RFC 1813 §5.2.2): the DUMP result, a linked list of `mountbody` flattened.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct MountList<'a>(pub Vec<MountBody<'a>>);

impl XdrEncode for MountList<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(&self.0, w);
    }
}

impl<'a> XdrDecode<'a> for MountList<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(MountList(r.get_list(MountBody::decode)?))
    }
}

/// `exportnode` (RFC 1813 §5.2.5) without its `ex_next` link: an exported path and the groups (`groups`,
/// a linked list of `groupnode`, flattened) allowed to mount it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExportNode<'a> {
    pub ex_dir: DirPath<'a>,
    pub ex_groups: Vec<MntName<'a>>,
}

impl XdrEncode for ExportNode<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        self.ex_dir.encode(w);
        encode_list(&self.ex_groups, w);
    }
}

impl<'a> XdrDecode<'a> for ExportNode<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(ExportNode { ex_dir: DirPath::decode(r)?, ex_groups: r.get_list(MntName::decode)? })
    }
}

/// `exports` (RFC 1813 §5.2.5): the EXPORT result, a linked list of `exportnode` flattened.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Exports<'a>(pub Vec<ExportNode<'a>>);

impl XdrEncode for Exports<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(&self.0, w);
    }
}

impl<'a> XdrDecode<'a> for Exports<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(Exports(r.get_list(ExportNode::decode)?))
    }
}
