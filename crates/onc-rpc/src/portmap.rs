//! Port mapper, program 100000 version 2 (RFC 1833 §3): the lookup the Linux kernel's NFSv3 mount
//! (and libtirpc's `pmap_getport`) falls back to.
//!
//! Procedures and their XDR types (RFC 1833 §3.1):
//!
//! | proc | name | argument | result |
//! |---|---|---|---|
//! | 0 | PMAPPROC_NULL | void | void |
//! | 1 | PMAPPROC_SET | [`Mapping`] | `bool` |
//! | 2 | PMAPPROC_UNSET | [`Mapping`] | `bool` |
//! | 3 | PMAPPROC_GETPORT | [`Mapping`] | `unsigned int` port (0: not registered) |
//! | 4 | PMAPPROC_DUMP | void | [`PmapList`] |
//! | 5 | PMAPPROC_CALLIT | [`CallArgs`] | [`CallResult`] |

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

/// RFC 1833 §3.1: `version PMAP_VERS { ... } = 2`.
pub const PMAP_VERSION: u32 = 2;
/// RFC 1833 §3.1: protocol number for TCP/IP in [`Mapping::prot`].
pub const IPPROTO_TCP: u32 = 6;
/// RFC 1833 §3.1: protocol number for UDP/IP in [`Mapping::prot`].
pub const IPPROTO_UDP: u32 = 17;

/// The port mapper's procedures (RFC 1833 §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum PmapProcedure {
    Null = 0,
    Set = 1,
    Unset = 2,
    GetPort = 3,
    Dump = 4,
    CallIt = 5,
}

impl PmapProcedure {
    pub fn from_u32(proc: u32) -> Option<Self> {
        use PmapProcedure::*;
        Some(match proc {
            0 => Null,
            1 => Set,
            2 => Unset,
            3 => GetPort,
            4 => Dump,
            5 => CallIt,
            _ => return None,
        })
    }
}

/// `struct mapping { unsigned int prog; unsigned int vers; unsigned int prot; unsigned int port; }`
/// (RFC 1833 §3.1). `prot` is [`IPPROTO_TCP`] or [`IPPROTO_UDP`]; `port` is ignored by GETPORT and UNSET.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mapping {
    pub prog: u32,
    pub vers: u32,
    pub prot: u32,
    pub port: u32,
}

impl XdrEncode for Mapping {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.prog);
        w.put_u32(self.vers);
        w.put_u32(self.prot);
        w.put_u32(self.port);
    }
}

impl<'a> XdrDecode<'a> for Mapping {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(Mapping { prog: r.get_u32()?, vers: r.get_u32()?, prot: r.get_u32()?, port: r.get_u32()? })
    }
}

/// `pmaplist *` (RFC 1833 §3.1): the DUMP result, an XDR linked list of mappings (each entry preceded by
/// TRUE, the list ended by FALSE).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PmapList(pub Vec<Mapping>);

impl XdrEncode for PmapList {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(w, &self.0);
    }
}

impl<'a> XdrDecode<'a> for PmapList {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(PmapList(r.get_list(Mapping::decode)?))
    }
}

/// `struct call_args { unsigned int prog; unsigned int vers; unsigned int proc; opaque args<>; }`
/// (RFC 1833 §3.1), the argument of CALLIT; `args` are the encoded arguments of the inner call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallArgs<'a> {
    pub prog: u32,
    pub vers: u32,
    pub proc: u32,
    pub args: &'a [u8],
}

impl XdrEncode for CallArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.prog);
        w.put_u32(self.vers);
        w.put_u32(self.proc);
        w.put_opaque(self.args);
    }
}

impl<'a> XdrDecode<'a> for CallArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CallArgs {
            prog: r.get_u32()?,
            vers: r.get_u32()?,
            proc: r.get_u32()?,
            args: r.get_opaque("call_args args", u32::MAX)?,
        })
    }
}

/// `struct call_result { unsigned int port; opaque res<>; }` (RFC 1833 §3.1), the result of CALLIT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallResult<'a> {
    pub port: u32,
    pub res: &'a [u8],
}

impl XdrEncode for CallResult<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.port);
        w.put_opaque(self.res);
    }
}

impl<'a> XdrDecode<'a> for CallResult<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(CallResult { port: r.get_u32()?, res: r.get_opaque("call_result res", u32::MAX)? })
    }
}

/// Encodes an XDR linked list (RFC 4506 §4.19 optional-data chains): TRUE + element per entry, then FALSE.
pub(crate) fn encode_list<'p, T: XdrEncode>(w: &mut XdrWriter<'p>, items: &'p [T]) {
    for item in items {
        w.put_bool(true);
        item.encode(w);
    }
    w.put_bool(false);
}
