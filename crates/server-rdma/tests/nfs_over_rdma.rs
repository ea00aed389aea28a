//! The RDMA front end in front of the real NFS server (RAM export) over the software provider, driven by
//! a hand-written requester: every way a call and a reply can travel (RFC 8166 §3.5, RFC 8267).
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod common;

use common::nfs::{create, inline_header, nfs_call, read_by_write_chunk, reply_chunks, results, write_by_read_chunk};
use common::{contents, pattern, segments, Running};
use nfs3_proto::{
    CookieVerf3, Ftype3, GetattrArgs, GetattrRes, Nfs3Result, ReadArgs, ReadRes, ReaddirplusArgs, ReaddirplusRes,
};
use rdma::{Access, RegBuf};
use rpcrdma_proto::{ChunkLists, RdmaBody, RdmaHeader, ReadChunk, WriteChunk};
use server_core::Execution;
use server_rdma::RdmaServerConfig;

const GETATTR: u32 = 1;
const READDIRPLUS: u32 = 17;

#[tokio::test]
async fn null_and_getattr_go_inline_with_rfc8797_private_data_both_ways() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let private = req.server_private().expect("the server sends RFC 8797 private data");
    assert_eq!((private.send_size(), private.recv_size(), private.remote_invalidation()), (4096, 4096, false));
    let (reply, rpc) = req.call(&inline_header(1), &nfs_call(1, 0, &nfs3_proto::Void).inline).await;
    assert!(matches!(&reply.body, RdmaBody::Msg(c) if c.is_empty()));
    assert!(results(&rpc).is_empty(), "NULL has no results");
    let getattr = nfs_call(2, GETATTR, &GetattrArgs { object: running.root() });
    let (_, rpc) = req.call(&inline_header(2), &getattr.inline).await;
    match xdr::decode_exact::<GetattrRes>(results(&rpc)).expect("GETATTR3res") {
        Nfs3Result::Ok(ok) => assert_eq!(ok.obj_attributes.ftype, Ftype3::Dir),
        Nfs3Result::Fail(e, _) => panic!("GETATTR failed: {e:?}"),
    }
    let snap = running.stats.snapshot();
    assert_eq!((snap.calls, snap.replies_inline, snap.accepted, snap.open), (2, 2, 1, 1));
    running.stop().await;
}

async fn write_then_read_back(config: RdmaServerConfig) {
    let running = Running::start_with(config);
    let mut req = running.connect().await;
    let mut xid = 10;
    for (i, len) in [4095usize, 4096, 4097, 1 << 20].into_iter().enumerate() {
        let file = create(&mut req, xid, running.root(), format!("f{len}").as_bytes()).await;
        let data = pattern(len, i as u8);
        // Several segments per chunk, as a client registering page by page would send.
        let piece = if len > 65536 { 256 << 10 } else { 1500 };
        assert_eq!(write_by_read_chunk(&mut req, xid + 1, file, &data, piece).await as usize, len);
        let back = read_by_write_chunk(&mut req, xid + 2, file, len, piece).await;
        assert!(back == data, "{len} bytes read back equal what was written");
        xid += 3;
    }
    let snap = running.stats.snapshot();
    let total = (4095 + 4096 + 4097 + (1 << 20)) as u64;
    assert!(snap.bytes_rdma_read >= total && snap.bytes_rdma_written >= total, "{snap}");
    assert_eq!(snap.replies_write_chunk, 4, "{snap}");
    running.stop().await;
}

