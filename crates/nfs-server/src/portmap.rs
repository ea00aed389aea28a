//! Program 100000 on our own port (RFC 1833): just enough port mapper (v2) and rpcbind (v3, v4) for
//! clients to find NFS v3 and MOUNT v3 here without a system rpcbind: the Linux kernel's and
//! mount.nfs's lookups (GETPORT, GETADDR, GETVERSADDR) and libnfs's.
//!
//! We register nothing on behalf of others: SET and UNSET answer FALSE; CALLIT, INDIRECT and the
//! address-translation procedures are PROC_UNAVAIL.

use std::net::{IpAddr, SocketAddr};
use std::time::{SystemTime, UNIX_EPOCH};

use onc_rpc::portmap::{Mapping, PmapList, PmapProcedure, IPPROTO_TCP, PMAP_VERSION};
use onc_rpc::rpcbind::{
    Rpcb, RpcbList, RpcbProcedure, RpcbString, NETID_RDMA, NETID_RDMA6, NETID_TCP, NETID_TCP6, RPCBIND_V4,
};
use onc_rpc::uaddr::format_uaddr;
use onc_rpc::{AcceptStat, MOUNT_PROGRAM, NFS_PROGRAM, PMAP_PROGRAM};
use tracing::warn;
use xdr::{XdrDecode, XdrEncode, XdrError, XdrReader, XdrWriter};

use crate::exports::canonical_ip;
use crate::rpc::{success_writer, Outcome};
use crate::{ConnectionInfo, Reply, Server};

/// Lowest and highest port mapper / rpcbind versions served.
pub(crate) const PMAP_LOW: u32 = 2;
pub(crate) const PMAP_HIGH: u32 = 4;

/// The (program, version) pairs served on our port.
const SERVED: [(u32, u32); 6] =
    [(NFS_PROGRAM, 3), (NFS_PROGRAM, 4), (MOUNT_PROGRAM, 3), (PMAP_PROGRAM, 2), (PMAP_PROGRAM, 3), (PMAP_PROGRAM, 4)];

/// Executes port mapper procedure `proc` of version `vers` (2..=4, checked by the caller).
pub(crate) fn call(server: &Server, conn: &ConnectionInfo, xid: u32, vers: u32, proc: u32, args: &[u8]) -> Outcome {
    let result =
        if vers == PMAP_VERSION { pmap_v2(server, proc, args) } else { rpcbind(server, conn, vers, proc, args) };
    match result {
        Ok(Some(reply)) => Outcome::Done { reply: reply.finish(xid), status: 0 },
        Ok(None) => Outcome::Refused(AcceptStat::ProcUnavail),
        Err(err) => {
            warn!(xid, vers, proc, peer = %conn.peer, %err, "port mapper arguments do not decode");
            Outcome::Refused(AcceptStat::GarbageArgs)
        }
    }
}

/// A result waiting for its header: encoded results copied after the success header.
struct Results(Vec<u8>);

impl Results {
    fn of<T: XdrEncode>(value: &T) -> Self {
        Results(value.to_xdr_bytes())
    }

    fn void() -> Self {
        Results(Vec::new())
    }

    fn finish(self, xid: u32) -> Reply {
        let mut w: XdrWriter<'_> = success_writer(xid, self.0.len());
        w.put_raw(&self.0);
        Reply::from_inline(w.into_vec())
    }
}

fn decode_all<'a, T: XdrDecode<'a>>(args: &'a [u8]) -> Result<T, XdrError> {
    let mut r = XdrReader::new(args);
    let v = T::decode(&mut r)?;
    r.finish()?;
    Ok(v)
}

fn void_args(args: &[u8]) -> Result<(), XdrError> {
    XdrReader::new(args).finish()
}

fn served(prog: u32, vers: u32) -> bool {
    SERVED.contains(&(prog, vers))
}

/// Port mapper version 2 (RFC 1833 §3).
fn pmap_v2(server: &Server, proc: u32, args: &[u8]) -> Result<Option<Results>, XdrError> {
    let Some(proc) = PmapProcedure::from_u32(proc) else { return Ok(None) };
    Ok(Some(match proc {
        PmapProcedure::Null => void_args(args).map(|()| Results::void())?,
        PmapProcedure::Set | PmapProcedure::Unset => decode_all::<Mapping>(args).map(|_| Results::of(&false))?,
        PmapProcedure::GetPort => {
            let m: Mapping = decode_all(args)?;
            let port = if m.prot == IPPROTO_TCP && served(m.prog, m.vers) { u32::from(server.tcp_port) } else { 0 };
            Results::of(&port)
        }
        PmapProcedure::Dump => {
            void_args(args)?;
            let port = u32::from(server.tcp_port);
            let list = SERVED.iter().map(|&(prog, vers)| Mapping { prog, vers, prot: IPPROTO_TCP, port }).collect();
            Results::of(&PmapList(list))
        }
        PmapProcedure::CallIt => return Ok(None),
    }))
}

