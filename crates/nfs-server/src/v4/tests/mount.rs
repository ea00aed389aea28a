//! The Linux client's mount, step by step: EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, PUTROOTFH with
//! GETFH and GETATTR, SECINFO_NO_NAME, LOOKUP into the export; and the NULL procedure and version rules.

use nfs4_proto::attr::*;
use nfs4_proto::*;

use super::*;

#[test]
fn exchange_id_gives_an_unconfirmed_client_without_pnfs_and_a_server_owner() {
    let server = server();
    let c = Client::new(&server, "linux-client");
    let answer = c.exchange_id();
    let res = answer.res();
    let [NfsResOp::ExchangeId(Nfs4Result::Ok(ok))] = &res.resarray[..] else { panic!("{:?}", res.resarray) };
    assert_ne!(ok.clientid, 0);
    assert_eq!(ok.sequenceid, 1);
    assert_eq!(ok.flags & EXCHGID4_FLAG_USE_NON_PNFS, EXCHGID4_FLAG_USE_NON_PNFS);
    assert_eq!(ok.flags & EXCHGID4_FLAG_CONFIRMED_R, 0, "a new client is unconfirmed");
    assert_eq!(ok.state_protect, StateProtect4R::None);
    assert!(!ok.server_owner.major_id.is_empty());
    assert_eq!(ok.server_scope.as_bytes(), ok.server_owner.major_id.as_bytes());
}

#[test]
fn exchange_id_refuses_flags_a_client_may_not_send_and_ssv() {
    let server = server();
    let c = Client::new(&server, "odd");
    let answer = c.compound(vec![NfsArgOp::ExchangeId(ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: Verifier4([1; 8]), ownerid: Opaque4(b"odd") },
        flags: EXCHGID4_FLAG_CONFIRMED_R,
        state_protect: StateProtect4A::None,
        client_impl_id: None,
    })]);
    assert_eq!(answer.status(), err(NfsErr4::Inval));
    let ssv = c.compound(vec![NfsArgOp::ExchangeId(ExchangeIdArgs {
        clientowner: ClientOwner4 { verifier: Verifier4([1; 8]), ownerid: Opaque4(b"odd") },
        flags: 0,
        state_protect: StateProtect4A::Ssv(SsvSpParms4::default()),
        client_impl_id: None,
    })]);
    assert_eq!(ssv.status(), err(NfsErr4::EncrAlgUnsupp));
}

#[test]
fn create_session_grants_the_server_limits_and_a_second_exchange_id_sees_a_confirmed_client() {
    let server = server();
    let c = Client::new(&server, "linux-client");
    c.session_only(0);
    let again = c.exchange_id();
    let res = again.res();
    let [NfsResOp::ExchangeId(Nfs4Result::Ok(ok))] = &res.resarray[..] else { panic!("{:?}", res.resarray) };
    assert_eq!(ok.clientid, c.clientid.get());
    assert_eq!(ok.flags & EXCHGID4_FLAG_CONFIRMED_R, EXCHGID4_FLAG_CONFIRMED_R);
}

