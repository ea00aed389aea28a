//! Mounting over NFSv4.1/4.2: no port mapper and no MOUNT (RFC 8881 §2.9.3; port 2049, 20049 for
//! RDMA). Every connection is a transport of its own, answering the server's callbacks
//! ([`CallbackService`]); the first carries EXCHANGE_ID (the minor version
//! negotiated for `vers=4`: 4.2, then 4.1 on NFS4ERR_MINOR_VERS_MISMATCH, as Linux's mount.nfs) and
//! CREATE_SESSION (its back channel bound too); then a connection to another address checks with its
//! own EXCHANGE_ID that the server there is the same (`server_owner`, scope and client ID, RFC 8881
//! §2.10.5: session trunking); then every other connection is bound to the session (BIND_CONN_TO_SESSION), RECLAIM_COMPLETE says the client
//! reclaims nothing, and the export's root is looked up from PUTROOTFH with the file system's limits.

use std::net::SocketAddr;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mount_options::{MountSpec, NfsVersion, NFS_PORT, NFS_RDMA_PORT};
use nfs4_proto::{ChannelAttrs4, NfsErr4, SessionId4};
use tokio::task::JoinSet;

use super::callback::CallbackService;
use super::handshake::{self, Exchanged, SessionRequest};
use super::lease::Lease;
use super::owner::ClientIdentity;
use super::recover::first_state;
use super::requests::io::ReclaimComplete;
use super::requests::names::{LookupPath, RootInfo};
use super::session::{Conn, Mode, Session};
use super::slots::MAX_SLOTS;
use crate::encode::{machine_name, CallEncoder};
use crate::error::ClientError;
use crate::rdma::{RdmaConfig, RdmaTransport};
use crate::retransmit::RetransmitPolicy;
use crate::tcp::{TcpOptions, TcpTransport, REPLY_HEADROOM};
use crate::transport::RpcTransport;
use crate::types::FileHandle;

/// Bytes a COMPOUND carries beyond its READ or WRITE data: RPC header and credential, SEQUENCE, PUTFH
/// with a 128-byte handle, the operation's other fields (Linux's `nfs41_maxwrite_overhead` is about
/// as much).
const COMPOUND_HEADROOM: u32 = 4096;
/// Operations per COMPOUND asked for: LOOKUPs of a long export path are split to fit.
const MAX_OPERATIONS: u32 = 16;
/// Back-channel slots asked for: callbacks are rare for a client that holds no delegation.
const BACK_SLOTS: u32 = 2;
/// The lease assumed when the server does not say (RFC 8881 §5.8.1.11; knfsd's default is 90 s).
const DEFAULT_LEASE: Duration = Duration::from_secs(90);

/// A mounted NFSv4 export.
#[derive(Debug)]
pub(crate) struct Mounted {
    pub(crate) session: Arc<Session>,
    pub(crate) root: FileHandle,
    pub(crate) maxread: u64,
    pub(crate) maxwrite: u64,
    pub(crate) version: NfsVersion,
}

/// One transport per connection address: TCP (through `link`), or RPC-over-RDMA queue pairs.
async fn connect_all(
    spec: &MountSpec,
    addrs: &[SocketAddr],
    rdma: Option<&RdmaConfig>,
    link: Option<Arc<wan::Link>>,
) -> Result<Vec<Conn>, ClientError> {
    let retransmit = RetransmitPolicy::of(spec);
    let max_record = spec.rsize.max(spec.wsize) as usize + REPLY_HEADROOM;
    let mut attempts = JoinSet::new();
    for (index, &addr) in addrs.iter().enumerate() {
        let (rdma, link) = (rdma.cloned(), link.clone());
        attempts.spawn(async move {
            let transport: Result<Box<dyn RpcTransport>, ClientError> = match rdma {
                None => {
                    let options = TcpOptions { retransmit, max_record };
                    TcpTransport::connect_over(&[addr], options, link).await.map(|t| Box::new(t) as _)
                }
                Some(config) => RdmaTransport::connect(&[addr], &config, retransmit).await.map(|t| Box::new(t) as _),
            };
            (index, addr, transport)
        });
    }
    let mut conns = Vec::with_capacity(addrs.len());
    while let Some(joined) = attempts.join_next().await {
        let (index, addr, transport) = joined.map_err(|e| ClientError::Unsupported(format!("connect task: {e}")))?;
        conns.push((index, Conn { transport: transport?, addr, seen_reconnects: AtomicU64::new(0) }));
    }
    conns.sort_by_key(|(index, _)| *index);
    Ok(conns.into_iter().map(|(_, c)| c).collect())
}

