//! Mounting our own server in-process and using the procedures.

mod common;

use bytes::Bytes;
use common::{spec, spec_for, TestServer};
use mount_options::Proto;
use nfs_client::{ClientError, CreateHow, FileKind, NfsErr3, StableHow};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounts_through_the_port_mapper_then_creates_writes_commits_and_reads_back() {
    let server = TestServer::start().await;
    let mut spec = spec(server.addr.port(), "rsize=65536,wsize=65536");
    spec.port = None;
    spec.mountport = None;
    let client = common::mount(&spec).await.expect("mount");
    assert_eq!((client.rsize(), client.wsize()), (65536, 65536));

    let (fh, attr) = client.create(client.root(), "file", CreateHow::Unchecked, 0o640).await.expect("create");
    assert_eq!(attr.kind, FileKind::Regular);
    assert_eq!(attr.mode & 0o777, 0o640);
    let data = Bytes::from((0..65536u32).map(|i| (i % 251) as u8).collect::<Vec<u8>>());
    let written = client.write(&fh, 4096, data.clone(), StableHow::Unstable).await.expect("write");
    assert_eq!(written.count, 65536);
    let verifier = client.commit(&fh, 0, 0).await.expect("commit");
    assert_eq!(verifier, written.verifier);

    let head = client.read(&fh, 0, 4096).await.expect("read hole");
    assert_eq!(&head.data[..], &[0u8; 4096][..]);
    let back = client.read(&fh, 4096, 65536).await.expect("read");
    assert_eq!(back.data, data);
    assert!(back.eof);
    assert_eq!(client.getattr(&fh).await.expect("getattr").size, 4096 + 65536);
    client.unmount().await.expect("unmount");
    server.stop().await;
}

#[tokio::test]
async fn rsize_and_wsize_are_lowered_to_the_server_maximum() {
    let server = TestServer::start().await;
    // The server offers 1 MiB; ask for the maximum and for less.
    let client = common::mount(&spec(server.addr.port(), "rsize=1048576,wsize=32768")).await.expect("mount");
    assert_eq!((client.rsize(), client.wsize()), (1 << 20, 32768));
    client.null().await.expect("NULL");
    server.stop().await;
}

#[tokio::test]
async fn lookup_of_a_missing_name_returns_none() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "")).await.expect("mount");
    assert!(client.lookup(client.root(), "absent").await.expect("lookup").is_none());
    let (fh, _) = client.create(client.root(), "present", CreateHow::Guarded, 0o644).await.expect("create");
    let (found, attr) = client.lookup(client.root(), "present").await.expect("lookup").expect("found");
    assert_eq!(found, fh);
    assert_eq!(attr.size, 0);
    server.stop().await;
}

#[tokio::test]
async fn lookup_path_walks_directories_and_names_the_missing_component() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "")).await.expect("mount");
    let (a, _) = client.mkdir(client.root(), "a", 0o755).await.expect("mkdir a");
    let (b, battr) = client.mkdir(&a, "b", 0o755).await.expect("mkdir b");
    assert_eq!(battr.kind, FileKind::Directory);
    let (f, _) = client.create(&b, "f", CreateHow::Unchecked, 0o644).await.expect("create");
    let (found, attr) = client.lookup_path("/a//b/./f").await.expect("lookup_path");
    assert_eq!((found, attr.kind), (f, FileKind::Regular));
    let (root, rattr) = client.lookup_path("").await.expect("root");
    assert_eq!((&root, rattr.kind), (client.root(), FileKind::Directory));
    match client.lookup_path("a/missing/f").await {
        Err(ClientError::NotFound { path }) => assert_eq!(path, "/a/missing"),
        other => panic!("expected NotFound, got {other:?}"),
    }
    server.stop().await;
}

