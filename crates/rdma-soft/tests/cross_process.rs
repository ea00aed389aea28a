//! Two processes: the test binary re-executes itself as the client (selected by an environment
//! variable); the server RDMA-Reads the client's region, RDMA-Writes another, replies, and then sees
//! the connection end when the client process exits.

mod support;

use std::process::Command;

use bytes::Bytes;
use rdma::{Access, CompletionKind, Provider, QpConfig, RegBuf, RemoteSegment};
use rdma_soft::SoftProvider;
use support::{localhost, next, take, until_disconnected, DEADLINE};

const CHILD: &str = "RDMA_SOFT_TEST_CHILD_CONNECT_TO";
const LEN: usize = 256 * 1024;

fn pattern(seed: u8) -> Vec<u8> {
    (0..LEN).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

fn segment_bytes(read: RemoteSegment, write: RemoteSegment) -> Vec<u8> {
    let mut out = Vec::new();
    for seg in [read, write] {
        out.extend_from_slice(&seg.handle.to_be_bytes());
        out.extend_from_slice(&seg.offset.to_be_bytes());
        out.extend_from_slice(&seg.length.to_be_bytes());
    }
    out
}

fn parse_segments(bytes: &[u8]) -> (RemoteSegment, RemoteSegment) {
    let seg = |b: &[u8]| RemoteSegment {
        handle: u32::from_be_bytes(b[0..4].try_into().expect("4")),
        offset: u64::from_be_bytes(b[4..12].try_into().expect("8")),
        length: u32::from_be_bytes(b[12..16].try_into().expect("4")),
    };
    (seg(&bytes[0..16]), seg(&bytes[16..32]))
}

/// The client half; does nothing unless started by `rdma_read_and_write_work_between_two_processes`.
#[tokio::test]
async fn child_process_client() {
    let Ok(addr) = std::env::var(CHILD) else { return };
    let provider = SoftProvider::new().expect("provider");
    let qp = provider.connect(addr.parse().expect("addr"), QpConfig::default(), b"child").await.expect("connect");
    qp.post_recvs(1).expect("recvs");
    let source = qp.register(RegBuf::ReadOnly(Bytes::from(pattern(1))), Access::REMOTE_READ).expect("reg");
    let sink = qp.register(RegBuf::Writable(vec![0; LEN]), Access::LOCAL_WRITE | Access::REMOTE_WRITE).expect("reg");
    let segs = segment_bytes(source.segment(0, LEN as u32).expect("seg"), sink.segment(0, LEN as u32).expect("seg"));
    qp.post_send(1, &[&segs]).expect("send");
    let mut seen = Vec::new();
    while !seen.iter().any(|c: &rdma::Completion| matches!(c.result, Ok(CompletionKind::Recv(_)))) {
        seen.extend(next(&*qp).await);
    }
    drop(source);
    let written = sink.into_buffer().expect("owner").into_bytes();
    assert!(written.as_ref() == pattern(2).as_slice(), "the server's RDMA Write arrived");
    // Exits without disconnecting: the server must notice the process is gone.
    std::mem::forget(qp);
}

#[tokio::test]
async fn rdma_read_and_write_work_between_two_processes() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let provider = SoftProvider::new().expect("provider");
    let mut listener = provider.listen(localhost()).expect("listen");
    let mut child = Command::new(std::env::current_exe().expect("exe"))
        .args(["--exact", "child_process_client", "--test-threads=1", "--nocapture"])
        .env(CHILD, listener.local_addr().to_string())
        .spawn()
        .expect("spawn the client process");
    let incoming = tokio::time::timeout(DEADLINE, listener.accept()).await.expect("in time").expect("incoming");
    assert_eq!(incoming.private_data(), b"child");
    let qp = incoming.accept_with_recvs(QpConfig::default(), b"", 1).await.expect("accept");
    let request = next(&*qp).await;
    let Ok(CompletionKind::Recv(bytes)) = &request[0].result else { panic!("{request:?}") };
    let (read, write) = parse_segments(bytes);
    let local = qp.register(RegBuf::Writable(vec![0; LEN]), Access::LOCAL_WRITE).expect("reg");
    qp.post_read(1, &local, 0, read).expect("read");
    let payload = qp.register(RegBuf::ReadOnly(Bytes::from(pattern(2))), Access::NONE).expect("reg");
    qp.post_write(2, &payload, 0, write).expect("write");
    qp.post_send(3, &[b"done"]).expect("send");
    let done = take(&*qp, 3).await;
    assert!(done.iter().all(|c| c.result.is_ok()), "{done:?}");
    let status = tokio::task::spawn_blocking(move || child.wait()).await.expect("join").expect("wait");
    assert!(status.success(), "the client process failed: {status}");
    assert!(until_disconnected(&*qp).await.is_empty());
    assert_eq!(local.into_buffer().expect("owner").into_bytes().as_ref(), pattern(1).as_slice());
}