#[tokio::test]
async fn writes_through_read_chunks_read_back_equal_through_write_lists() {
    write_then_read_back(RdmaServerConfig::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_and_reads_through_chunks_work_on_the_blocking_pool() {
    write_then_read_back(RdmaServerConfig { execution: Execution::BlockingPool, ..Default::default() }).await;
}

/// After the first WRITE (its RDMA Read target registered once and kept), 1 MiB WRITEs land in that
/// target and 1 MiB READs leave from the RAM disk's pages: no registration, and no byte of READ data
/// copied.
#[tokio::test]
async fn after_warm_up_writes_and_reads_register_nothing_and_reads_copy_nothing() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"warm").await;
    let data = pattern(1 << 20, 3);
    write_by_read_chunk(&mut req, 2, file, &data, 256 << 10).await;
    let warm = running.stats.snapshot();
    assert_eq!((warm.registrations, warm.pool_misses), (1, 1), "the first WRITE registers its target: {warm}");
    for i in 0..6 {
        write_by_read_chunk(&mut req, 10 + 2 * i, file, &data, 256 << 10).await;
        let back = read_by_write_chunk(&mut req, 11 + 2 * i, file, 1 << 20, 256 << 10).await;
        assert!(back == data, "read {i} returns what was written");
    }
    let after = running.stats.snapshot().since(&warm);
    assert_eq!((after.calls, after.registrations, after.pool_misses), (12, 0, 0), "{after}");
    assert_eq!(after.registrations_per_call(), Some(0.0));
    let payload = running.server.payload_bytes();
    assert_eq!((payload.served, payload.copied), (6 << 20, 0), "bytes copied per byte served: 0");
    running.stop().await;
}

/// A call no kept target fits gets one registered for it, counted as a pool miss (and dropped after it
/// when the connection keeps enough already); the data arrives all the same.
#[tokio::test]
async fn a_write_past_the_pool_gets_a_registration_of_its_own() {
    let running = Running::start_with(RdmaServerConfig { max_read_target_bytes: 64 << 10, ..Default::default() });
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"big").await;
    let small = pattern(4096, 1);
    write_by_read_chunk(&mut req, 2, file, &small, 4096).await;
    let warm = running.stats.snapshot();
    let big = pattern(100_000, 2);
    assert_eq!(write_by_read_chunk(&mut req, 3, file, &big, 65536).await, 100_000);
    assert!(read_by_write_chunk(&mut req, 4, file, 100_000, 65536).await == big);
    let after = running.stats.snapshot().since(&warm);
    assert_eq!((after.pool_misses, after.registrations), (1, 1), "{after}");
    running.stop().await;
}

/// A READ answered inline (no Write list) is copied into the Send: counted as copied.
#[tokio::test]
async fn a_read_sent_inline_counts_its_bytes_as_copied() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"inline").await;
    write_by_read_chunk(&mut req, 2, file, &pattern(3000, 1), 4096).await;
    let call = nfs_call(3, common::nfs::READ, &ReadArgs { file, offset: 0, count: 1000 });
    req.call(&inline_header(3), &call.inline).await;
    let payload = running.server.payload_bytes();
    assert_eq!((payload.served, payload.copied), (1000, 1000));
    running.stop().await;
}

#[tokio::test]
async fn a_small_read_without_a_write_list_comes_back_inline_whole() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"small").await;
    let data = pattern(5000, 7);
    write_by_read_chunk(&mut req, 2, file, &data, 4096).await;
    let call = nfs_call(3, common::nfs::READ, &ReadArgs { file, offset: 100, count: 1000 });
    let (reply, rpc) = req.call(&inline_header(3), &call.inline).await;
    assert!(matches!(&reply.body, RdmaBody::Msg(c) if c.is_empty()));
    match xdr::decode_exact::<ReadRes>(results(&rpc)).expect("READ3res") {
        Nfs3Result::Ok(ok) => assert_eq!(ok.data, &data[100..1100]),
        Nfs3Result::Fail(e, _) => panic!("READ failed: {e:?}"),
    }
    running.stop().await;
}