/// What CREATE_SESSION asks: `slots` fore-channel slots, requests and replies as large as the largest
/// WRITE and READ plus their COMPOUND, a small back channel.
fn session_request(spec: &MountSpec, slots: u32, back_channel: bool) -> SessionRequest {
    let fore = ChannelAttrs4 {
        headerpadsize: 0,
        maxrequestsize: spec.wsize + COMPOUND_HEADROOM,
        maxresponsesize: spec.rsize + COMPOUND_HEADROOM,
        // Only small replies (OPEN, CLOSE, SETATTR) are asked to be cached.
        maxresponsesize_cached: COMPOUND_HEADROOM,
        maxoperations: MAX_OPERATIONS,
        maxrequests: slots,
        rdma_ird: None,
    };
    let back = ChannelAttrs4 {
        headerpadsize: 0,
        maxrequestsize: 4096,
        maxresponsesize: 4096,
        maxresponsesize_cached: 0,
        maxoperations: 4,
        maxrequests: BACK_SLOTS,
        rdma_ird: None,
    };
    SessionRequest { fore, back, back_channel, uid: spec.uid, gid: spec.gid, machine_name: machine_name() }
}

/// EXCHANGE_ID with the first minor version in `minors` the server speaks.
async fn negotiate(
    conn: &Conn,
    encoder: &CallEncoder,
    minors: &[u32],
    identity: &ClientIdentity,
) -> Result<(u32, Exchanged), ClientError> {
    let mut last = None;
    for &minor in minors {
        match handshake::exchange_id(&*conn.transport, encoder, minor, identity).await {
            Ok(ex) => return Ok((minor, ex)),
            Err(e @ ClientError::Nfs4 { status: NfsErr4::MinorVersMismatch, .. }) => {
                tracing::debug!(minor, "the server does not speak NFSv4.{minor}");
                last = Some(e);
            }
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| ClientError::Unsupported("no NFSv4 minor version to try".into())))
}

/// RFC 8881 §2.10.5: connections to another address may join the session only when the server there
/// is the same — the same `server_owner` (major and minor id) and scope, and so the same client ID.
fn check_trunk(
    first: &Exchanged,
    other: &Exchanged,
    addr: SocketAddr,
    first_addr: SocketAddr,
) -> Result<(), ClientError> {
    let what = if other.major_id != first.major_id {
        "server_owner.so_major_id"
    } else if other.scope != first.scope {
        "server_scope"
    } else if other.minor_id != first.minor_id {
        "server_owner.so_minor_id (client ID trunking only)"
    } else if other.clientid != first.clientid {
        "the client ID"
    } else {
        return Ok(());
    };
    Err(ClientError::NotTrunkable { addr, first: first_addr, what })
}

/// Mounts `spec` over NFSv4 with `slots` fore-channel slots wanted.
pub(crate) async fn mount(
    spec: &MountSpec,
    rdma: Option<RdmaConfig>,
    link: Option<Arc<wan::Link>>,
    slots: u32,
) -> Result<Mounted, ClientError> {
    let default_port = if rdma.is_some() { NFS_RDMA_PORT } else { NFS_PORT };
    let port = spec.port.filter(|&p| p != 0).unwrap_or(default_port);
    let addrs: Vec<SocketAddr> = spec.connection_addrs()?.into_iter().map(|ip| SocketAddr::new(ip, port)).collect();
    if addrs.is_empty() {
        return Err(ClientError::Unsupported("a mount needs at least one connection".into()));
    }
    let conns = connect_all(spec, &addrs, rdma.as_ref(), link).await?;
    let encoder = CallEncoder::new(spec.uid, spec.gid);
    let identity = ClientIdentity::for_mount(&machine_name());
    let (minor, first) = negotiate(&conns[0], &encoder, spec.vers.minor_versions(), &identity).await?;
    let wanted = slots.clamp(1, MAX_SLOTS);
    // The server's callbacks are answered on every connection from before CREATE_SESSION binds the
    // first for the back channel: the server may probe it (CB_NULL) at once.
    let callbacks = Arc::new(CallbackService::new(SessionId4::default(), BACK_SLOTS));
    for conn in &conns {
        conn.transport.set_callback_handler(callbacks.clone());
    }
    let request = session_request(spec, wanted, true);
    let made =
        handshake::create_session(&*conns[0].transport, &encoder, minor, first.clientid, first.sequence, &request)
            .await?;
    callbacks.reset(made.sessionid, made.back_chan_attrs.maxrequests);
    let state = first_state(first.clientid, first.sequence, &made, wanted, Lease::new(DEFAULT_LEASE, Instant::now()));
    let session = Arc::new(Session::new(conns, encoder, minor, identity, request, wanted, state, Some(callbacks)));
    let mounted = match check_trunks(&session, &first).await {
        Ok(()) => finish(&session, spec).await,
        Err(e) => Err(e),
    };
    match mounted {
        Ok((root, info)) => {
            session.start_maintenance();
            let version = NfsVersion::v4_minor(minor).unwrap_or(spec.vers);
            tracing::debug!(export = %spec.export, ?addrs, minor, "mounted over NFSv4");
            Ok(Mounted { session, root, maxread: info.maxread, maxwrite: info.maxwrite, version })
        }
        Err(e) => {
            // Leave nothing behind on the server or in the runtime.
            let _ = session.shutdown().await;
            Err(e)
        }
    }
}

