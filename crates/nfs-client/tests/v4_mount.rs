//! NFSv4.1/4.2 mounts against the in-process fake server: the session made, the minor version
//! negotiated, nconnect bound to one session, trunking checked, and the version-neutral file calls.

mod v4_support;

use std::time::Duration;

use bytes::Bytes;
use nfs_client::{Access, ClientError, CreateHow, FileKind, NfsVersion, StableHow};
use v4_support::{Config, FakeV4};

const LEASE: Duration = Duration::from_secs(30);

#[tokio::test]
async fn a_v4_1_mount_makes_one_session_and_round_trips_a_file() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    assert_eq!(client.version(), NfsVersion::V4_1);
    assert_eq!((server.count("EXCHANGE_ID"), server.count("CREATE_SESSION")), (1, 1));
    assert_eq!(server.count("RECLAIM_COMPLETE"), 1, "the client says it reclaims nothing");
    let (file, attr) =
        client.open(client.root(), "data", Access::ReadWrite, Some((CreateHow::Unchecked, 0o640))).await.expect("open");
    assert_eq!((attr.kind, attr.mode, attr.size), (FileKind::Regular, 0o640, 0));
    for (i, chunk) in [b"hello ".as_slice(), b"nfs ", b"v4.1"].iter().enumerate() {
        let at = [0u64, 6, 10][i];
        let w = client.write(&file, at, Bytes::from_static(chunk), StableHow::Unstable).await.expect("write");
        assert_eq!(w.count as usize, chunk.len());
    }
    client.commit(&file, 0, 0).await.expect("commit");
    let read = client.read(&file, 0, 4096).await.expect("read");
    assert_eq!((&read.data[..], read.eof), (&b"hello nfs v4.1"[..], true));
    assert_eq!(server.open_count(), 1);
    client.close(&file).await.expect("close");
    assert_eq!(server.open_count(), 0, "CLOSE reached the server");
    assert_eq!(server.file("data").as_deref(), Some(&b"hello nfs v4.1"[..]));
    client.unmount().await.expect("unmount");
    assert_eq!(server.client_count(), 0, "DESTROY_CLIENTID at unmount");
}

#[tokio::test]
async fn vers_4_takes_4_2_and_falls_back_to_4_1_as_linux_does() {
    let both = FakeV4::start(Config::default(), LEASE).await;
    assert_eq!(both.mount("vers=4").await.expect("mount").version(), NfsVersion::V4_2);
    let only_41 = FakeV4::start(Config { minor_versions: 1..=1, ..Config::default() }, LEASE).await;
    assert_eq!(only_41.mount("vers=4").await.expect("mount").version(), NfsVersion::V4_1);
    assert_eq!(only_41.count("MINOR_VERS_MISMATCH"), 1, "4.2 was tried first");
    let refused = only_41.mount("vers=4.2").await.expect_err("4.2 only");
    assert!(matches!(refused, ClientError::Nfs4 { status: nfs4_proto::NfsErr4::MinorVersMismatch, .. }), "{refused}");
}

#[tokio::test]
async fn nconnect_binds_every_connection_to_the_one_session() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1,nconnect=4").await.expect("mount");
    assert_eq!(client.connections().len(), 4);
    assert_eq!((server.count("EXCHANGE_ID"), server.count("CREATE_SESSION")), (1, 1));
    // RFC 8881 §18.36.4: CREATE_SESSION bound the connection it went on; the other three are bound.
    assert_eq!(server.count("BIND_CONN_TO_SESSION"), 3);
    // Calls spread over the four connections all land on the one session.
    for i in 0..8 {
        client.getattr(client.root()).await.unwrap_or_else(|e| panic!("getattr {i}: {e}"));
    }
    assert!(client.connections().iter().all(|c| c.calls_sent >= 2), "{:?}", client.connections());
}

#[tokio::test]
async fn trunking_over_remoteports_checks_that_each_address_is_the_same_server() {
    let ips = ["127.0.0.1".parse().unwrap(), "127.0.0.2".parse().unwrap()];
    let server = FakeV4::start_on(Config::default(), LEASE, &ips).await;
    let client = server.mount("vers=4.1,max_connect=2,remoteports=127.0.0.1-127.0.0.2").await.expect("mount");
    let remotes: Vec<_> = client.connections().iter().map(|c| c.remote.ip()).collect();
    assert_eq!(remotes, ips, "one connection to each address");
    assert_eq!((server.count("EXCHANGE_ID"), server.count("CREATE_SESSION")), (2, 1), "one session");

    let a = FakeV4::start_on(Config::default(), LEASE, &ips[..1]).await;
    let b =
        FakeV4::start_at(Config { major_id: b"another-server", ..Config::default() }, LEASE, &ips[1..], a.port).await;
    let refused = a.mount("vers=4.1,max_connect=2,remoteports=127.0.0.1-127.0.0.2").await.expect_err("two servers");
    assert!(matches!(refused, ClientError::NotTrunkable { what: "server_owner.so_major_id", .. }), "{refused}");
    assert_eq!(b.count("CREATE_SESSION"), 0);
}

