//! rpcbind, program 100000 versions 3 and 4 (RFC 1833 §2): the lookups libtirpc and the Linux kernel
//! try first (version 4, then 3, then port mapper version 2).
//!
//! Procedures and their XDR types (RFC 1833 §2.1; 9-12 exist in version 4 only):
//!
//! | proc | name | argument | result |
//! |---|---|---|---|
//! | 0 | RPCBPROC_NULL | void | void |
//! | 1 | RPCBPROC_SET | [`Rpcb`] | `bool` |
//! | 2 | RPCBPROC_UNSET | [`Rpcb`] | `bool` |
//! | 3 | RPCBPROC_GETADDR | [`Rpcb`] | [`RpcbString`] universal address ("" if none) |
//! | 4 | RPCBPROC_DUMP | void | [`RpcbList`] |
//! | 5 | RPCBPROC_CALLIT (v4: BCAST) | [`RpcbRmtCallArgs`] | [`RpcbRmtCallRes`] |
//! | 6 | RPCBPROC_GETTIME | void | `unsigned int` seconds since the epoch |
//! | 7 | RPCBPROC_UADDR2TADDR | [`RpcbString`] | [`NetBuf`] |
//! | 8 | RPCBPROC_TADDR2UADDR | [`NetBuf`] | [`RpcbString`] |
//! | 9 | RPCBPROC_GETVERSADDR | [`Rpcb`] | [`RpcbString`] |
//! | 10 | RPCBPROC_INDIRECT | [`RpcbRmtCallArgs`] | [`RpcbRmtCallRes`] |
//! | 11 | RPCBPROC_GETADDRLIST | [`Rpcb`] | [`RpcbEntryList`] |
//! | 12 | RPCBPROC_GETSTAT | void | `rpcb_stat_byvers` (not modelled here) |
//!
//! Strings are `string<>` without a declared maximum; they are borrowed, so their size is bounded by the
//! message alone.

use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::portmap::encode_list;

/// RFC 1833 §2.1: `version RPCBVERS { ... } = 3`.
pub const RPCBIND_V3: u32 = 3;
/// RFC 1833 §2.1: `version RPCBVERS4 { ... } = 4`.
pub const RPCBIND_V4: u32 = 4;

/// Transport semantics in [`RpcbEntry::semantics`] (RFC 1833 §2.1, from the TLI `netconfig` values).
pub const NC_TPI_CLTS: u32 = 1;
pub const NC_TPI_COTS: u32 = 2;
pub const NC_TPI_COTS_ORD: u32 = 3;
pub const NC_TPI_RAW: u32 = 4;

/// Network ids (`r_netid`) as registered in IANA's netid registry (RFC 5665 §5.1).
pub const NETID_TCP: &[u8] = b"tcp";
pub const NETID_TCP6: &[u8] = b"tcp6";
pub const NETID_UDP: &[u8] = b"udp";
pub const NETID_UDP6: &[u8] = b"udp6";
pub const NETID_RDMA: &[u8] = b"rdma";
pub const NETID_RDMA6: &[u8] = b"rdma6";

/// rpcbind's procedures (RFC 1833 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum RpcbProcedure {
    Null = 0,
    Set = 1,
    Unset = 2,
    GetAddr = 3,
    Dump = 4,
    /// CALLIT in version 3, BCAST in version 4: same number and types.
    CallIt = 5,
    GetTime = 6,
    Uaddr2Taddr = 7,
    Taddr2Uaddr = 8,
    GetVersAddr = 9,
    Indirect = 10,
    GetAddrList = 11,
    GetStat = 12,
}

impl RpcbProcedure {
    /// The procedure `proc` of rpcbind `version` (3 or 4); `None` if that version lacks it.
    pub fn from_u32(version: u32, proc: u32) -> Option<Self> {
        use RpcbProcedure::*;
        let highest = match version {
            RPCBIND_V3 => 8,
            RPCBIND_V4 => 12,
            _ => return None,
        };
        if proc > highest {
            return None;
        }
        Some(match proc {
            0 => Null,
            1 => Set,
            2 => Unset,
            3 => GetAddr,
            4 => Dump,
            5 => CallIt,
            6 => GetTime,
            7 => Uaddr2Taddr,
            8 => Taddr2Uaddr,
            9 => GetVersAddr,
            10 => Indirect,
            11 => GetAddrList,
            12 => GetStat,
            _ => return None,
        })
    }
}

/// `struct rpcb { unsigned int r_prog; unsigned int r_vers; string r_netid<>; string r_addr<>;
/// string r_owner<>; }` (RFC 1833 §2.1). `addr` is a universal address (see [`crate::uaddr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rpcb<'a> {
    pub prog: u32,
    pub vers: u32,
    pub netid: &'a [u8],
    pub addr: &'a [u8],
    pub owner: &'a [u8],
}

impl XdrEncode for Rpcb<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.prog);
        w.put_u32(self.vers);
        w.put_opaque(self.netid);
        w.put_opaque(self.addr);
        w.put_opaque(self.owner);
    }
}

impl<'a> XdrDecode<'a> for Rpcb<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(Rpcb {
            prog: r.get_u32()?,
            vers: r.get_u32()?,
            netid: r.get_string("rpcb r_netid", u32::MAX)?,
            addr: r.get_string("rpcb r_addr", u32::MAX)?,
            owner: r.get_string("rpcb r_owner", u32::MAX)?,
        })
    }
}