#[test]
fn a_linux_like_mount_reaches_the_export_with_its_attributes() {
    let server = server();
    let c = Client::new(&server, "linux-client");
    c.mount();
    // nfs4_proc_get_rootfh: PUTROOTFH, GETFH, GETATTR of the capabilities.
    let root = c.seq(vec![
        NfsArgOp::Putrootfh,
        NfsArgOp::Getfh,
        getattr(&[FATTR4_SUPPORTED_ATTRS, FATTR4_FH_EXPIRE_TYPE, FATTR4_LINK_SUPPORT, FATTR4_TYPE, FATTR4_FSID]),
    ]);
    assert_eq!(root.statuses(), [OK, OK, OK, OK]);
    let raw = root.attrs();
    let attrs = raw.decode_attrs().expect("attributes decode");
    let supported = attrs.supported_attrs.expect("supported_attrs");
    for bit in [FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FSID, FATTR4_FILEID, FATTR4_MODE, FATTR4_OWNER] {
        assert!(supported.is_set(bit), "attribute {bit} supported");
    }
    assert!(!supported.is_set(FATTR4_MODE_UMASK), "mode_umask is NFSv4.2's");
    assert_eq!(attrs.ftype, Some(NfsFtype4::Dir));
    assert_eq!(attrs.fh_expire_type, Some(0));
    let pseudo_fsid = attrs.fsid.expect("fsid");
    // SECINFO_NO_NAME on the root, then the export with its own file system.
    let sec = c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::SecinfoNoName(SecinfoStyle4::CurrentFh)]);
    let res = sec.res();
    let Some(NfsResOp::SecinfoNoName(Nfs4Result::Ok(flavours))) = res.resarray.last() else { panic!("{res:?}") };
    assert_eq!(flavours.0, [Secinfo4::Flavor(1), Secinfo4::Flavor(0)]);
    let export = c.seq(vec![
        NfsArgOp::Putrootfh,
        lookup("export"),
        NfsArgOp::Getfh,
        getattr(&[FATTR4_TYPE, FATTR4_FSID, FATTR4_FILEID, FATTR4_MOUNTED_ON_FILEID, FATTR4_LEASE_TIME]),
    ]);
    assert_eq!(export.status(), OK, "{:?}", export.statuses());
    let raw = export.attrs();
    let attrs = raw.decode_attrs().expect("attributes decode");
    assert_ne!(attrs.fsid, Some(pseudo_fsid), "the export is a file system of its own");
    assert_ne!(attrs.fileid, attrs.mounted_on_fileid, "its root is mounted on a pseudo directory");
    assert_eq!(attrs.lease_time, Some(90));
    assert_eq!(export.fh().as_bytes(), server.root_handle("/export").expect("root").as_bytes(), "the NFSv3 handle");
}

#[test]
fn secinfo_no_name_consumes_the_current_file_handle() {
    let server = server();
    let c = Client::new(&server, "linux-client");
    c.mount();
    let answer = c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::SecinfoNoName(SecinfoStyle4::CurrentFh), NfsArgOp::Getfh]);
    assert_eq!(answer.statuses(), [OK, OK, OK, err(NfsErr4::NoFileHandle)]);
    let parent = c.seq(vec![NfsArgOp::Putrootfh, NfsArgOp::SecinfoNoName(SecinfoStyle4::Parent)]);
    assert_eq!(parent.status(), err(NfsErr4::NoEnt), "the root has no parent");
}

#[test]
fn minor_version_2_supports_mode_umask_and_change_attr_type() {
    let server = server();
    let c = Client::new(&server, "v42").minor(2);
    c.mount();
    let answer = c.seq(vec![NfsArgOp::Putrootfh, getattr(&[FATTR4_SUPPORTED_ATTRS, FATTR4_CHANGE_ATTR_TYPE])]);
    let raw = answer.attrs();
    let attrs = raw.decode_attrs().expect("decode");
    let supported = attrs.supported_attrs.expect("supported");
    assert!(supported.is_set(FATTR4_MODE_UMASK) && supported.is_set(FATTR4_CHANGE_ATTR_TYPE));
    assert_eq!(attrs.change_attr_type, Some(ChangeAttrType4::TimeMetadata));
}

#[test]
fn the_null_procedure_answers_and_other_procedures_are_unavailable() {
    let server = server();
    let c = Client::new(&server, "null");
    let reply = server.handle(&c.record(c.next_xid(), 0, &[]), &c.conn).expect("reply");
    assert!(!reply.is_rpc_refusal());
    let other = server.handle(&c.record(c.next_xid(), 2, &[]), &c.conn).expect("reply");
    assert!(other.is_rpc_refusal());
}

#[test]
fn version_mismatch_now_advertises_versions_3_to_4() {
    let server = server();
    let c = Client::new(&server, "v5");
    let mut cred = Vec::new();
    let auth = onc_rpc::AuthSysParms::new(1, b"h", 0, 0, &[]).expect("cred").to_opaque_auth(&mut cred);
    let msg =
        onc_rpc::RpcMessage::call(9, onc_rpc::CallHeader::new(NFS4_PROGRAM, 5, 0, auth, onc_rpc::OpaqueAuth::NONE));
    let reply = server.handle(&msg.header_writer(0).into_vec(), &c.conn).expect("reply").to_vec();
    let (msg, _) = onc_rpc::RpcMessage::decode(&reply).expect("decode");
    match msg.as_reply() {
        Some(onc_rpc::ReplyBody::Accepted(a)) => {
            assert_eq!(a.stat, onc_rpc::AcceptStat::ProgMismatch { low: 3, high: 4 })
        }
        other => panic!("{other:?}"),
    }
}
