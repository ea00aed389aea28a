//! MKNOD (RFC 1813 §3.3.11): create a special device, socket or FIFO.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::proc::create::{CreateResFail, CreateResOk};
use crate::sattr::Sattr3;
use crate::status::Nfs3Result;
use crate::types::{DirOpArgs3, Ftype3, SpecData3};

xdr_struct! {
    /// `devicedata3`: attributes and device numbers of a new block or character device.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct DeviceData3 {
        pub dev_attributes: Sattr3,
        pub spec: SpecData3,
    }
}

/// `mknoddata3`: `union switch (ftype3 type)`. Devices carry `devicedata3`, sockets and FIFOs `sattr3`, and
/// the other file types are valid discriminants with a `void` arm (the server answers NFS3ERR_BADTYPE).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MknodData3 {
    Chr(DeviceData3),
    Blk(DeviceData3),
    Sock(Sattr3),
    Fifo(Sattr3),
    Reg,
    Dir,
    Lnk,
}

impl MknodData3 {
    pub fn ftype(&self) -> Ftype3 {
        match self {
            MknodData3::Chr(_) => Ftype3::Chr,
            MknodData3::Blk(_) => Ftype3::Blk,
            MknodData3::Sock(_) => Ftype3::Sock,
            MknodData3::Fifo(_) => Ftype3::Fifo,
            MknodData3::Reg => Ftype3::Reg,
            MknodData3::Dir => Ftype3::Dir,
            MknodData3::Lnk => Ftype3::Lnk,
        }
    }
}

impl XdrEncode for MknodData3 {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.ftype().as_u32());
        match self {
            MknodData3::Chr(d) | MknodData3::Blk(d) => d.encode(w),
            MknodData3::Sock(a) | MknodData3::Fifo(a) => a.encode(w),
            MknodData3::Reg | MknodData3::Dir | MknodData3::Lnk => {}
        }
    }
}

impl<'a> XdrDecode<'a> for MknodData3 {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        // RFC 1813 §3.3.11: a type outside ftype3 is a bad discriminant, not a `default` arm.
        Ok(match Ftype3::decode(r)? {
            Ftype3::Chr => MknodData3::Chr(DeviceData3::decode(r)?),
            Ftype3::Blk => MknodData3::Blk(DeviceData3::decode(r)?),
            Ftype3::Sock => MknodData3::Sock(Sattr3::decode(r)?),
            Ftype3::Fifo => MknodData3::Fifo(Sattr3::decode(r)?),
            Ftype3::Reg => MknodData3::Reg,
            Ftype3::Dir => MknodData3::Dir,
            Ftype3::Lnk => MknodData3::Lnk,
        })
    }
}

xdr_struct! {
    /// `MKNOD3args`. The RFC's field `where` is `where_`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct MknodArgs<'a> {
        pub where_: DirOpArgs3<'a>,
        pub what: MknodData3,
    }
}

/// `MKNOD3resok`: the same fields as `CREATE3resok`.
pub type MknodResOk = CreateResOk;
/// `MKNOD3resfail`: `dir_wcc`.
pub type MknodResFail = CreateResFail;
/// `MKNOD3res`.
pub type MknodRes = Nfs3Result<MknodResOk, MknodResFail>;
