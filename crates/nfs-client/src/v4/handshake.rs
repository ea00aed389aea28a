//! The COMPOUNDs that stand outside any session, each alone in its COMPOUND on one chosen connection
//! (RFC 8881 §2.10.2): EXCHANGE_ID (§18.35), CREATE_SESSION (§18.36), BIND_CONN_TO_SESSION (§18.34),
//! DESTROY_SESSION (§18.37), DESTROY_CLIENTID (§18.50). The mount and the recovery of a session run them.

use nfs4_proto::{
    AuthSysParms, BindConnToSessionArgs, CallbackSecParms4, ChannelAttrs4, ChannelDirFromClient4, ClientId4,
    ClientOwner4, CreateSessionArgs, CreateSessionResOk, DestroyClientidArgs, DestroySessionArgs, ExchangeIdArgs,
    NfsArgOp, NfsErr4, NfsImplId4, NfsResOp, NfsTime4, Opaque4, SessionId4, StateProtect4A, Utf8Str,
    CREATE_SESSION4_FLAG_CONN_BACK_CHAN, CREATE_SESSION4_FLAG_PERSIST, EXCHGID4_FLAG_USE_NON_PNFS,
};

use super::owner::ClientIdentity;
use super::wire;
use crate::encode::CallEncoder;
use crate::error::ClientError;
use crate::transport::{reply_channel, RpcTransport};

/// The callback program number the client gives the server (Linux's `NFS4_CALLBACK`).
pub(crate) const CB_PROGRAM: u32 = 0x4000_0000;

/// What EXCHANGE_ID told the client about the server (RFC 8881 §18.35.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Exchanged {
    pub(crate) clientid: ClientId4,
    /// The `csa_sequence` of the next CREATE_SESSION.
    pub(crate) sequence: u32,
    pub(crate) flags: u32,
    pub(crate) major_id: Vec<u8>,
    pub(crate) minor_id: u64,
    pub(crate) scope: Vec<u8>,
}

/// What the client asks of a new session.
#[derive(Debug, Clone)]
pub(crate) struct SessionRequest {
    pub(crate) fore: ChannelAttrs4,
    pub(crate) back: ChannelAttrs4,
    /// Bind the connection to the back channel too (the client answers callbacks).
    pub(crate) back_channel: bool,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) machine_name: Vec<u8>,
}

/// Sends the single operation `op` on `transport` as a COMPOUND of minor version `minor` and returns its
/// result (or the status that ended the COMPOUND, including NFS4ERR_MINOR_VERS_MISMATCH with no result).
async fn single<T>(
    transport: &dyn RpcTransport,
    encoder: &CallEncoder,
    minor: u32,
    proc: &'static str,
    op: NfsArgOp<'_>,
    read: impl FnOnce(&NfsResOp<'_>) -> Option<T>,
) -> Result<T, ClientError> {
    let encoded = wire::compound(encoder, minor, proc, std::slice::from_ref(&op));
    let (tx, rx) = reply_channel();
    transport.submit(encoded.call, tx);
    let reply = rx.wait(proc).await?;
    let res = wire::decode(proc, &reply.record, &encoded.ops)?;
    match res.resarray.first() {
        None => Err(res.status.error().map_or_else(
            || ClientError::protocol(proc, "a COMPOUND reply with no result"),
            |status| ClientError::Nfs4 { proc, status },
        )),
        Some(result) => match result.status().error() {
            Some(status) => Err(ClientError::Nfs4 { proc, status }),
            None => read(result).ok_or_else(|| ClientError::protocol(proc, "a result of the wrong kind")),
        },
    }
}

/// EXCHANGE_ID with SP4_NONE, asking for a non-pNFS client ID (RFC 8881 §18.35.3).
pub(crate) async fn exchange_id(
    transport: &dyn RpcTransport,
    encoder: &CallEncoder,
    minor: u32,
    identity: &ClientIdentity,
) -> Result<Exchanged, ClientError> {
    let impl_id = NfsImplId4 {
        domain: Utf8Str(b"nfsbench"),
        name: Utf8Str(concat!("nfsbench ", env!("CARGO_PKG_VERSION")).as_bytes()),
        date: NfsTime4::default(),
    };
    let args = ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: identity.verifier, ownerid: Opaque4(&identity.owner_id) },
        flags: EXCHGID4_FLAG_USE_NON_PNFS,
        state_protect: StateProtect4A::None,
        client_impl_id: Some(impl_id),
    };
    single(transport, encoder, minor, "EXCHANGE_ID", NfsArgOp::ExchangeId(args), |res| match res {
        NfsResOp::ExchangeId(nfs4_proto::Nfs4Result::Ok(ok)) => Some(Exchanged {
            clientid: ok.clientid,
            sequence: ok.sequenceid,
            flags: ok.flags,
            major_id: ok.server_owner.major_id.0.to_vec(),
            minor_id: ok.server_owner.minor_id,
            scope: ok.server_scope.0.to_vec(),
        }),
        _ => None,
    })
    .await
}