/// rpcbind versions 3 and 4 (RFC 1833 §2).
fn rpcbind(
    server: &Server,
    conn: &ConnectionInfo,
    vers: u32,
    proc: u32,
    args: &[u8],
) -> Result<Option<Results>, XdrError> {
    let Some(proc) = RpcbProcedure::from_u32(vers, proc) else { return Ok(None) };
    Ok(Some(match proc {
        RpcbProcedure::Null => void_args(args).map(|()| Results::void())?,
        RpcbProcedure::Set | RpcbProcedure::Unset => decode_all::<Rpcb<'_>>(args).map(|_| Results::of(&false))?,
        // RFC 1833 §2.2.1: v4 GETADDR answers for any version of the program, GETVERSADDR (and v3
        // GETADDR) only for the exact version.
        RpcbProcedure::GetAddr | RpcbProcedure::GetVersAddr => {
            let q: Rpcb<'_> = decode_all(args)?;
            let any_version = vers == RPCBIND_V4 && proc == RpcbProcedure::GetAddr;
            let known = if any_version { SERVED.iter().any(|&(p, _)| p == q.prog) } else { served(q.prog, q.vers) };
            let addr = if known { universal_address(server, conn, q.netid) } else { None };
            Results::of(&RpcbString(addr.as_deref().unwrap_or("").as_bytes()))
        }
        RpcbProcedure::Dump => {
            void_args(args)?;
            let entries = dump_entries(server, conn);
            let list = entries
                .iter()
                .map(|(prog, vers, netid, addr)| Rpcb {
                    prog: *prog,
                    vers: *vers,
                    netid,
                    addr: addr.as_bytes(),
                    owner: b"superuser",
                })
                .collect();
            Results::of(&RpcbList(list))
        }
        RpcbProcedure::GetTime => {
            void_args(args)?;
            let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or_default();
            Results::of(&(now as u32))
        }
        _ => return Ok(None),
    }))
}

/// Where a client reaches `netid` on this connection (RFC 5665 §5.2.3 universal address); `None` for
/// a transport we do not listen on. An empty netid means the connection's own transport.
fn universal_address(server: &Server, conn: &ConnectionInfo, netid: &[u8]) -> Option<String> {
    let local = canonical_ip(conn.local.ip());
    let (port, ip) = match netid {
        b"" => match conn.transport {
            crate::TransportKind::Tcp => (server.tcp_port, local),
            crate::TransportKind::Rdma => (server.rdma_port?, local),
        },
        n if n == NETID_TCP => (server.tcp_port, local),
        n if n == NETID_TCP6 => (server.tcp_port, as_v6(local)),
        n if n == NETID_RDMA => (server.rdma_port?, local),
        n if n == NETID_RDMA6 => (server.rdma_port?, as_v6(local)),
        _ => return None,
    };
    if matches!(netid, b"tcp" | b"rdma") && ip.is_ipv6() {
        return None;
    }
    Some(format_uaddr(SocketAddr::new(ip, port)))
}

fn as_v6(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V6(v4.to_ipv6_mapped()),
        v6 => v6,
    }
}

/// rpcbind DUMP: every served (program, version) on the connection's TCP netid, and RDMA when enabled.
fn dump_entries(server: &Server, conn: &ConnectionInfo) -> Vec<(u32, u32, &'static [u8], String)> {
    let v4 = canonical_ip(conn.local.ip()).is_ipv4();
    let mut netids: Vec<&'static [u8]> = vec![if v4 { NETID_TCP } else { NETID_TCP6 }];
    if server.rdma_port.is_some() {
        netids.push(if v4 { NETID_RDMA } else { NETID_RDMA6 });
    }
    let mut out = Vec::new();
    for netid in netids {
        let Some(addr) = universal_address(server, conn, netid) else { continue };
        for &(prog, vers) in &SERVED {
            if prog == PMAP_PROGRAM && netid != NETID_TCP && netid != NETID_TCP6 {
                continue;
            }
            out.push((prog, vers, netid, addr.clone()));
        }
    }
    out
}
