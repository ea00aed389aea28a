//! Export rules on every NFS call: squashing, read-only, allowed networks, secure ports.

use super::*;
use crate::IpNet;

fn with(f: impl FnOnce(&mut ExportConfig)) -> Server {
    let mut config = export("/export", mem());
    f(&mut config);
    server_with(vec![config])
}

fn net(text: &str, prefix_len: u8) -> IpNet {
    IpNet { addr: text.parse().unwrap_or_else(|e| panic!("{e}")), prefix_len }
}

#[test]
fn root_squash_maps_uid_and_gid_zero_to_the_anonymous_ids() {
    let server = with(|e| e.squash = Squash::Root);
    let root = root_of(&server);
    let file = ok(create(&Client::root(&server), root, b"by-root", 0o644), "create");
    let attrs = ok(getattr(&Client::new(&server), file), "getattr");
    assert_eq!((attrs.uid, attrs.gid), (ANON, ANON));
    let mine = ok(create(&Client::new(&server), root, b"by-user", 0o644), "create");
    let attrs = ok(getattr(&Client::new(&server), mine), "getattr");
    assert_eq!((attrs.uid, attrs.gid), (1000, 1000), "other users pass through");
}

#[test]
fn a_squashed_root_has_no_override_on_private_files() {
    let server = with(|e| e.squash = Squash::Root);
    let owner = Client::new(&server);
    let file = ok(create(&owner, root_of(&server), b"private", 0o600), "create");
    assert_eq!(read(&Client::root(&server), file, 0, 1).err(), Some(NfsErr3::Acces));
}

#[test]
fn all_squash_maps_everyone_to_the_anonymous_ids() {
    let server = with(|e| e.squash = Squash::All);
    let file = ok(create(&Client::new(&server), root_of(&server), b"f", 0o644), "create");
    let attrs = ok(getattr(&Client::new(&server), file), "getattr");
    assert_eq!((attrs.uid, attrs.gid), (ANON, ANON));
}

#[test]
fn auth_none_callers_are_anonymous() {
    let server = server();
    let mut client = Client::new(&server);
    client.anonymous = true;
    let file = ok(create(&client, root_of(&server), b"anon", 0o644), "create");
    assert_eq!(ok(getattr(&client, file), "getattr").uid, ANON);
}

#[test]
fn a_read_only_export_refuses_every_change_with_rofs() {
    let backend = mem();
    let writable = server_with(vec![export("/export", backend.clone())]);
    ok(create(&Client::new(&writable), root_of(&writable), b"f", 0o666), "create");
    let mut config = export("/export", backend);
    config.read_only = true;
    let server = server_with(vec![config]);
    let client = Client::root(&server);
    let root = root_of(&server);
    let file = ok(lookup(&client, root, b"f"), "lookup");
    assert_eq!(create(&client, root, b"g", 0o644), Err(NfsErr3::Rofs));
    assert_eq!(mkdir(&client, root, b"d", 0o755), Err(NfsErr3::Rofs));
    assert_eq!(symlink(&client, root, b"l", b"t"), Err(NfsErr3::Rofs));
    assert_eq!(write(&client, file, 0, b"x").err(), Some(NfsErr3::Rofs));
    assert_eq!(remove(&client, root, b"f"), NfsStat3::Rofs);
    let setattr = Nfs3Call::Setattr(SetattrArgs { object: file, new_attributes: sattr_mode(0o600), guard: None });
    assert_eq!(client.status(&setattr), NfsStat3::Rofs);
    let rename = RenameArgs { from: DirOpArgs3 { dir: root, name: b"f" }, to: DirOpArgs3 { dir: root, name: b"g" } };
    assert_eq!(client.status(&Nfs3Call::Rename(rename)), NfsStat3::Rofs);
    assert!(read(&client, file, 0, 1).is_ok(), "reading is fine");
    let reply = client.nfs(&Nfs3Call::Access(AccessArgs { object: file, access: 0x3f }));
    let granted = expect_reply!(nfs_reply(Nfs3Proc::Access, &reply), Access).ok().map(|a| a.access);
    assert_eq!(granted, Some(ACCESS3_READ), "ACCESS grants no modification on a read-only export");
}

#[test]
fn clients_outside_the_allowed_networks_are_refused_with_acces() {
    let server = with(|e| e.clients = vec![net("10.0.0.0", 8), net("::1", 128)]);
    let root = root_of(&server);
    assert!(getattr(&Client::new(&server).from("10.1.2.3:800"), root).is_ok());
    assert!(getattr(&Client::new(&server).from("[::ffff:10.1.2.3]:800"), root).is_ok(), "IPv4-mapped");
    assert!(getattr(&Client::new(&server).from("[::1]:800"), root).is_ok());
    assert_eq!(getattr(&Client::new(&server).from("192.168.0.1:800"), root), Err(NfsErr3::Acces));
    assert_eq!(getattr(&Client::new(&server), root), Err(NfsErr3::Acces), "127.0.0.1 is not listed");
}

#[test]
fn a_secure_export_refuses_unprivileged_source_ports_with_perm() {
    let server = with(|e| e.secure = true);
    let root = root_of(&server);
    assert!(getattr(&Client::new(&server).from("127.0.0.1:1023"), root).is_ok());
    assert_eq!(getattr(&Client::new(&server).from("127.0.0.1:1024"), root), Err(NfsErr3::Perm));
    assert_eq!(getattr(&Client::new(&server).from("127.0.0.1:40000"), root), Err(NfsErr3::Perm));
}

#[test]
fn bad_export_configurations_are_refused() {
    let bad = |f: &dyn Fn(&mut ExportConfig)| {
        let mut config = export("/export", mem());
        f(&mut config);
        Server::new(ServerConfig {
            exports: vec![config],
            max_io_size: MAX_IO,
            drc_entries: 16,
            tcp_port: PORT,
            rdma_port: None,
        })
        .is_err()
    };
    assert!(bad(&|e| e.path = "relative".into()));
    assert!(bad(&|e| e.path = "/trailing/".into()));
    assert!(bad(&|e| e.clients = vec![net("10.0.0.0", 40)]));
    let twice = ServerConfig {
        exports: vec![export("/x", mem()), export("/x", mem())],
        max_io_size: MAX_IO,
        drc_entries: 16,
        tcp_port: PORT,
        rdma_port: None,
    };
    assert!(Server::new(twice).is_err());
    let tiny_io = ServerConfig { exports: vec![], max_io_size: 100, drc_entries: 16, tcp_port: PORT, rdma_port: None };
    assert!(Server::new(tiny_io).is_err());
}

#[test]
fn may_block_follows_the_backends() {
    assert!(!server().may_block());
    let blocking = server_with(vec![export("/a", mem()), export("/b", super::wrap::Wrapped::new())]);
    assert!(blocking.may_block());
}