/// CREATE_SESSION for `clientid` with `sequence` (RFC 8881 §18.36.3).
pub(crate) async fn create_session(
    transport: &dyn RpcTransport,
    encoder: &CallEncoder,
    minor: u32,
    clientid: ClientId4,
    sequence: u32,
    request: &SessionRequest,
) -> Result<CreateSessionResOk, ClientError> {
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as u32);
    let cred = AuthSysParms {
        stamp,
        machinename: &request.machine_name,
        uid: request.uid,
        gid: request.gid,
        gids: vec![request.gid],
    };
    // As Linux's nfs4_proc_create_session: a persistent session asked, the back channel on this connection.
    let mut flags = CREATE_SESSION4_FLAG_PERSIST;
    if request.back_channel {
        flags |= CREATE_SESSION4_FLAG_CONN_BACK_CHAN;
    }
    let args = CreateSessionArgs {
        clientid,
        sequence,
        flags,
        fore_chan_attrs: request.fore,
        back_chan_attrs: request.back,
        cb_program: CB_PROGRAM,
        sec_parms: vec![CallbackSecParms4::Sys(cred)],
    };
    let proc = "CREATE_SESSION";
    let ok = single(transport, encoder, minor, proc, NfsArgOp::CreateSession(args), |res| match res {
        NfsResOp::CreateSession(nfs4_proto::Nfs4Result::Ok(ok)) => Some(*ok),
        _ => None,
    })
    .await?;
    // RFC 8881 §18.36.4: the reply echoes the sequence; a fore channel of no slot cannot carry a call.
    if ok.sequence != sequence || ok.fore_chan_attrs.maxrequests == 0 {
        let detail =
            format!("sequence {} (sent {sequence}), {} fore slots", ok.sequence, ok.fore_chan_attrs.maxrequests);
        return Err(ClientError::protocol(proc, detail));
    }
    Ok(ok)
}

/// BIND_CONN_TO_SESSION of the connection `transport` sends on (RFC 8881 §18.34): the fore channel, or
/// both when the client answers callbacks.
pub(crate) async fn bind_conn(
    transport: &dyn RpcTransport,
    encoder: &CallEncoder,
    minor: u32,
    sessionid: SessionId4,
    back_channel: bool,
) -> Result<(), ClientError> {
    let dir = if back_channel { ChannelDirFromClient4::ForeOrBoth } else { ChannelDirFromClient4::Fore };
    let args = BindConnToSessionArgs { sessionid, dir, use_conn_in_rdma_mode: false };
    let proc = "BIND_CONN_TO_SESSION";
    let ok = single(transport, encoder, minor, proc, NfsArgOp::BindConnToSession(args), |res| match res {
        NfsResOp::BindConnToSession(nfs4_proto::Nfs4Result::Ok(ok)) => Some(*ok),
        _ => None,
    })
    .await?;
    if ok.sessionid != sessionid {
        return Err(ClientError::protocol(proc, "the reply names another session"));
    }
    Ok(())
}

/// DESTROY_SESSION (RFC 8881 §18.37).
pub(crate) async fn destroy_session(
    transport: &dyn RpcTransport,
    encoder: &CallEncoder,
    minor: u32,
    sessionid: SessionId4,
) -> Result<(), ClientError> {
    let op = NfsArgOp::DestroySession(DestroySessionArgs { sessionid });
    single(transport, encoder, minor, "DESTROY_SESSION", op, |res| {
        matches!(res, NfsResOp::DestroySession(_)).then_some(())
    })
    .await
}

/// DESTROY_CLIENTID (RFC 8881 §18.50); NFS4ERR_CLIENTID_BUSY (state still held) is left to the lease.
pub(crate) async fn destroy_clientid(
    transport: &dyn RpcTransport,
    encoder: &CallEncoder,
    minor: u32,
    clientid: ClientId4,
) -> Result<(), ClientError> {
    let op = NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid });
    let done = single(transport, encoder, minor, "DESTROY_CLIENTID", op, |res| {
        matches!(res, NfsResOp::DestroyClientid(_)).then_some(())
    })
    .await;
    match done {
        Err(ClientError::Nfs4 { status: NfsErr4::ClientIdBusy, .. }) => Ok(()),
        other => other,
    }
}