#[tokio::test]
async fn readdirplus_too_large_for_inline_comes_back_through_the_reply_chunk() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let names: Vec<String> = (0..40).map(|i| format!("a-rather-long-file-name-number-{i:03}")).collect();
    for (i, name) in names.iter().enumerate() {
        create(&mut req, 100 + i as u32, running.root(), name.as_bytes()).await;
    }
    let region = req.register(RegBuf::Writable(vec![0; 32768]), Access::LOCAL_WRITE | Access::REMOTE_WRITE);
    let chunk = WriteChunk { segments: segments(&region, 32768, 8192) };
    let header = RdmaHeader::msg(7, 64, ChunkLists { reply: Some(chunk), ..Default::default() });
    let args = ReaddirplusArgs {
        dir: running.root(),
        cookie: 0,
        cookieverf: CookieVerf3::default(),
        dircount: 32768,
        maxcount: 32768,
    };
    let (reply, inline) = req.call(&header, &nfs_call(7, READDIRPLUS, &args).inline).await;
    assert!(matches!(reply.body, RdmaBody::NoMsg(_)), "RDMA_NOMSG: the reply is in the Reply chunk");
    assert!(inline.is_empty());
    let written = reply_chunks(&reply).reply.as_ref().expect("the Reply chunk comes back").byte_len() as usize;
    assert!(written > 4096, "{written} bytes could not have gone inline");
    region.invalidate();
    let mut body = contents(region);
    body.truncate(written);
    let listing = match xdr::decode_exact::<ReaddirplusRes>(results(&body)).expect("READDIRPLUS3res") {
        Nfs3Result::Ok(ok) => ok.reply,
        Nfs3Result::Fail(e, _) => panic!("READDIRPLUS failed: {e:?}"),
    };
    let listed: Vec<&[u8]> = listing.entries.iter().map(|e| e.name).collect();
    assert!(names.iter().all(|n| listed.contains(&n.as_bytes())), "every file listed");
    assert_eq!(running.stats.snapshot().replies_reply_chunk, 1);
    running.stop().await;
}

#[tokio::test]
async fn a_long_call_comes_whole_from_a_position_zero_read_chunk() {
    let running = Running::start().await;
    let mut req = running.connect().await;
    let file = create(&mut req, 1, running.root(), b"long").await;
    let data = pattern(6000, 3);
    let call =
        nfs_call(2, common::nfs::WRITE, &nfs3_proto::WriteArgs::new(file, 0, nfs3_proto::StableHow::FileSync, &data));
    let region = req.register(RegBuf::ReadOnly(call.whole.clone().into()), Access::REMOTE_READ);
    // RFC 8166 §3.5.3: RDMA_NOMSG, nothing inline, the whole call in a position-zero Read chunk.
    let chunk = ReadChunk { position: 0, segments: segments(&region, call.whole.len(), 4000) };
    let header = RdmaHeader::nomsg(2, 64, ChunkLists { reads: rpcrdma_proto::smallvec![chunk], ..Default::default() });
    let (reply, rpc) = req.call(&header, &[]).await;
    assert!(matches!(reply.body, RdmaBody::Msg(_)));
    match xdr::decode_exact::<nfs3_proto::WriteRes>(results(&rpc)).expect("WRITE3res") {
        Nfs3Result::Ok(ok) => assert_eq!(ok.count, 6000),
        Nfs3Result::Fail(e, _) => panic!("WRITE failed: {e:?}"),
    }
    assert_eq!(read_by_write_chunk(&mut req, 3, file, 6000, 4096).await, data);
    running.stop().await;
}

#[tokio::test]
async fn many_calls_in_flight_on_one_connection_are_all_answered() {
    let running = Running::start_with(RdmaServerConfig { execution: Execution::TaskPerCall, ..Default::default() });
    let mut req = running.connect().await;
    let getattr = GetattrArgs { object: running.root() };
    for xid in 1000..1064 {
        req.send(&inline_header(xid), &nfs_call(xid, GETATTR, &getattr).inline);
    }
    let mut seen = Vec::new();
    for _ in 0..64 {
        seen.push(req.reply().await.0.xid);
    }
    seen.sort_unstable();
    assert_eq!(seen, (1000..1064).collect::<Vec<_>>());
    running.stop().await;
}
