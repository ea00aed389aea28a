//! MOUNT v3: MNT, DUMP, UMNT, UMNTALL, EXPORT.

use nfs3_proto::mount::{DirPath, MountErr3, MountList, MountRes3};
use nfs3_proto::{MountCall, MountProc, MountReply, MOUNT_PROGRAM, MOUNT_V3};

use super::*;
use crate::IpNet;

fn mount_call<'r>(c: &Client<'_>, call: &MountCall<'_>, reply: &'r mut Vec<u8>) -> MountReply<'r> {
    *reply = c.call_raw(MOUNT_PROGRAM, MOUNT_V3, call.procedure(), &encode(call));
    MountReply::decode(call.procedure(), results(reply)).unwrap_or_else(|e| panic!("MOUNT reply: {e}"))
}

fn mnt(c: &Client<'_>, path: &[u8]) -> MountRes3 {
    let mut buf = Vec::new();
    match mount_call(c, &MountCall::Mnt(DirPath(path)), &mut buf) {
        MountReply::Mnt(res) => res,
        other => panic!("not an MNT reply: {other:?}"),
    }
}

fn dump(c: &Client<'_>) -> Vec<(String, String)> {
    let mut buf = Vec::new();
    match mount_call(c, &MountCall::Dump, &mut buf) {
        MountReply::Dump(MountList(list)) => list
            .iter()
            .map(|b| {
                let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
                (text(b.ml_hostname.0), text(b.ml_directory.0))
            })
            .collect(),
        other => panic!("not a DUMP reply: {other:?}"),
    }
}

#[test]
fn mnt_returns_the_root_handle_and_auth_sys() {
    let server = server();
    let client = Client::new(&server);
    let MountRes3::Ok(ok_res) = mnt(&client, b"/export") else { panic!("MNT failed") };
    assert_eq!(ok_res.fhandle, root_of(&server));
    assert_eq!(ok_res.auth_flavors, vec![1], "AUTH_SYS, as rpc.mountd for sec=sys");
    assert!(getattr(&client, ok_res.fhandle).is_ok());
    let MountRes3::Ok(again) = mnt(&client, b"/export/") else { panic!("MNT with a trailing slash failed") };
    assert_eq!(again.fhandle, ok_res.fhandle);
}

#[test]
fn mnt_of_an_unknown_path_is_noent() {
    let server = server();
    let client = Client::new(&server);
    assert_eq!(mnt(&client, b"/nope"), MountRes3::Fail(MountErr3::NoEnt));
    assert_eq!(mnt(&client, b"/exportx"), MountRes3::Fail(MountErr3::NoEnt));
    assert_eq!(mnt(&client, b"/export/missing"), MountRes3::Fail(MountErr3::NoEnt));
    assert_eq!(mnt(&client, b"/export/../etc"), MountRes3::Fail(MountErr3::NoEnt));
}

#[test]
fn mnt_of_a_subdirectory_returns_its_handle() {
    let server = server();
    let client = Client::new(&server);
    let sub = ok(mkdir(&client, root_of(&server), b"sub", 0o755), "mkdir");
    ok(create(&client, sub, b"file", 0o644), "create");
    let MountRes3::Ok(ok_res) = mnt(&client, b"/export/sub") else { panic!("MNT of a subdirectory failed") };
    assert_eq!(ok_res.fhandle, sub);
    assert_eq!(mnt(&client, b"/export/sub/file"), MountRes3::Fail(MountErr3::NotDir));
}

#[test]
fn mnt_applies_the_network_and_secure_rules_with_acces() {
    let mut config = export("/export", mem());
    config.clients = vec![IpNet { addr: "10.0.0.0".parse().unwrap_or_else(|e| panic!("{e}")), prefix_len: 8 }];
    config.secure = true;
    let server = server_with(vec![config]);
    assert!(matches!(mnt(&Client::new(&server).from("10.0.0.5:700"), b"/export"), MountRes3::Ok(_)));
    assert_eq!(mnt(&Client::new(&server), b"/export"), MountRes3::Fail(MountErr3::Acces));
    assert_eq!(mnt(&Client::new(&server).from("10.0.0.5:5000"), b"/export"), MountRes3::Fail(MountErr3::Acces));
}

#[test]
fn dump_lists_recorded_mounts_until_umnt_and_umntall() {
    let server = server_with(vec![export("/a", mem()), export("/b", mem())]);
    let one = Client::new(&server);
    let two = Client::new(&server).from("10.9.8.7:800");
    for path in [&b"/a"[..], b"/b"] {
        assert!(matches!(mnt(&one, path), MountRes3::Ok(_)));
    }
    assert!(matches!(mnt(&two, b"/a"), MountRes3::Ok(_)));
    let all = dump(&one);
    assert_eq!(all.len(), 3, "{all:?}");
    assert!(all.contains(&("127.0.0.1".to_string(), "/b".to_string())));
    let mut buf = Vec::new();
    mount_call(&one, &MountCall::Umnt(DirPath(b"/b")), &mut buf);
    assert_eq!(dump(&one).len(), 2);
    mount_call(&one, &MountCall::Umntall, &mut buf);
    assert_eq!(dump(&one), vec![("10.9.8.7".to_string(), "/a".to_string())]);
}

#[test]
fn export_lists_paths_with_their_networks() {
    let mut limited = export("/limited", mem());
    limited.clients = vec![IpNet { addr: "192.0.2.0".parse().unwrap_or_else(|e| panic!("{e}")), prefix_len: 24 }];
    let server = server_with(vec![export("/open", mem()), limited]);
    let client = Client::new(&server);
    let mut buf = Vec::new();
    let MountReply::Export(exports) = mount_call(&client, &MountCall::Export, &mut buf) else { panic!("not EXPORT") };
    let listed: Vec<(Vec<u8>, Vec<Vec<u8>>)> =
        exports.0.iter().map(|n| (n.ex_dir.0.to_vec(), n.ex_groups.iter().map(|g| g.0.to_vec()).collect())).collect();
    assert_eq!(listed, vec![(b"/open".to_vec(), vec![]), (b"/limited".to_vec(), vec![b"192.0.2.0/24".to_vec()])]);
}

#[test]
fn mount_null_and_garbage() {
    let server = server();
    let client = Client::new(&server);
    assert!(results(&client.call_raw(MOUNT_PROGRAM, 3, MountProc::Null as u32, &[])).is_empty());
    let reply = client.call_raw(MOUNT_PROGRAM, 3, MountProc::Mnt as u32, &[0, 0, 0, 9, b'/']);
    assert_eq!(accept_stat(&reply), AcceptStat::GarbageArgs);
}
