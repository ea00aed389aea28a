//! The transport in front of the real NFS server with a RAM-disk export, over loopback.

mod common;

use std::sync::Arc;

use common::Client;
use nfs3_proto::mount::{DirPath, MountRes3};
use nfs3_proto::{Ftype3, GetattrArgs, GetattrRes, Nfs3Result};
use onc_rpc::{frame_record, AcceptStat, AuthSysParms, CallHeader, OpaqueAuth, ReplyBody, RpcMessage};
use onc_rpc::{MAX_FRAGMENT_LEN, MOUNT_PROGRAM, NFS_PROGRAM};
use test_support::TestServer;
use xdr::{XdrEncode, XdrWriter};

async fn start() -> TestServer {
    TestServer::start().await
}

/// An AUTH_SYS (root) call to `prog` version 3 with `args` encoded after the header, record-marked.
fn rpc_call(xid: u32, prog: u32, proc: u32, args: &[u8]) -> Vec<u8> {
    let mut cred_buf = Vec::new();
    let cred = AuthSysParms::new(1, b"test", 0, 0, &[0]).expect("cred").to_opaque_auth(&mut cred_buf);
    let msg = RpcMessage::call(xid, CallHeader::new(prog, 3, proc, cred, OpaqueAuth::NONE));
    let mut w = msg.header_writer(args.len());
    w.put_raw(args);
    frame_record(&w.to_vec(), MAX_FRAGMENT_LEN as usize)
}

/// The XDR encoding of `value`.
fn xdr_of<T: XdrEncode>(value: &T) -> Vec<u8> {
    let mut w = XdrWriter::new();
    value.encode(&mut w);
    w.to_vec()
}

async fn mount_export(client: &mut Client) -> nfs3_proto::FileHandle3 {
    client.send(&rpc_call(2, MOUNT_PROGRAM, 1, &xdr_of(&DirPath(b"/export")))).await;
    let (xid, results) = client.success().await;
    assert_eq!(xid, 2);
    match xdr::decode_exact::<MountRes3>(&results).expect("mountres3") {
        MountRes3::Ok(ok) => ok.fhandle,
        MountRes3::Fail(e) => panic!("MNT /export failed: {e:?}"),
    }
}

#[tokio::test]
async fn serves_nfs_null_mount_and_getattr_of_the_export_root() {
    let running = start().await;
    let mut client = Client::connect(running.addr).await;
    client.send(&rpc_call(1, NFS_PROGRAM, 0, &[])).await;
    assert_eq!(client.success().await, (1, Vec::new()), "NFS NULL");
    let root = mount_export(&mut client).await;
    let getattr = GetattrArgs { object: root };
    client.send(&rpc_call(3, NFS_PROGRAM, 1, &xdr_of(&getattr))).await;
    let (_, results) = client.success().await;
    match xdr::decode_exact::<GetattrRes>(&results).expect("getattr3res") {
        Nfs3Result::Ok(ok) => assert_eq!(ok.obj_attributes.ftype, Ftype3::Dir),
        Nfs3Result::Fail(e, _) => panic!("GETATTR failed: {e:?}"),
    }
    let server = Arc::clone(&running.server);
    running.stop().await;
    let report = server.stats_report();
    assert!(report.contains("GETATTR"), "{report}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_a_deep_pipeline_of_calls_on_one_connection() {
    let running = start().await;
    let mut client = Client::connect(running.addr).await;
    let root = mount_export(&mut client).await;
    let getattr = GetattrArgs { object: root };
    let batch: Vec<u8> = (100..1100).flat_map(|xid| rpc_call(xid, NFS_PROGRAM, 1, &xdr_of(&getattr))).collect();
    client.send(&batch).await;
    let mut seen = Vec::new();
    for _ in 0..1000 {
        seen.push(client.success().await.0);
    }
    seen.sort_unstable();
    assert_eq!(seen, (100..1100).collect::<Vec<_>>());
    running.stop().await;
}

#[tokio::test]
async fn garbage_gets_garbage_args_or_a_close_and_other_clients_are_still_served() {
    let running = start().await;
    let mut good = Client::connect(running.addr).await;
    // A framed record whose call header is truncated after the xid and message type.
    let mut junk = Client::connect(running.addr).await;
    junk.send(&frame_record(&[0, 0, 0, 9, 0, 0, 0, 0, 0xff], 1 << 20)).await;
    // A framed call to NFS GETATTR with arguments that do not decode.
    junk.send(&rpc_call(10, NFS_PROGRAM, 1, &0xffff_ffffu32.to_be_bytes())).await;
    let record = junk.reply().await;
    if let Some(record) = record {
        let (msg, _) = RpcMessage::decode(&record).expect("reply decodes");
        let garbage = ReplyBody::accepted(AcceptStat::GarbageArgs);
        assert_eq!(msg.as_reply(), Some(&garbage), "xid {}", msg.xid);
    }
    // Raw bytes that are not record marking at all.
    let mut raw = Client::connect(running.addr).await;
    raw.send(&[0xff; 64]).await;
    assert!(raw.closed_by_server().await);
    good.send(&rpc_call(11, NFS_PROGRAM, 0, &[])).await;
    assert_eq!(good.success().await.0, 11);
    running.stop().await;
}

/// A READ from the RAM disk goes out from the backend's pages: the server counts the bytes served and
/// copies none of them (the vectored write takes each page's slice as it lies).
#[tokio::test]
async fn reads_from_the_ram_disk_copy_no_byte_of_their_data() {
    use nfs3_proto::{CreateArgs, CreateHow3, CreateRes, DirOpArgs3, ReadArgs, ReadRes, StableHow, WriteArgs};
    let running = start().await;
    let mut client = Client::connect(running.addr).await;
    let root = mount_export(&mut client).await;
    let create =
        CreateArgs { where_: DirOpArgs3 { dir: root, name: b"pages" }, how: CreateHow3::Unchecked(Default::default()) };
    client.send(&rpc_call(10, NFS_PROGRAM, 8, &xdr_of(&create))).await;
    let file = match xdr::decode_exact::<CreateRes>(&client.success().await.1).expect("create3res") {
        Nfs3Result::Ok(ok) => ok.obj.expect("a handle"),
        Nfs3Result::Fail(e, _) => panic!("CREATE failed: {e:?}"),
    };
    let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
    client.send(&rpc_call(11, NFS_PROGRAM, 7, &xdr_of(&WriteArgs::new(file, 0, StableHow::FileSync, &data)))).await;
    client.success().await;
    // Across two page boundaries (64 KiB pages): three slices in one reply.
    client.send(&rpc_call(12, NFS_PROGRAM, 6, &xdr_of(&ReadArgs { file, offset: 60_000, count: 80_000 }))).await;
    let (_, results) = client.success().await;
    match xdr::decode_exact::<ReadRes>(&results).expect("read3res") {
        Nfs3Result::Ok(ok) => assert!(ok.data == &data[60_000..140_000], "the bytes written come back"),
        Nfs3Result::Fail(e, _) => panic!("READ failed: {e:?}"),
    }
    let served = running.server.payload_bytes();
    running.stop().await;
    assert_eq!((served.served, served.copied), (80_000, 0));
}