/// Trunking discovery: one EXCHANGE_ID on the first connection to each other address, once the client
/// ID is confirmed — RFC 8881 §18.35.4: an EXCHANGE_ID for an unconfirmed record replaces it with a new
/// client ID (case 4), so asking before CREATE_SESSION would never see the same one; Linux, too, tests
/// trunking on a live session.
async fn check_trunks(session: &Session, first: &Exchanged) -> Result<(), ClientError> {
    let first_addr = session.conns[0].addr;
    let mut checked = vec![first_addr.ip()];
    for conn in &session.conns[1..] {
        if checked.contains(&conn.addr.ip()) {
            continue;
        }
        checked.push(conn.addr.ip());
        let other =
            handshake::exchange_id(&*conn.transport, &session.encoder, session.minor, &session.identity).await?;
        check_trunk(first, &other, conn.addr, first_addr)?;
    }
    Ok(())
}

/// The steps after CREATE_SESSION: bind, RECLAIM_COMPLETE, the root.
async fn finish(session: &Arc<Session>, spec: &MountSpec) -> Result<(FileHandle, RootInfo), ClientError> {
    session.bind_all(true).await?;
    session.run(&ReclaimComplete, None, Mode::Normal).await?;
    let components: Vec<String> =
        spec.export.split('/').filter(|c| !c.is_empty() && *c != ".").map(str::to_owned).collect();
    // Each COMPOUND: SEQUENCE, PUT(ROOT)FH, LOOKUPs, GETFH, GETATTR within MAX_OPERATIONS.
    let per = (MAX_OPERATIONS - 4) as usize;
    let mut from = None;
    let mut chunks: Vec<Vec<String>> = components.chunks(per).map(<[String]>::to_vec).collect();
    if chunks.is_empty() {
        chunks.push(Vec::new());
    }
    let mut info = None;
    for chunk in chunks {
        let found = session.run(&LookupPath { from: from.clone(), components: chunk }, None, Mode::Normal).await;
        let found = found.map_err(|e| match e {
            ClientError::Nfs4 { status: NfsErr4::NoEnt, .. } => ClientError::NotFound { path: spec.export.clone() },
            e => e,
        })?;
        from = Some(found.fh.clone());
        info = Some(found);
    }
    let info = info.ok_or_else(|| ClientError::protocol("LOOKUP", "no root"))?;
    if info.attr.kind != crate::types::FileKind::Directory {
        return Err(ClientError::protocol("LOOKUP", format!("the export {} is not a directory", spec.export)));
    }
    if info.lease_time > 0 {
        session.state().lease.set_lease_time(Duration::from_secs(u64::from(info.lease_time)));
    }
    Ok((info.fh.clone(), info))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(major: &[u8], minor: u64, scope: &[u8], clientid: u64) -> Exchanged {
        Exchanged { clientid, sequence: 1, flags: 0, major_id: major.to_vec(), minor_id: minor, scope: scope.to_vec() }
    }

    #[test]
    fn only_the_same_server_owner_and_scope_may_share_a_session() {
        let (a, b): (SocketAddr, SocketAddr) = ("10.0.0.1:2049".parse().unwrap(), "10.0.0.2:2049".parse().unwrap());
        let first = ex(b"srv", 0, b"scope", 7);
        assert!(check_trunk(&first, &ex(b"srv", 0, b"scope", 7), b, a).is_ok());
        for (other, what) in [
            (ex(b"other", 0, b"scope", 7), "so_major_id"),
            (ex(b"srv", 0, b"elsewhere", 7), "server_scope"),
            (ex(b"srv", 1, b"scope", 7), "so_minor_id"),
            (ex(b"srv", 0, b"scope", 8), "client ID"),
        ] {
            let e = check_trunk(&first, &other, b, a).unwrap_err();
            assert!(e.to_string().contains(what) && e.to_string().contains("10.0.0.2:2049"), "{e}");
        }
    }

    #[test]
    fn the_session_is_sized_by_the_slots_and_the_transfer_sizes() {
        let spec = MountSpec::parse("127.0.0.1:/e", Some("vers=4.1,rsize=65536,wsize=131072")).unwrap();
        let r = session_request(&spec, 32, false);
        assert_eq!(
            (r.fore.maxrequests, r.fore.maxresponsesize, r.fore.maxrequestsize),
            (32, 65536 + 4096, 131072 + 4096)
        );
        assert_eq!(r.back.maxrequests, BACK_SLOTS);
        assert!(!r.back_channel);
    }
}