/// `rpcblist_ptr`, i.e. `rp__list *` (RFC 1833 §2.1): the DUMP result as an XDR linked list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RpcbList<'a>(pub Vec<Rpcb<'a>>);

impl XdrEncode for RpcbList<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(w, &self.0);
    }
}

impl<'a> XdrDecode<'a> for RpcbList<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RpcbList(r.get_list(Rpcb::decode)?))
    }
}

/// A bare `string<>`: the result of GETADDR, GETVERSADDR and TADDR2UADDR, the argument of UADDR2TADDR.
/// An empty string means "not registered".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct RpcbString<'a>(pub &'a [u8]);

impl XdrEncode for RpcbString<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.0);
    }
}

impl<'a> XdrDecode<'a> for RpcbString<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RpcbString(r.get_string("rpcbind string", u32::MAX)?))
    }
}

/// `struct rpcb_rmtcallargs { unsigned int prog; unsigned int vers; unsigned int proc; opaque args<>; }`
/// (RFC 1833 §2.1), the argument of CALLIT/BCAST and INDIRECT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpcbRmtCallArgs<'a> {
    pub prog: u32,
    pub vers: u32,
    pub proc: u32,
    pub args: &'a [u8],
}

impl XdrEncode for RpcbRmtCallArgs<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.prog);
        w.put_u32(self.vers);
        w.put_u32(self.proc);
        w.put_opaque(self.args);
    }
}

impl<'a> XdrDecode<'a> for RpcbRmtCallArgs<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RpcbRmtCallArgs {
            prog: r.get_u32()?,
            vers: r.get_u32()?,
            proc: r.get_u32()?,
            args: r.get_opaque("rpcb_rmtcallargs args", u32::MAX)?,
        })
    }
}

/// `struct rpcb_rmtcallres { string addr<>; opaque results<>; }` (RFC 1833 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RpcbRmtCallRes<'a> {
    pub addr: &'a [u8],
    pub results: &'a [u8],
}

impl XdrEncode for RpcbRmtCallRes<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.addr);
        w.put_opaque(self.results);
    }
}

impl<'a> XdrDecode<'a> for RpcbRmtCallRes<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RpcbRmtCallRes {
            addr: r.get_string("rpcb_rmtcallres addr", u32::MAX)?,
            results: r.get_opaque("rpcb_rmtcallres results", u32::MAX)?,
        })
    }
}

/// `struct rpcb_entry { string r_maddr<>; string r_nc_netid<>; unsigned int r_nc_semantics;
/// string r_nc_protofmly<>; string r_nc_proto<>; }` (RFC 1833 §2.1), one address of GETADDRLIST.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RpcbEntry<'a> {
    /// Universal address of the service.
    pub maddr: &'a [u8],
    pub netid: &'a [u8],
    /// One of the `NC_TPI_*` values.
    pub semantics: u32,
    /// Protocol family, e.g. `inet` or `inet6`.
    pub protofmly: &'a [u8],
    /// Protocol, e.g. `tcp`.
    pub proto: &'a [u8],
}

impl XdrEncode for RpcbEntry<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_opaque(self.maddr);
        w.put_opaque(self.netid);
        w.put_u32(self.semantics);
        w.put_opaque(self.protofmly);
        w.put_opaque(self.proto);
    }
}

impl<'a> XdrDecode<'a> for RpcbEntry<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RpcbEntry {
            maddr: r.get_string("rpcb_entry r_maddr", u32::MAX)?,
            netid: r.get_string("rpcb_entry r_nc_netid", u32::MAX)?,
            semantics: r.get_u32()?,
            protofmly: r.get_string("rpcb_entry r_nc_protofmly", u32::MAX)?,
            proto: r.get_string("rpcb_entry r_nc_proto", u32::MAX)?,
        })
    }
}

/// `rpcb_entry_list_ptr` (RFC 1833 §2.1): the GETADDRLIST result as an XDR linked list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RpcbEntryList<'a>(pub Vec<RpcbEntry<'a>>);

impl XdrEncode for RpcbEntryList<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        encode_list(w, &self.0);
    }
}

impl<'a> XdrDecode<'a> for RpcbEntryList<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(RpcbEntryList(r.get_list(RpcbEntry::decode)?))
    }
}

/// `struct netbuf { unsigned int maxlen; opaque buf<>; }` (RFC 1833 §2.1): a transport-specific address,
/// the result of UADDR2TADDR and the argument of TADDR2UADDR.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NetBuf<'a> {
    pub maxlen: u32,
    pub buf: &'a [u8],
}

impl XdrEncode for NetBuf<'_> {
    fn encode<'p>(&'p self, w: &mut XdrWriter<'p>) {
        w.put_u32(self.maxlen);
        w.put_opaque(self.buf);
    }
}

impl<'a> XdrDecode<'a> for NetBuf<'a> {
    fn decode(r: &mut XdrReader<'a>) -> Result<Self, XdrError> {
        Ok(NetBuf { maxlen: r.get_u32()?, buf: r.get_opaque("netbuf buf", u32::MAX)? })
    }
}
