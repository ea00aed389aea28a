//! Operations the other files leave out, with their main errors: SECINFO by name, BACKCHANNEL_CTL,
//! BIND_CONN_TO_SESSION's place, DESTROY_CLIENTID of a busy client, GET_DIR_DELEGATION, READLINK and
//! COMMIT of the wrong types, OPEN's claims this server refuses, and FREE_STATEID of an open.

use nfs4_proto::*;

use super::*;

#[test]
fn secinfo_names_the_flavours_of_an_existing_name_and_consumes_the_file_handle() {
    let server = server();
    let c = Client::new(&server, "secinfo");
    c.mount();
    let secinfo = |name: &'static str| NfsArgOp::Secinfo(SecinfoArgs { name: Component4(name.as_bytes()) });
    let answer = c.seq(vec![NfsArgOp::Putrootfh, secinfo("export"), NfsArgOp::Getfh]);
    assert_eq!(answer.statuses(), [OK, OK, OK, err(NfsErr4::NoFileHandle)]);
    let res = answer.res();
    let NfsResOp::Secinfo(Nfs4Result::Ok(flavours)) = &res.resarray[2] else { panic!("{res:?}") };
    assert_eq!(flavours.0, [Secinfo4::Flavor(1), Secinfo4::Flavor(0)]);
    assert_eq!(c.seq(vec![NfsArgOp::Putrootfh, secinfo("nothing")]).status(), err(NfsErr4::NoEnt));
    let dir = c.export_fh();
    assert_eq!(c.seq(vec![putfh(dir), secinfo("missing")]).status(), err(NfsErr4::NoEnt));
}

#[test]
fn backchannel_ctl_needs_usable_security_and_a_session() {
    let server = server();
    let c = Client::new(&server, "bctl");
    c.mount();
    let ctl = |sec: Vec<CallbackSecParms4<'static>>| {
        NfsArgOp::BackchannelCtl(BackchannelCtlArgs { cb_program: 7, sec_parms: sec })
    };
    assert_eq!(c.seq(vec![ctl(vec![CallbackSecParms4::None])]).status(), OK);
    let gss_only = vec![CallbackSecParms4::Gss(GssCbHandles4::default())];
    assert_eq!(c.seq(vec![ctl(gss_only)]).status(), err(NfsErr4::EncrAlgUnsupp));
}

#[test]
fn bind_conn_to_session_must_be_alone_and_name_a_live_session() {
    let server = server();
    let c = Client::new(&server, "bind");
    c.mount();
    let bind = |sessionid| {
        NfsArgOp::BindConnToSession(BindConnToSessionArgs {
            sessionid,
            dir: ChannelDirFromClient4::Fore,
            use_conn_in_rdma_mode: false,
        })
    };
    assert_eq!(c.seq(vec![bind(c.session.get())]).statuses(), [OK, err(NfsErr4::NotOnlyOp)]);
    assert_eq!(c.compound(vec![bind(SessionId4([3; 16]))]).status(), err(NfsErr4::BadSession));
    let answer = c.compound(vec![bind(c.session.get())]);
    let res = answer.res();
    let [NfsResOp::BindConnToSession(Nfs4Result::Ok(ok))] = &res.resarray[..] else { panic!("{res:?}") };
    assert_eq!((ok.dir, ok.use_conn_in_rdma_mode), (ChannelDirFromServer4::Fore, false));
}

#[test]
fn destroy_clientid_of_a_client_with_a_session_is_busy_and_of_an_unknown_one_stale() {
    let server = server();
    let c = Client::new(&server, "busy");
    c.mount();
    let destroy = |clientid| NfsArgOp::DestroyClientid(DestroyClientidArgs { clientid });
    assert_eq!(c.compound(vec![destroy(c.clientid.get())]).status(), err(NfsErr4::ClientIdBusy));
    assert_eq!(c.compound(vec![destroy(0x1234)]).status(), err(NfsErr4::StaleClientId));
}

#[test]
fn directory_delegations_are_unavailable_and_readlink_and_commit_refuse_other_types() {
    let server = server();
    let c = Client::new(&server, "types");
    c.mount();
    let dir = c.export_fh();
    let gdd = NfsArgOp::GetDirDelegation(GetDirDelegationArgs::default());
    let answer = c.seq(vec![putfh(dir), gdd.clone()]);
    let res = answer.res();
    let Some(NfsResOp::GetDirDelegation(Nfs4Result::Ok(r))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!(*r, GetDirDelegationResNonFatal::Unavail { will_signal_deleg_avail: false });
    assert_eq!(c.seq(vec![gdd]).status(), err(NfsErr4::NoFileHandle));
    let (_, file) = c.create(dir, "plain");
    assert_eq!(c.seq(vec![putfh(file), NfsArgOp::Readlink]).status(), err(NfsErr4::Inval));
    assert_eq!(c.seq(vec![putfh(dir), NfsArgOp::Readlink]).status(), err(NfsErr4::IsDir));
    let commit = NfsArgOp::Commit(CommitArgs { offset: 0, count: 0 });
    assert_eq!(c.seq(vec![putfh(dir), commit]).status(), err(NfsErr4::IsDir));
}

#[test]
fn open_claims_of_delegations_and_creation_outside_claim_null_are_refused() {
    let server = server();
    let c = Client::new(&server, "claims");
    c.mount();
    let dir = c.export_fh();
    let (stateid, file) = c.create(dir, "f");
    let open = |claim, openhow| {
        NfsArgOp::Open(OpenArgs {
            seqid: 0,
            share_access: OPEN4_SHARE_ACCESS_READ,
            share_deny: 0,
            owner: StateOwner4 { clientid: c.clientid.get(), owner: Opaque4(b"claims") },
            openhow,
            claim,
        })
    };
    let deleg_cur = OpenClaim4::DelegCurFh(stateid);
    assert_eq!(c.seq(vec![putfh(file), open(deleg_cur, OpenFlag4::NoCreate)]).status(), err(NfsErr4::BadStateId));
    assert_eq!(
        c.seq(vec![putfh(file), open(OpenClaim4::DelegPrevFh, OpenFlag4::NoCreate)]).status(),
        err(NfsErr4::NotSupp)
    );
    let create = OpenFlag4::Create(CreateHow4::Unchecked(mode_attrs(0o644)));
    assert_eq!(c.seq(vec![putfh(file), open(OpenClaim4::Fh, create)]).status(), err(NfsErr4::Inval));
    let on_dir = c.seq(vec![putfh(dir), open(OpenClaim4::Fh, OpenFlag4::NoCreate)]);
    assert_eq!(on_dir.status(), err(NfsErr4::IsDir));
    let free_open = NfsArgOp::FreeStateid(FreeStateidArgs { stateid });
    assert_eq!(c.seq(vec![free_open]).status(), err(NfsErr4::LocksHeld), "an open is freed by CLOSE (as knfsd)");
}
