//! RDMA Read and Write: placement before a later Send, handles, bounds, rights, invalidation, and
//! flushing when the connection ends in the middle of a stream.

mod support;

use bytes::Bytes;
use rdma::{Access, CompletionKind, QpConfig, RdmaError, RegBuf, RemoteSegment, WcError};
use support::{error, next, pair, pair_with, take, until_disconnected};

fn remote_access(c: &rdma::Completion) -> bool {
    matches!(error(c), Some(WcError::RemoteAccess(_)))
}

#[tokio::test]
async fn an_rdma_write_is_placed_before_the_send_that_follows_it() {
    let (client, server) = pair().await;
    client.post_recvs(1).expect("recvs");
    let sink =
        client.register(RegBuf::Writable(vec![0; 8192]), Access::LOCAL_WRITE | Access::REMOTE_WRITE).expect("reg");
    let target = sink.segment(100, 5000).expect("segment");
    let payload: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
    let source = server.register(RegBuf::ReadOnly(Bytes::from(payload.clone())), Access::NONE).expect("reg");
    server.post_write(1, &source, 0, target).expect("write");
    server.post_send(2, &[b"reply"]).expect("send");
    let done = take(&*server, 2).await;
    assert!(matches!((&done[0].result, &done[1].result), (Ok(CompletionKind::Write), Ok(CompletionKind::Send))));
    assert!(matches!(&next(&*client).await[0].result, Ok(CompletionKind::Recv(m)) if m.as_ref() == b"reply"));
    drop(source);
    let bytes = sink.into_buffer().expect("sole owner").into_bytes();
    assert_eq!(&bytes[100..5100], &payload[..]);
    assert!(bytes[..100].iter().chain(&bytes[5100..]).all(|b| *b == 0));
}

#[tokio::test]
async fn an_rdma_read_pulls_a_peer_region() {
    let (client, server) = pair().await;
    let payload = Bytes::from((0..1u32 << 20).map(|i| (i * 7) as u8).collect::<Vec<u8>>());
    let source = client.register(RegBuf::ReadOnly(payload.clone()), Access::REMOTE_READ).expect("reg");
    let sink = server.register(RegBuf::Writable(vec![0; 1 << 20]), Access::LOCAL_WRITE).expect("reg");
    server.post_read(5, &sink, 0, source.segment(0, 1 << 20).expect("seg")).expect("read");
    let done = next(&*server).await;
    assert!(matches!((done[0].wr_id, &done[0].result), (5, Ok(CompletionKind::Read))));
    assert_eq!(sink.into_buffer().expect("owner").into_bytes(), payload);
}

async fn refused_access(remote: impl FnOnce(&rdma::MemoryRegion) -> RemoteSegment, write: bool) -> String {
    let (client, server) = pair().await;
    let region = client.register(RegBuf::Writable(vec![1; 4096]), Access::REMOTE_READ).expect("reg");
    let local = server.register(RegBuf::Writable(vec![0; 8192]), Access::LOCAL_WRITE).expect("reg");
    let seg = remote(&region);
    if write {
        server.post_write(9, &local, 0, seg).expect("post");
    } else {
        server.post_read(9, &local, 0, seg).expect("post");
    }
    let done = until_disconnected(&*server).await;
    assert!(remote_access(&done[0]), "{done:?}");
    until_disconnected(&*client).await;
    format!("{:?}", error(&done[0]))
}

#[tokio::test]
async fn out_of_bounds_and_wrong_right_fail_with_remote_access() {
    let why = refused_access(|r| r.segment(4000, 96).map(|s| RemoteSegment { length: 97, ..s }).expect("seg"), false);
    assert!(why.await.contains("leave the region"));
    let why = refused_access(|r| RemoteSegment { offset: r.addr() - 1, ..r.segment(0, 1).expect("seg") }, false);
    assert!(why.await.contains("leave the region"));
    let why = refused_access(|r| r.segment(0, 16).expect("seg"), true);
    assert!(why.await.contains("does not allow remote write"));
    let why =
        refused_access(|r| RemoteSegment { handle: r.handle() ^ 0x5a5a_0000, ..r.segment(0, 16).expect("s") }, false);
    assert!(why.await.contains("unknown or invalidated"));
}

#[tokio::test]
async fn a_late_access_with_an_invalidated_handle_fails_with_remote_access() {
    let (client, server) = pair().await;
    let region = client.register(RegBuf::Writable(vec![0; 4096]), Access::REMOTE_WRITE).expect("reg");
    let old = region.segment(0, 4096).expect("seg");
    let source = server.register(RegBuf::Writable(vec![3; 4096]), Access::NONE).expect("reg");
    server.post_write(1, &source, 0, old).expect("write");
    assert!(matches!(next(&*server).await[0].result, Ok(CompletionKind::Write)));
    region.invalidate();
    // Registrations made since may reuse memory, never the old handle.
    let fresh = client.register(RegBuf::Writable(vec![0; 4096]), Access::REMOTE_WRITE).expect("reg");
    assert_ne!(fresh.handle(), old.handle);
    server.post_write(2, &source, 0, old).expect("post");
    let done = until_disconnected(&*server).await;
    assert!(remote_access(&done[0]) && done[0].wr_id == 2, "{done:?}");
    assert!(format!("{:?}", error(&done[0])).contains("invalidated"));
}

