//! Client ids and sessions: EXCHANGE_ID (RFC 8881 §18.35), CREATE_SESSION (§18.36), DESTROY_SESSION
//! (§18.37), BIND_CONN_TO_SESSION (§18.34), BACKCHANNEL_CTL (§18.33), RECLAIM_COMPLETE (§18.51) and
//! DESTROY_CLIENTID (§18.50). The state machine decides; these turn wire types into its types and back,
//! and schedule a CB_NULL probe when a connection starts carrying the back channel.

use nfs4_proto::{
    BackchannelCtlArgs, BindConnToSessionArgs, BindConnToSessionResOk, CallbackSecParms4, ChannelAttrs4,
    ChannelDirFromClient4, ChannelDirFromServer4, CreateSessionArgs, CreateSessionResOk, DestroyClientidArgs,
    DestroySessionArgs, ExchangeIdArgs, ExchangeIdResOk, Nfs4Result, NfsErr4, NfsImplId4, NfsResOp, NfsTime4, Opaque4,
    ReclaimCompleteArgs, ServerOwner4, StateProtect4A, StateProtect4R, Utf8Str, Void, EXCHGID4_FLAG_BIND_PRINC_STATEID,
    EXCHGID4_FLAG_CONFIRMED_R, EXCHGID4_FLAG_MASK_PNFS, EXCHGID4_FLAG_SUPP_MOVED_MIGR, EXCHGID4_FLAG_SUPP_MOVED_REFER,
    EXCHGID4_FLAG_UPD_CONFIRMED_REC_A, EXCHGID4_FLAG_USE_NON_PNFS,
};

use crate::v4::context::{session_id, wire_session, Cx};
use crate::v4::errors::from_state;
use crate::v4::results::Results;
use crate::v4::state::{self, BoundDir, CallbackSecurity, ChannelAttrs, ChannelDir, ClientId};

/// RFC 8881 §18.35.1 (knfsd's EXCHGID4_FLAG_MASK_A): the flags a client may send.
const EXCHGID4_FLAG_MASK_A: u32 = EXCHGID4_FLAG_SUPP_MOVED_REFER
    | EXCHGID4_FLAG_SUPP_MOVED_MIGR
    | EXCHGID4_FLAG_BIND_PRINC_STATEID
    | EXCHGID4_FLAG_MASK_PNFS
    | EXCHGID4_FLAG_UPD_CONFIRMED_REC_A;

pub(crate) fn exchange_id(cx: &mut Cx<'_>, args: &ExchangeIdArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    if args.flags & !EXCHGID4_FLAG_MASK_A != 0 {
        return Err(NfsErr4::Inval);
    }
    match args.state_protect {
        StateProtect4A::None => {}
        // As knfsd: no SSV (RFC 8881 §18.35.4 names this error for unsupported algorithms).
        StateProtect4A::Ssv(_) => return Err(NfsErr4::EncrAlgUnsupp),
        // No machine credentials without RPCSEC_GSS: only SP4_NONE.
        StateProtect4A::MachCred(_) => return Err(NfsErr4::Inval),
    }
    let request = state::ExchangeIdArgs {
        owner: args.clientowner.ownerid.as_bytes(),
        verifier: args.clientowner.verifier.0,
        update: args.flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A != 0,
        principal: cx.principal(),
        peer: Some(cx.conn.peer),
    };
    let ok = cx.state().exchange_id(&request, cx.now).map_err(|e| from_state(&e))?;
    cx.changes_clients = true;
    // RFC 8881 §18.35.4: no pNFS here, and whether the record was confirmed already.
    let mut flags = EXCHGID4_FLAG_USE_NON_PNFS;
    if ok.confirmed {
        flags |= EXCHGID4_FLAG_CONFIRMED_R;
    }
    let owner = &cx.svc.server_owner;
    let name = concat!("nfsbench ", env!("CARGO_PKG_VERSION"));
    out.put(&NfsResOp::ExchangeId(Nfs4Result::Ok(ExchangeIdResOk {
        clientid: ok.clientid.0,
        sequenceid: ok.sequenceid,
        flags,
        state_protect: StateProtect4R::None,
        server_owner: ServerOwner4 { minor_id: 0, major_id: Opaque4(owner) },
        server_scope: Opaque4(owner),
        server_impl_id: Some(NfsImplId4 {
            domain: Utf8Str(b"nfsbench"),
            name: Utf8Str(name.as_bytes()),
            date: NfsTime4::default(),
        }),
    })));
    Ok(())
}

fn attrs(wire: &ChannelAttrs4) -> ChannelAttrs {
    ChannelAttrs {
        headerpadsize: wire.headerpadsize,
        maxrequestsize: wire.maxrequestsize,
        maxresponsesize: wire.maxresponsesize,
        maxresponsesize_cached: wire.maxresponsesize_cached,
        maxoperations: wire.maxoperations,
        maxrequests: wire.maxrequests,
        rdma_ird: wire.rdma_ird,
    }
}

fn wire_attrs(a: &ChannelAttrs) -> ChannelAttrs4 {
    ChannelAttrs4 {
        headerpadsize: a.headerpadsize,
        maxrequestsize: a.maxrequestsize,
        maxresponsesize: a.maxresponsesize,
        maxresponsesize_cached: a.maxresponsesize_cached,
        maxoperations: a.maxoperations,
        maxrequests: a.maxrequests,
        rdma_ird: a.rdma_ird,
    }
}