#[tokio::test]
async fn guarded_create_of_an_existing_file_reports_the_nfs_status() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "")).await.expect("mount");
    client.create(client.root(), "once", CreateHow::Guarded, 0o644).await.expect("first create");
    let err = client.create(client.root(), "once", CreateHow::Guarded, 0o644).await.expect_err("exists");
    assert_eq!(err.nfs_status(), Some(NfsErr3::Exist));
    assert_eq!(err.to_string(), "CREATE failed: NFS3ERR_EXIST");
    server.stop().await;
}

#[tokio::test]
async fn exclusive_create_sets_the_mode_afterwards_and_refuses_another_verifier() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "")).await.expect("mount");
    let (_, attr) = client.create(client.root(), "x", CreateHow::Exclusive(*b"verifier"), 0o600).await.expect("create");
    assert_eq!(attr.mode & 0o777, 0o600);
    let err = client.create(client.root(), "x", CreateHow::Exclusive(*b"another!"), 0o600).await.expect_err("taken");
    assert_eq!(err.nfs_status(), Some(NfsErr3::Exist));
    server.stop().await;
}

#[tokio::test]
async fn set_size_and_remove_change_the_file() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "")).await.expect("mount");
    let (fh, _) = client.create(client.root(), "sized", CreateHow::Unchecked, 0o644).await.expect("create");
    assert_eq!(client.set_size(&fh, 1 << 20).await.expect("grow").size, 1 << 20);
    assert_eq!(client.set_size(&fh, 10).await.expect("shrink").size, 10);
    client.remove(client.root(), "sized").await.expect("remove");
    assert!(client.lookup(client.root(), "sized").await.expect("lookup").is_none());
    let err = client.getattr(&fh).await.expect_err("stale");
    assert_eq!(err.nfs_status(), Some(NfsErr3::Stale));
    server.stop().await;
}

#[tokio::test]
async fn calls_larger_than_rsize_or_wsize_and_bad_names_are_refused_before_sending() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "rsize=4096,wsize=4096")).await.expect("mount");
    let (fh, _) = client.create(client.root(), "f", CreateHow::Unchecked, 0o644).await.expect("create");
    let before = client.stats().calls;
    let read = client.read(&fh, 0, 8192).await.expect_err("too large");
    assert!(matches!(read, ClientError::InvalidArgument { proc: "READ", .. }), "{read}");
    let write = client.write(&fh, 0, Bytes::from(vec![0; 4097]), StableHow::FileSync).await.expect_err("too large");
    assert_eq!(write.to_string(), "WRITE: WRITE of 4097 bytes exceeds wsize 4096");
    for name in ["", "a/b", "nul\0"] {
        assert!(matches!(client.lookup(client.root(), name).await, Err(ClientError::InvalidArgument { .. })));
    }
    assert_eq!(client.stats().calls, before);
    server.stop().await;
}

#[tokio::test]
async fn mounting_an_unknown_export_reports_the_mount_status() {
    let server = TestServer::start().await;
    let err = common::mount(&spec_for("/nowhere", server.addr.port(), "")).await.expect_err("no such export");
    assert!(matches!(err, ClientError::Mount { ref path, .. } if path == "/nowhere"), "{err}");
    server.stop().await;
}

#[tokio::test]
async fn proto_rdma_is_refused_with_a_clear_error() {
    let mut spec = spec(2049, "");
    spec.proto = Proto::Rdma;
    let err = common::mount(&spec).await.expect_err("rdma");
    assert!(matches!(err, ClientError::Unsupported(_)));
    assert!(err.to_string().contains("proto=rdma"), "{err}");
}

#[tokio::test]
async fn unmount_closes_the_connections_and_later_calls_fail_with_closed() {
    let server = TestServer::start().await;
    let client = common::mount(&spec(server.addr.port(), "")).await.expect("mount");
    let clone = client.clone();
    client.unmount().await.expect("unmount");
    assert!(matches!(clone.null().await, Err(ClientError::Closed { proc: "NULL" })));
    assert!(client.connections().iter().all(|c| !c.connected));
    client.unmount().await.expect("second unmount does nothing");
    server.stop().await;
}