#[tokio::test]
async fn a_dropped_memory_region_cannot_be_accessed_afterwards() {
    let (client, server) = pair().await;
    let region = client.register(RegBuf::Writable(vec![0; 64]), Access::REMOTE_READ).expect("reg");
    let seg = region.segment(0, 64).expect("seg");
    drop(region);
    let local = server.register(RegBuf::Writable(vec![0; 64]), Access::LOCAL_WRITE).expect("reg");
    server.post_read(1, &local, 0, seg).expect("post");
    assert!(remote_access(&until_disconnected(&*server).await[0]));
}

#[tokio::test]
async fn local_ranges_and_rights_are_checked_at_post_time() {
    let (client, server) = pair().await;
    let remote = client.register(RegBuf::Writable(vec![0; 64]), Access::REMOTE_READ).expect("reg");
    let seg = remote.segment(0, 64).expect("seg");
    let read_only = server.register(RegBuf::ReadOnly(Bytes::from_static(&[0; 64])), Access::NONE).expect("reg");
    assert!(matches!(server.post_read(1, &read_only, 0, seg), Err(RdmaError::Invalid(_))));
    let small = server.register(RegBuf::Writable(vec![0; 64]), Access::LOCAL_WRITE).expect("reg");
    assert!(matches!(server.post_read(1, &small, 1, seg), Err(RdmaError::Invalid(_))));
    assert!(matches!(server.post_write(1, &small, usize::MAX, seg), Err(RdmaError::Invalid(_))));
    // A region of another connection is not this one's.
    assert!(matches!(server.post_read(1, &remote, 0, seg), Err(RdmaError::Invalid(_))));
    small.invalidate();
    assert!(matches!(server.post_write(1, &small, 0, seg), Err(RdmaError::Invalid(_))));
    let err = server.register(RegBuf::ReadOnly(Bytes::from_static(b"x")), Access::REMOTE_WRITE).expect_err("ro");
    assert!(matches!(err, RdmaError::Invalid(_)));
}

#[tokio::test]
async fn reads_beyond_the_negotiated_initiator_depth_are_queue_full() {
    let client_config = QpConfig { responder_resources: 2, ..QpConfig::default() };
    let (client, server) = pair_with(client_config, QpConfig::default(), 0).await;
    assert_eq!(server.info().initiator_depth, 2);
    let remote = client.register(RegBuf::Writable(vec![0; 64]), Access::REMOTE_READ).expect("reg");
    let local = server.register(RegBuf::Writable(vec![0; 64]), Access::LOCAL_WRITE).expect("reg");
    let seg = remote.segment(0, 8).expect("seg");
    server.post_read(1, &local, 0, seg).expect("read");
    server.post_read(2, &local, 8, seg).expect("read");
    let err = server.post_read(3, &local, 16, seg).expect_err("depth");
    assert!(matches!(err, RdmaError::QueueFull { queue: "RDMA Read", depth: 2 }));
    take(&*server, 2).await;
    server.post_read(3, &local, 16, seg).expect("room again once polled");
    // The Linux client offers initiator depth 0: it may not read at all.
    assert!(matches!(
        client.post_read(4, &remote, 0, seg),
        Err(RdmaError::QueueFull { depth: 0, .. }) | Err(RdmaError::Invalid(_))
    ));
}

#[tokio::test]
async fn a_disconnect_in_the_middle_of_a_stream_flushes_what_is_outstanding() {
    let (client, server) = pair().await;
    client.post_recvs(8).expect("recvs");
    let region =
        client.register(RegBuf::Writable(vec![0; 1 << 16]), Access::REMOTE_WRITE | Access::REMOTE_READ).expect("reg");
    let local = server.register(RegBuf::Writable(vec![5; 1 << 16]), Access::LOCAL_WRITE).expect("reg");
    let mut posted = 0u64;
    let mut refused_after = None;
    for i in 0..64u64 {
        let seg = region.segment((i as usize % 16) * 4096, 4096).expect("seg");
        let result =
            if i % 2 == 0 { server.post_write(i, &local, 0, seg) } else { server.post_read(i, &local, 0, seg) };
        match result {
            Ok(()) => posted += 1,
            Err(RdmaError::QueueFull { .. }) => {
                take(&*server, posted as usize).await;
                posted = 0;
            }
            Err(RdmaError::Disconnected) => {
                refused_after = Some(i);
                break;
            }
            Err(e) => panic!("{e}"),
        }
        if i == 40 {
            client.disconnect();
        }
    }
    // The first request after the disconnect is flushed; later posts are refused.
    assert_eq!(refused_after, Some(42));
    let rest = until_disconnected(&*server).await;
    assert!(rest.iter().any(|c| error(c) == Some(WcError::Flushed)), "{rest:?}");
    assert!(rest.iter().all(|c| c.result.is_ok() || error(c) == Some(WcError::Flushed)));
    let client_side = until_disconnected(&*client).await;
    assert_eq!(client_side.len(), 8);
    assert!(client_side.iter().all(|c| error(c) == Some(WcError::Flushed)));
}