#[tokio::test]
async fn names_directories_and_sizes_work_as_over_nfsv3() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.2").await.expect("mount");
    let (dir, attr) = client.mkdir(client.root(), "run1", 0o750).await.expect("mkdir");
    assert_eq!((attr.kind, attr.mode), (FileKind::Directory, 0o750));
    let exists = client.mkdir(client.root(), "run1", 0o750).await.expect_err("exists");
    assert!(exists.already_exists(), "{exists}");
    let (fh, _) = client.create(&dir, "f", CreateHow::Guarded, 0o600).await.expect("create");
    assert_eq!(server.open_count(), 0, "create opens and closes");
    let guarded = client.create(&dir, "f", CreateHow::Guarded, 0o600).await.expect_err("guarded");
    assert!(guarded.already_exists(), "{guarded}");
    let again = client.create(&dir, "x", CreateHow::Exclusive(*b"verifier"), 0o604).await.expect("exclusive");
    let same = client.create(&dir, "x", CreateHow::Exclusive(*b"verifier"), 0o604).await.expect("a retry succeeds");
    assert_eq!(again.0, same.0);
    assert_eq!(client.set_size(&fh, 8192).await.expect("truncate").size, 8192);
    assert_eq!(client.lookup(&dir, "f").await.expect("lookup").map(|(h, a)| (h, a.size)), Some((fh.clone(), 8192)));
    assert!(client.lookup(&dir, "missing").await.expect("lookup").is_none());
    assert_eq!(client.lookup_path("/run1/f").await.expect("path").0, fh);
    client.remove(&dir, "f").await.expect("remove");
    assert!(client.lookup(&dir, "f").await.expect("lookup").is_none());
    let bad = client.lookup(&dir, "a/b").await.expect_err("not a name");
    assert!(matches!(bad, ClientError::InvalidArgument { .. }), "{bad}");
}

#[tokio::test]
async fn io_on_a_bare_handle_uses_the_clients_open_or_the_anonymous_stateid() {
    let server = FakeV4::start(Config::default(), LEASE).await;
    let client = server.mount("vers=4.1").await.expect("mount");
    let (fh, _) = client.create(client.root(), "plain", CreateHow::Unchecked, 0o644).await.expect("create");
    client.write(&fh, 0, Bytes::from_static(b"anonymous"), StableHow::FileSync).await.expect("anonymous write");
    let (file, _) = client.open(client.root(), "plain", Access::Read, None).await.expect("open");
    assert_eq!(&client.read(file.handle(), 0, 100).await.expect("read").data[..], b"anonymous");
    client.close(&file).await.expect("close");
    let missing = client.open(client.root(), "nope", Access::Read, None).await.expect_err("no create");
    assert!(missing.not_found(), "{missing}");
}

#[tokio::test]
async fn the_transfer_sizes_are_lowered_to_the_servers_maxread() {
    let server = FakeV4::start(Config { maxread: 65536, ..Config::default() }, LEASE).await;
    let client = server.mount("vers=4.1,rsize=1048576,wsize=1048576").await.expect("mount");
    assert_eq!((client.rsize(), client.wsize()), (65536, 65536));
    let too_big = client.read(client.root(), 0, 65537).await.expect_err("over rsize");
    assert!(matches!(too_big, ClientError::InvalidArgument { .. }), "{too_big}");
}

#[tokio::test]
async fn the_server_s_callbacks_are_answered_on_the_clients_connection() {
    use nfs4_proto::callback::{CbRecallAnyArgs, CbSequenceArgs};
    use nfs4_proto::{CbArgOp, CbCompound4Args, CbCompound4Res, NfsStat4};
    use xdr::XdrEncode;

    let server = FakeV4::start(Config::default(), LEASE).await;
    let _client = server.mount("vers=4.1").await.expect("mount");
    let null = server.call_back(0, &[]).await.expect("CB_NULL answered");
    let (msg, body) = onc_rpc::RpcMessage::decode(&null).expect("a reply");
    assert_eq!((msg.xid, body.len()), (0xCB, 0));
    let accepted = matches!(msg.body, onc_rpc::MessageBody::Reply(onc_rpc::ReplyBody::Accepted(a)) if a.stat == onc_rpc::AcceptStat::Success);
    assert!(accepted, "answered, not PROG_UNAVAIL: {msg:?}");
    let sessionid = server.sessionid().expect("a session");
    let seq = CbSequenceArgs { sessionid, sequenceid: 1, slotid: 0, ..CbSequenceArgs::default() };
    let args = CbCompound4Args {
        tag: b"cb",
        minorversion: 1,
        callback_ident: 0,
        argarray: vec![CbArgOp::CbSequence(seq), CbArgOp::CbRecallAny(CbRecallAnyArgs::default())],
    };
    let mut w = xdr::XdrWriter::new();
    args.encode(&mut w);
    let reply = server.call_back(1, &w.into_vec()).await.expect("CB_COMPOUND answered");
    let (_, body) = onc_rpc::RpcMessage::decode(&reply).expect("a reply");
    let res = CbCompound4Res::decode_reply(body, &args.ops()).expect("results");
    assert_eq!(res.status, NfsStat4::Ok, "CB_SEQUENCE on the session's back channel, CB_RECALL_ANY with nothing held");
    assert_eq!(res.resarray.len(), 2);
}