fn security(wire: &[CallbackSecParms4<'_>]) -> Vec<CallbackSecurity> {
    wire.iter()
        .map(|p| match p {
            CallbackSecParms4::None => CallbackSecurity::None,
            CallbackSecParms4::Sys(sys) => CallbackSecurity::Sys { uid: sys.uid, gid: sys.gid },
            CallbackSecParms4::Gss(_) => CallbackSecurity::Other(6),
        })
        .collect()
}

pub(crate) fn create_session(cx: &mut Cx<'_>, args: &CreateSessionArgs<'_>, out: &mut Results) -> Result<(), NfsErr4> {
    let cb_security = security(&args.sec_parms);
    let request = state::CreateSessionArgs {
        clientid: ClientId(args.clientid),
        sequence: args.sequence,
        flags: args.flags,
        fore: attrs(&args.fore_chan_attrs),
        back: attrs(&args.back_chan_attrs),
        cb_program: args.cb_program,
        cb_security: &cb_security,
        principal: cx.principal(),
        conn: cx.conn.id,
    };
    let grant = cx.state().create_session(&request, cx.now).map_err(|e| from_state(&e))?;
    cx.changes_clients = true;
    cx.svc.remember_session(grant.sessionid, cx.minor);
    if grant.flags & state::CREATE_SESSION4_FLAG_CONN_BACK_CHAN != 0 {
        cx.svc.callbacks.schedule_probe(grant.sessionid);
    }
    out.put(&NfsResOp::CreateSession(Nfs4Result::Ok(CreateSessionResOk {
        sessionid: wire_session(&grant.sessionid),
        sequence: grant.sequence,
        flags: grant.flags,
        fore_chan_attrs: wire_attrs(&grant.fore),
        back_chan_attrs: wire_attrs(&grant.back),
    })));
    Ok(())
}

pub(crate) fn destroy_session(cx: &mut Cx<'_>, args: &DestroySessionArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let id = session_id(&args.sessionid);
    let own = cx.session.filter(|s| s.sessionid == id);
    // RFC 8881 §18.37.3: destroying the session the COMPOUND runs in must be its last operation.
    if own.is_some() && cx.index + 1 != cx.declared {
        return Err(NfsErr4::NotOnlyOp);
    }
    cx.state().destroy_session(&id, own.map(|s| s.slotid)).map_err(|e| from_state(&e))?;
    cx.svc.forget_session(&id);
    cx.svc.callbacks.forget(&id);
    cx.changes_clients = true;
    out.put(&NfsResOp::DestroySession(Nfs4Result::Ok(Void)));
    Ok(())
}

pub(crate) fn bind_conn_to_session(
    cx: &mut Cx<'_>,
    args: &BindConnToSessionArgs,
    out: &mut Results,
) -> Result<(), NfsErr4> {
    // RFC 8881 §18.34.3: BIND_CONN_TO_SESSION is the only operation of its COMPOUND.
    if cx.declared != 1 {
        return Err(NfsErr4::NotOnlyOp);
    }
    let id = session_id(&args.sessionid);
    let dir = match args.dir {
        ChannelDirFromClient4::Fore => ChannelDir::Fore,
        ChannelDirFromClient4::Back => ChannelDir::Back,
        ChannelDirFromClient4::ForeOrBoth => ChannelDir::ForeOrBoth,
        ChannelDirFromClient4::BackOrBoth => ChannelDir::BackOrBoth,
    };
    let ok = cx.state().bind_conn_to_session(&id, cx.conn.id, dir, cx.now).map_err(|e| from_state(&e))?;
    if ok.probe_backchannel {
        cx.svc.callbacks.schedule_probe(id);
    }
    let dir = match ok.dir {
        BoundDir::Fore => ChannelDirFromServer4::Fore,
        BoundDir::Back => ChannelDirFromServer4::Back,
        BoundDir::Both => ChannelDirFromServer4::Both,
    };
    // RDMA mode (a second, RDMA-capable connection) is not offered: the connection stays as it is.
    out.put(&NfsResOp::BindConnToSession(Nfs4Result::Ok(BindConnToSessionResOk {
        sessionid: args.sessionid,
        dir,
        use_conn_in_rdma_mode: false,
    })));
    Ok(())
}

pub(crate) fn backchannel_ctl(
    cx: &mut Cx<'_>,
    args: &BackchannelCtlArgs<'_>,
    out: &mut Results,
) -> Result<(), NfsErr4> {
    let id = cx.session_id().ok_or(NfsErr4::OpNotInSession)?;
    let security = security(&args.sec_parms);
    cx.state().backchannel_ctl(&id, args.cb_program, &security).map_err(|e| from_state(&e))?;
    out.put(&NfsResOp::BackchannelCtl(Nfs4Result::Ok(Void)));
    Ok(())
}

pub(crate) fn reclaim_complete(cx: &mut Cx<'_>, args: &ReclaimCompleteArgs, out: &mut Results) -> Result<(), NfsErr4> {
    let client = cx.clientid()?;
    cx.state().reclaim_complete(client, args.one_fs, cx.now).map_err(|e| from_state(&e))?;
    cx.changes_clients = true;
    out.put(&NfsResOp::ReclaimComplete(Nfs4Result::Ok(Void)));
    Ok(())
}

pub(crate) fn destroy_clientid(cx: &mut Cx<'_>, args: &DestroyClientidArgs, out: &mut Results) -> Result<(), NfsErr4> {
    cx.state().destroy_clientid(ClientId(args.clientid)).map_err(|e| from_state(&e))?;
    cx.changes_clients = true;
    out.put(&NfsResOp::DestroyClientid(Nfs4Result::Ok(Void)));
    Ok(())
}
